/**
 * What a target agent cannot keep of a session converted into it, worded as warnings (printed by
 * `threadbase convert` on stderr and in `--json` output as `warnings`). Each line names the
 * session, what is lost and how many. CONVERT.md has the same as a table per direction.
 * The format encoders add their own per-entry warnings (entry ids) beside these.
 */
import { isReplayableReasoning } from '../formats/codex/encode.js';
import type { Entry, Message, Part, Session } from '../model/types.js';

interface Counts {
  costs: number;
  providers: Set<string>;
  unsignedThinking: number;
  signedThinking: number;
  redacted: number;
  /** thinking codex would not send back to the model (not OpenAI reasoning) */
  unsentByCodex: number;
  urlImages: number;
  assistantImages: number;
  /** files without their text (a text note where the target has no file part) */
  fileNotes: number;
  systemMessages: number;
  foreignMetadata: number;
  modelChanges: number;
  labels: number;
}

function count(entries: readonly Entry[], target: string): Counts {
  const c: Counts = {
    costs: 0,
    providers: new Set(),
    unsignedThinking: 0,
    signedThinking: 0,
    redacted: 0,
    unsentByCodex: 0,
    urlImages: 0,
    assistantImages: 0,
    fileNotes: 0,
    systemMessages: 0,
    foreignMetadata: 0,
    modelChanges: 0,
    labels: 0,
  };
  const part = (p: Part, m: Message) => {
    if (p.type === 'thinking' && m.role === 'assistant') {
      if (p.signature) c.signedThinking++;
      else if (p.thinking.trim()) c.unsignedThinking++;
      if (p.thinking.trim() && !isReplayableReasoning(m, p)) c.unsentByCodex++;
    } else if (p.type === 'redacted_thinking') c.redacted++;
    else if (p.type === 'image') {
      if (m.role === 'assistant') c.assistantImages++;
      if (p.data === undefined) c.urlImages++;
    } else if (p.type === 'file' && p.text === undefined) c.fileNotes++;
    else if (p.type === 'tool_result' && Array.isArray(p.content))
      for (const x of p.content) if (x.type === 'image' && x.data === undefined) c.urlImages++;
  };
  for (const e of entries) {
    // The target's own records are written back as they were.
    if (e.rawSource === target) continue;
    if (e.kind === 'message') {
      const m = e.message;
      if (m.cost !== undefined && m.cost > 0) c.costs++;
      if (m.provider) c.providers.add(m.provider);
      if (m.role === 'system') c.systemMessages++;
      for (const p of m.parts) part(p, m);
    } else if (e.kind === 'metadata') c.foreignMetadata++;
    else if (e.kind === 'model_change') c.modelChanges++;
    else if (e.kind === 'label') c.labels++;
  }
  return c;
}

/** The warnings for writing `session` (as it will be written: one path or the whole tree) into `target`. */
export function conversionLosses(session: Session, target: string): string[] {
  const c = count(session.entries, target);
  const name = `${session.source}:${session.id} → ${target}`;
  const out: string[] = [];
  const say = (n: number, what: string) => {
    if (n > 0) out.push(`${name}: ${what} (${n})`);
  };
  if (target === 'claude') {
    say(c.costs, 'Claude Code records no cost per message; recorded costs dropped (threadbase prices tokens instead)');
    const others = [...c.providers].filter((p) => p !== 'anthropic');
    if (others.length) out.push(`${name}: Claude Code records no provider; providers ${others.join(', ')} dropped`);
    say(c.unsignedThinking, 'unsigned thinking written as text (Claude Code replays only signed thinking)');
    const models = [
      ...new Set(session.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : []))),
    ];
    say(
      c.signedThinking,
      `thinking is kept with its signature, but Claude Code leaves it out when resumed with another model (resume with --model ${models.at(-1) ?? '<the source model>'})`,
    );
    say(c.systemMessages, 'system messages have no place in a Claude Code transcript; left out');
    say(c.modelChanges, 'model/thinking-level changes have no Claude Code record; left out');
    say(c.labels, 'labels have no Claude Code record; left out');
    say(c.foreignMetadata, "another agent's metadata records have no Claude Code form; left out");
  } else if (target === 'pi') {
    say(
      c.signedThinking + c.unsignedThinking,
      'thinking is kept with its signature, but pi replays thinking recorded by another model as plain text',
    );
    say(c.redacted, 'redacted thinking is kept, but pi drops it when resuming with another model');
    // reasoning tokens, 1-hour cache writes and the price terms go in a usage field pi ignores (pi/records.ts)
    say(c.urlImages, 'images by URL have no pi form; written as a text note');
    say(c.systemMessages, 'pi has no system messages; written as user messages');
    say(c.foreignMetadata, "another agent's metadata kept as pi custom entries (pi ignores them)");
  } else if (target === 'opencode') {
    say(
      c.signedThinking + c.unsignedThinking,
      'thinking is kept with its signature, but OpenCode replays reasoning recorded by another model as plain text',
    );
    // 1-hour cache writes and the price terms go in a tokens field OpenCode ignores (opencode/encode.ts)
    say(c.systemMessages, 'system messages have no OpenCode equivalent; left out');
    say(c.modelChanges, 'model/thinking-level changes have no OpenCode record; left out');
    say(c.labels, 'labels have no OpenCode record; left out');
    say(c.foreignMetadata, "another agent's metadata records have no OpenCode form; left out");
  } else if (target === 'codex') {
    say(
      c.unsentByCodex,
      "another model's thinking is kept in the rollout (an agent_reasoning event), but codex sends only OpenAI reasoning back to the model",
    );
    say(c.redacted, 'redacted thinking has no codex form; left out');
    say(c.costs, 'codex records no cost per message; recorded costs dropped (threadbase prices tokens instead)');
    say(c.assistantImages, 'images in assistant messages have no Responses item; written as a text note');
    say(c.fileNotes, 'non-text files have no codex form; written as a text note');
    say(c.modelChanges, 'model/thinking-level changes have no codex record; left out');
    say(c.labels, 'labels have no codex record; left out');
    say(c.foreignMetadata, "another agent's metadata records have no codex form; left out");
  }
  return out;
}
