/** Claude Code sessions: `projects/<encoded cwd>/<id>.jsonl`, sub-agents in both layouts, todos. */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { type AnthropicLaidOutContext, AnthropicToolIds } from '../../convert/anthropic.js';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  ReadFrom,
  SessionFilter,
  SourceUnit,
  UnitRead,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { truncate } from '../../model/text.js';
import {
  buildContext,
  type Context,
  type ContextOptions,
  countMessages,
  EMPTY_LEAF,
  mergeSplitResponses,
  pathToLeaf,
} from '../../model/tree.js';
import type { Entry, Message, Part, Session, SessionInfo, ToolCallPart } from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { withAssistantImageNotes } from '../shared/assistant-images.js';
import { appendJsonlLines, toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { applyFilter, DriverBase, fileUnits } from '../shared/base.js';
import { parseJson } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { writtenByOf } from '../shared/written-by.js';
import { relinkAgentId, writeSubagentTranscript } from './children.js';
import { claudeSentWording } from './notifications.js';
import { isRecord, type ParsedTranscript, parseTranscript, promptText } from './parse.js';
import { claudeDir, encodeProjectPath, findSessionFiles, locateSessionFile, projectsDir, type SessionFile } from './paths.js';
import { claudeAdditionMessages, withAdditionsMarked, withAdditionsPlaced } from './reminders.js';
import { callsLast, EMPTY_TEXT_REMOVED, isBlankText, isReplyContent, isThinking, NO_CONTENT } from './reply.js';

function claudeMeta(m: Message): Record<string, unknown> | undefined {
  const c = m.meta?.claude;
  return isRecord(c) ? c : undefined;
}

/**
 * The message list as Claude Code sends it: background-task notifications wrapped in its
 * reminder, and consecutive user records joined into one user turn with a newline after each
 * earlier record's text that a record starting with text follows (what its request shows, e.g.
 * after `/compact`'s command records); the turn joined so far ends with its last block that is
 * not a tool result, as Claude Code puts a turn's tool results first (a prompt among parallel
 * calls' results: test/fixtures/claude/tool-order; the results themselves go first when the
 * context is rendered, convert/pairing.ts).
 */
export function claudeWording(messages: readonly Message[]): Message[] {
  const out: Message[] = messages.map(claudeSentWording);
  const isUserSide = (m: Message | undefined) => m !== undefined && (m.role === 'user' || m.role === 'tool');
  for (let start = 0; start < out.length; start++) {
    if (!isUserSide(out[start])) continue;
    let end = start + 1;
    while (isUserSide(out[end])) end++;
    for (let j = start + 1; j < end; j++) {
      if ((out[j] as Message).parts[0]?.type !== 'text') continue;
      // the block the turn so far ends with: the first record's last one; once joined, the last that
      // is not a tool result (Claude Code puts a turn's tool results first)
      let at: [number, number] | undefined;
      if (j === start + 1) at = [start, (out[start] as Message).parts.length - 1];
      else
        for (let k = j - 1; k >= start && !at; k--) {
          const parts = (out[k] as Message).parts;
          const p = parts.findLastIndex((x) => x.type !== 'tool_result');
          if (p >= 0) at = [k, p];
        }
      if (!at) continue;
      const m = out[at[0]] as Message;
      const last = m.parts[at[1]];
      if (last?.type === 'text' && !last.text.endsWith('\n'))
        out[at[0]] = { ...m, parts: m.parts.map((x, n) => (n === at[1] ? ({ ...last, text: `${last.text}\n` } as Part) : x)) };
    }
    start = end - 1;
  }
  return out;
}

/** What Claude Code answers, on resume, for a call whose result the transcript never got (the process ended mid-tool). */
export const INTERRUPTED_TOOL_RESULT =
  "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]";
/** The assistant turn Claude Code puts after a chain that ends on a user record, so the next prompt is a turn of its own. */
export const NO_RESPONSE_REQUESTED = 'No response requested.';

/**
 * The records Claude Code keeps when it loads a transcript to resume it (one message per record,
 * before split responses are merged), as its 2.1.332 resume request shows:
 * - API-error records are left out, last (the prompts around them become one user turn), with the
 *   results of any calls in them;
 * - calls the transcript's last turn never got a result for get an error result saying so;
 *   a record whose calls all lack a result anywhere else is left out, its text too;
 * - a record with blocks but no reply content (reply.ts: thinking, blank text, "(no content)") is
 *   left out, unless another record of its response has some (what then becomes of its blank
 *   text: claudeJoinedText);
 * - its own notes to the model (`ownNote`, e.g. "no visible output") are wrapped in a system reminder;
 * - a record with no blocks at all is merged into its response: left out when another record of
 *   it is sent, else the response is sent once as "(no content)";
 * - a chain that ends on the user's side gets an assistant "No response requested.", the records of
 *   REPL commands (`system` `local_command`, read as user messages) after it passed over.
 */
export function claudeResumed(messages: readonly Message[]): Message[] {
  let out = [...messages];
  const answered = new Set(out.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : []))));
  const lastPrompt = out.findLastIndex((m) => m.role === 'user');
  const interrupted = out
    .slice(lastPrompt + 1)
    .flatMap((m) => (m.role === 'assistant' ? m.parts : []))
    .flatMap((p) => (p.type === 'tool_call' && !answered.has(p.id) ? [p.id] : []));
  if (interrupted.length) {
    for (const id of interrupted) answered.add(id);
    out.push({
      role: 'tool',
      parts: interrupted.map((callId) => ({ type: 'tool_result', callId, content: INTERRUPTED_TOOL_RESULT, isError: true })),
    });
  }
  out = out.filter((m) => {
    if (m.role !== 'assistant') return true;
    const calls = m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []));
    return calls.length === 0 || calls.some((id) => answered.has(id));
  });
  const replied = new Set(
    out.flatMap((m) => (m.role === 'assistant' && m.responseId && m.parts.some(isReplyContent) ? [m.responseId] : [])),
  );
  out = out.filter((m) => {
    if (m.role !== 'assistant' || m.parts.length === 0 || m.parts.some(isReplyContent)) return true;
    return m.responseId !== undefined && replied.has(m.responseId);
  });
  // Records with no blocks join their response when Claude Code merges its records: they add
  // nothing to a response that has blocks; one with none is read as "(no content)", once.
  const withBlocks = new Set(
    out.flatMap((m) => (m.role === 'assistant' && m.responseId && m.parts.length > 0 ? [m.responseId] : [])),
  );
  const emptyResponses = new Set<string>();
  out = out.filter((m) => {
    if (m.role !== 'assistant' || m.parts.length > 0 || m.responseId === undefined) return true;
    if (withBlocks.has(m.responseId) || emptyResponses.has(m.responseId)) return false;
    emptyResponses.add(m.responseId);
    return true;
  });
  out = out.map((m) =>
    m.role === 'user' && claudeMeta(m)?.ownNote === true
      ? {
          ...m,
          parts: m.parts.map((p) => (p.type === 'text' ? { ...p, text: `<system-reminder>\n${p.text}\n</system-reminder>` } : p)),
        }
      : m,
  );
  // a response with no content at all is read as this reply (the block as Claude Code sends it)
  out = out.map((m) =>
    m.role === 'assistant' && m.parts.length === 0
      ? { ...m, parts: [{ type: 'text', text: NO_CONTENT, meta: { anthropic: { citations: [] } } }] }
      : m,
  );
  // a REPL command's records are system records to Claude Code, which it passes over here: the reply
  // goes after the last other message when that is the user's (before any command records after it)
  const lastSaid = out.findLastIndex((m) => claudeMeta(m)?.localCommand !== true);
  const last = out[lastSaid];
  if (last && last.role !== 'assistant')
    out.splice(lastSaid + 1, 0, {
      role: 'assistant',
      parts: [{ type: 'text', text: NO_RESPONSE_REQUESTED }],
      meta: { claude: { synthetic: true } },
    });
  // API errors go only when the request is built: a chain that ends on one gets no "No response requested."
  const isApiError = (m: Message) => claudeMeta(m)?.isApiErrorMessage === true;
  // and with one go the results of its calls (threadbase writes another agent's failed turn as one)
  const failedCalls = new Set(
    out.flatMap((m) => (isApiError(m) ? m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])) : [])),
  );
  return out.flatMap((m) => {
    if (isApiError(m)) return [];
    if (!m.parts.some((p) => p.type === 'tool_result' && failedCalls.has(p.callId))) return [m];
    const parts = m.parts.filter((p) => !(p.type === 'tool_result' && failedCalls.has(p.callId)));
    return parts.length ? [{ ...m, parts }] : [];
  });
}

/**
 * The records of one response brought together as Claude Code 2.1.332 joins them when it resumes
 * (test/fixtures/claude/parallel-tools and tool-order, checked live), still one message per
 * record: a record joins the earlier records of its response (`message.id`) however many turns lie
 * between, another response's too, as long as every user turn between holds a tool result (a user
 * turn is its consecutive user records, so a prompt joined to tool results does not end it); a user
 * turn without one ends every response before it. Parallel calls whose results were written between
 * the calls (call A, result A, call B, result B) so become one reply with all the calls, and one
 * user turn with all the results.
 * An assistant message without a responseId joins nothing.
 */
export function claudeRejoined(messages: readonly Message[]): Message[] {
  type Turn = { role: Message['role']; messages: Message[] };
  const turns: Turn[] = [];
  const open = new Map<string, Turn>();
  /** the user turns since the last assistant message */
  let since: Turn[] = [];
  const userSide = (m: Message) => m.role === 'user' || m.role === 'tool';
  const hasResult = (t: Turn) => t.messages.some((m) => m.parts.some((p) => p.type === 'tool_result'));
  for (const m of messages) {
    const last = turns[turns.length - 1];
    if (m.role !== 'assistant') {
      if (userSide(m) && last?.role === 'user') last.messages.push(m);
      else {
        const turn: Turn = { role: userSide(m) ? 'user' : m.role, messages: [m] };
        turns.push(turn);
        if (turn.role === 'user') since.push(turn);
      }
      continue;
    }
    if (since.some((t) => !hasResult(t))) open.clear();
    since = [];
    const joined = m.responseId ? open.get(m.responseId) : undefined;
    if (joined) {
      joined.messages.push(m);
      continue;
    }
    const turn: Turn = { role: 'assistant', messages: [m] };
    turns.push(turn);
    if (m.responseId) open.set(m.responseId, turn);
  }
  return turns.flatMap((t) => t.messages);
}

/**
 * The blank text of replies as Claude Code 2.1.332 sends it when it joins the records of each
 * response into one message (its resume request, test/fixtures/claude/blank-text), still one
 * message per record here:
 * - whitespace-only text is left out of a response of two or more records (wherever it sits, in a
 *   record of its own or beside other blocks), unless it is between two thinking blocks or nothing
 *   but thinking would be left; a response of one record keeps it;
 * - empty text is left out of any response, except that between two thinking blocks (the next
 *   block that is not empty text) of a response with other content it is sent as
 *   "[Empty text removed]" (with `citations: []`);
 * - a record left with no blocks is left out;
 * and every reply's tool calls after its other blocks when a block follows a call (reply.ts
 * callsLast), at each record joined as Claude Code does: a record whose calls so go after a later
 * record's blocks is left in two pieces (which join again as one reply).
 * Run after claudeResumed and claudeRejoined: a response of only thinking and blank text is left
 * out there already, and the records of each response are consecutive.
 */
export function claudeJoinedText(messages: readonly Message[]): Message[] {
  const isEmpty = (p: Part) => p.type === 'text' && p.text === '';
  // the records of each response, as mergeSplitResponses joins them: consecutive, one responseId
  const runs: number[][] = [];
  messages.forEach((m, i) => {
    const run = runs[runs.length - 1];
    const prev = run ? messages[run[run.length - 1] as number] : undefined;
    if (run && m.role === 'assistant' && prev?.role === 'assistant' && m.responseId && m.responseId === prev.responseId)
      run.push(i);
    else runs.push([i]);
  });
  type Owned = { part: Part; of: number };
  const joined = runs.map((run) => {
    let sofar: Owned[] = [];
    const owned = ({ part }: Owned) => part;
    run.forEach((i, k) => {
      const m = messages[i] as Message;
      const all = sofar.concat(m.parts.map((part) => ({ part, of: i })));
      if (k === 0) {
        sofar = m.role === 'assistant' ? [...callsLast(all, owned)] : all;
        return;
      }
      // each record joined drops the whitespace-only text of all so far (not empty text: see below)
      const kept = all.filter(
        ({ part }, j) => !(isBlankText(part) && !isEmpty(part)) || (isThinking(all[j - 1]?.part) && isThinking(all[j + 1]?.part)),
      );
      sofar = [...callsLast(kept.some(({ part }) => !isThinking(part)) ? kept : all, owned)];
    });
    return sofar;
  });
  const hasContent = (parts: readonly Owned[]) => parts.some(({ part }) => !isThinking(part) && !isEmpty(part));
  const withContent = new Set(
    runs.flatMap((run, r) => {
      const m = messages[run[0] as number] as Message;
      return m.role === 'assistant' && m.responseId && hasContent(joined[r] as Owned[]) ? [m.responseId] : [];
    }),
  );
  const out: Message[] = [];
  runs.forEach((run, r) => {
    const first = messages[run[0] as number] as Message;
    let parts = joined[r] as Owned[];
    if (first.role === 'assistant' && parts.some(({ part }) => isEmpty(part))) {
      const placeholder = hasContent(parts) || (first.responseId !== undefined && withContent.has(first.responseId));
      parts = parts.flatMap((o, j) => {
        if (!isEmpty(o.part)) return [o];
        const after = parts.slice(j + 1).find(({ part }) => !isEmpty(part));
        return placeholder && isThinking(parts[j - 1]?.part) && isThinking(after?.part)
          ? [{ of: o.of, part: { type: 'text', text: EMPTY_TEXT_REMOVED, meta: { anthropic: { citations: [] } } } }]
          : [];
      });
    }
    // a record of no blocks (claudeResumed leaves none in a reply) stays as it is
    for (const i of run) if ((messages[i] as Message).parts.length === 0) out.push(messages[i] as Message);
    // each record's parts as they now stand: a record whose calls moved after a later record's
    // blocks is sent in two pieces, which join again as one reply
    const pieces: Owned[][] = [];
    for (const o of parts) {
      const piece = pieces[pieces.length - 1];
      if (piece && piece[0]?.of === o.of) piece.push(o);
      else pieces.push([o]);
    }
    for (const piece of pieces) {
      const m = messages[piece[0]?.of as number] as Message;
      const own = piece.map((o) => o.part);
      if (own.length === m.parts.length && own.every((p, k) => p === m.parts[k])) out.push(m);
      else out.push({ ...m, parts: own });
    }
  });
  return out;
}

/** A user message Claude Code recorded with its content a string, which it sends as it is. */
function recordedAsString(m: Message): boolean {
  const only = m.parts[0];
  return m.parts.length === 1 && only?.type === 'text' && !only.meta && claudeMeta(m)?.blockContent !== true;
}

/**
 * Claude Code sends a user turn (consecutive user records, tool results among them) as blocks
 * without its blank text blocks (empty or whitespace only), as "(no content)" when they were all it
 * had; a turn of one record whose content is a string is sent as it is, blank or not.
 */
export function claudeUserBlocks(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  const userSide = (m: Message | undefined) => m !== undefined && (m.role === 'user' || m.role === 'tool');
  for (let i = 0; i < messages.length; ) {
    let end = i + 1;
    if (userSide(messages[i])) while (userSide(messages[end])) end++;
    const turn = messages.slice(i, end);
    i = end;
    const first = turn[0] as Message;
    if (!userSide(first) || (turn.length === 1 && recordedAsString(first)) || !turn.some((m) => m.parts.some(isBlankText))) {
      out.push(...turn);
      continue;
    }
    const kept = turn.flatMap((m) => {
      if (!m.parts.some(isBlankText)) return [m];
      const parts = m.parts.filter((p) => !isBlankText(p));
      return parts.length ? [{ ...m, parts }] : [];
    });
    const none = kept.every((m) => m.parts.length === 0);
    out.push(...(none ? [{ ...first, role: 'user' as const, parts: [{ type: 'text' as const, text: NO_CONTENT }] }] : kept));
  }
  return out;
}

/** Tool calls and results with the ids Claude Code sends: the transcript's, where we renamed another agent's (`claudeId`). */
function claudeToolIdsSent(messages: readonly Message[]): Message[] {
  const sent = (p: Part): Part => {
    const id = p.meta?.claudeId;
    if (typeof id !== 'string') return p;
    if (p.type === 'tool_call') return { ...p, id };
    return p.type === 'tool_result' ? { ...p, callId: id } : p;
  };
  return messages.map((m) => (m.parts.some((p) => p.meta?.claudeId !== undefined) ? { ...m, parts: m.parts.map(sent) } : m));
}

/** Claude Code sends the isCompactSummary record's text as is (it already carries its preamble). */
const CLAUDE_CONTEXT_OPTIONS: ContextOptions = { compactionText: (c) => c.summary };

/** The context Claude Code sends when it resumes the session (registered as Claude Code's ResumeContext). */
export function claudeContext(s: Session, opts: ContextOptions = {}): Context {
  // Per record first: Claude Code filters records before it joins a split response (across the
  // tool results between its records, too).
  // hook output and plan mode (attachment records) are sent as a system message after their user turn:
  // taken out of the list while it is resumed as Claude Code does, marked on that turn (reminders.ts)
  const { entries, additions } = claudeAdditionMessages(s.entries);
  const ctx = buildContext({ ...s, entries }, { ...CLAUDE_CONTEXT_OPTIONS, ...opts, mergeSplitResponses: false });
  // an image the assistant made is in the transcript as its note (encode.ts), and sent so
  const sent = claudeToolIdsSent(withAdditionsMarked(ctx.messages, additions).map(withAssistantImageNotes));
  const resumed = claudeJoinedText(claudeRejoined(claudeResumed(sent)));
  const messages = claudeWording(opts.mergeSplitResponses === false ? resumed : mergeSplitResponses(resumed));
  const context: AnthropicLaidOutContext = {
    ...ctx,
    messages: claudeUserBlocks(withAdditionsPlaced(messages)),
    // those system messages go among the messages, where Claude Code sends them
    anthropicLayout: { systemInPlace: true },
  };
  return context;
}

interface Cached {
  mtimeMs: number;
  size: number;
  parsed: ParsedTranscript;
}

export class ClaudeDriver extends DriverBase {
  readonly name = 'claude';
  /**
   * 1: the usage of paused responses (`message.pausedResponses`);
   * 2: API-error records read as errors, and "<synthetic>" records with no model, usage or response;
   * 3: a user record whose content is a lone blank text block, not a string (`blockContent`);
   * 4: parallel calls whose results were written between the calls (or some of them) re-linked
   *    into one chain without a cycle (relinkParallelToolResults);
   * 5: a user record threadbase wrote for a branch summary (`threadbase.branchSummary`) is that branch summary;
   * 6: the note threadbase wrote for an image the assistant made (`threadbase.parts[].image`) is that image;
   * 7: a result whose record has `toolDenialKind` (or an older refusal's words) is marked `refused`/`cancelled` (denials.ts).
   * 8: the `message.id` threadbase made up for a reply that had no response id (madeUpResponseId) is none.
   * 9: a transcript threadbase wrote says so (its first record's `threadbase.writtenBy`: SessionInfo.writtenBy).
   * 10: that mark kept by a read of only what was appended (sync), and on Claude Code's own API-error
   *     record (`threadbase.claudeApiError`), which reads as Claude Code's error, not a failed turn written for another agent.
   * 11: a call stopped while it ran, which 2.1.332 records as `user-rejected` with its refusal's words corrected, is cancelled, not refused.
   * 12: a denial's words are kept beside its kind (`meta.claude.toolDenialWords`, recordedDenial).
   * 13: the leaf is the last main-chain record at or under the last `last-prompt`'s leafUuid, as
   *     2.1.332 resumes (records after it on another branch no longer move it; see parse.ts claudeLeaf).
   * 14: a `claude --resume X --fork-session` copy has X as parentId (its copied replies' `requestSessionId`).
   * 15: a read of only what was appended (sync) gives the leaf a whole read gives (leafAfter): a
   *     `last-prompt` naming a record before the part re-read, or a record on another branch, no longer
   *     sets a leaf of its own.
   * 16: and the title a whole read gives: an `ai-title` before the part re-read is not replaced by a
   *     `summary` in it; a `summary` naming a record before it is read whole (summaryTitleAfter).
   * 17: a `/branch` (SDK forkSession) copy's parentEntryId is its fork point: the last record's
   *     `forkedFrom`, not the first's (each copied record names its own original).
   * 18: a read of only what was appended gives a record without a `timestamp` at the start of the part
   *     re-read the latest time before it, as a whole read does (`safe.latestTimestamp` in the state).
   * 19: a `system` `local_command` record (a REPL command such as `/branch` and its output) is a user
   *     message with its text, as Claude Code sends it, not metadata left out of the context.
   * 20: of a uuid written twice the later record is read (Claude Code's loader keeps it: Map.set), and
   *     is the leaf when it is the last main-chain record; the earlier one is left out with a warning.
   * 21: the leaf is 2.1.332's (parse.ts claudeLeaf): the last row only when it is under the last
   *     `last-prompt`'s leaf (else that leaf, not the last record written under it); a compact boundary or
   *     an explicit null leafUuid clears that leaf; with no `last-prompt`, the newest record under the last
   *     row when another row is as new (a uuid written again); trailing `file_snapshot` rows: the newest
   *     chain end; a record of a type Claude Code does not keep (`progress`, unknown) is never the leaf.
   * 22: after a compaction whose boundary names the segment it kept, the leaf comes from the ends of
   *     the chains (the checkpoint when it is one, else the last row), as 2.1.332 loads such a transcript.
   * 23: a row whose parent is no row (a uuid never written, a record of a type Claude Code does not keep)
   *     hangs under the latest row at most 5 s older, else starts a root, as 2.1.332 walks the chain
   *     (parse.ts bridgeMissingParents); it no longer goes on through an unknown-type record.
   * 24: a rewind to empty (`last-prompt` with `leafUuid: null, explicit: true`) with no main-chain row
   *     after it leaves no leaf (EMPTY_LEAF): 2.1.332 resumes with no messages; before, the last row.
   * 25: 2.1.332's batch rule (parse.ts underByBatch): a checkpoint inside one response's parallel calls
   *     counts a last row reached through another record of that response as under it (the last row is
   *     the leaf, not the checkpoint).
   */
  readonly readerVersion = 25;
  readonly capabilities: DriverCapabilities = {
    read: true,
    write: true,
    append: true,
    fork: true,
    branch: true,
    delete: false,
    title: false,
    search: false,
  };
  private readonly env: DriverEnv;
  private readonly parsedByPath = new Map<string, Cached>();
  /** getSession's info of a session file's parse (one it keeps in parsedByPath) */
  private readonly sessionInfoOf = new WeakMap<ParsedTranscript, SessionInfo>();
  /** id → file, filled by listing and lookups so getEntry/getSession go straight to the file */
  private readonly fileById = new Map<string, SessionFile>();
  /** Transcripts this driver wrote whole (a sub-agent's link may be set in them after: writeChildSession). */
  private readonly writtenHere = new Set<string>();

  constructor(env: DriverEnv) {
    super();
    this.env = env;
  }

  get dir(): string {
    return claudeDir(this.env);
  }

  private async parse(file: SessionFile): Promise<ParsedTranscript> {
    const st = await fs.stat(file.path);
    const hit = this.parsedByPath.get(file.path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.parsed;
    const parsed = await parseTranscript(file.path, { subagent: file.kind !== 'session' });
    this.parsedByPath.set(file.path, { mtimeMs: st.mtimeMs, size: st.size, parsed });
    return parsed;
  }

  private async info(file: SessionFile, p: ParsedTranscript): Promise<SessionInfo> {
    const st = await fs.stat(file.path).catch(() => undefined);
    const u = summarizeUsage(p.entries);
    const info: SessionInfo = {
      id: file.id,
      source: 'claude',
      createdAt: p.firstTimestamp ?? st?.birthtime.toISOString() ?? new Date(0).toISOString(),
      updatedAt: p.lastTimestamp ?? st?.mtime.toISOString() ?? new Date(0).toISOString(),
      messageCount: countMessages(p.entries),
      path: file.path,
      usage: u.usage,
    };
    if (p.cwd) info.project = p.cwd;
    // Title: the user's /rename title, else Claude Code's summary/ai title, else the first prompt (what its picker shows).
    const title = p.customTitle ?? p.summaryTitle ?? p.firstPrompt;
    if (title) info.title = truncate(title, 200);
    if (u.models.length) info.models = u.models;
    Object.assign(info, usageByModelOf(u), writtenByOf(p.writtenBy));
    if (file.kind === 'subagent') {
      info.parentId = file.parentSessionId ?? null;
      if (file.metaPath) {
        try {
          const meta: unknown = parseJson(await fs.readFile(file.metaPath, 'utf8'));
          if (isRecord(meta)) {
            if (typeof meta.toolUseId === 'string') info.parentToolCallId = meta.toolUseId;
            info.meta = { ...(info.meta ?? {}), agent: meta };
            if (!info.title && typeof meta.description === 'string') info.title = meta.description;
          }
        } catch (err) {
          p.warnings.push({ file: file.metaPath, message: `unreadable sub-agent meta: ${(err as Error).message}` });
        }
      }
    } else if (file.kind === 'legacy-subagent') {
      info.parentId = p.sessionIdInFile ?? null;
    } else if (p.forkedFrom?.sessionId && p.forkedFrom.sessionId !== file.id) {
      info.parentId = p.forkedFrom.sessionId;
      if (p.forkedFrom.messageUuid) info.parentEntryId = p.forkedFrom.messageUuid;
    } else if (p.requestedIn && p.requestedIn.sessionId !== file.id) {
      // a `claude --resume X --fork-session` copy: its last copied reply names the session it came from
      info.parentId = p.requestedIn.sessionId;
      info.parentEntryId = p.requestedIn.messageUuid;
    }
    if (p.warnings.length) info.meta = { ...(info.meta ?? {}), warnings: p.warnings };
    return info;
  }

  /**
   * One streaming read per file. Listing keeps only each file's info and entry ids (for `summary`
   * records that name a leaf in another file), not the transcripts, so memory stays bounded.
   */
  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const out: { info: SessionInfo; ids: string[]; titled: boolean; firstPrompt?: string }[] = [];
    const summaryByLeaf = new Map<string, string>();
    for (const f of await findSessionFiles(this.env)) {
      this.fileById.set(f.id, f);
      try {
        const hit = this.parsedByPath.get(f.path);
        const p = hit ? await this.parse(f) : await parseTranscript(f.path, { subagent: f.kind !== 'session' });
        for (const s of p.summaries) if (s.leafUuid) summaryByLeaf.set(s.leafUuid, s.summary);
        out.push({
          info: await this.info(f, p),
          ids: p.entries.map((e) => e.id),
          titled: Boolean(p.customTitle ?? p.summaryTitle),
          firstPrompt: p.firstPrompt,
        });
      } catch (err) {
        // A file that vanished is left out; one that cannot be read still lists, with a warning.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        const info: SessionInfo = {
          id: f.id,
          source: 'claude',
          createdAt: new Date(0).toISOString(),
          updatedAt: new Date(0).toISOString(),
          messageCount: 0,
          path: f.path,
          meta: { warnings: [{ file: f.path, message: (err as Error).message }] },
        };
        out.push({ info, ids: [], titled: false });
      }
    }
    // A `summary` record may sit in another session's file; it names the leaf it summarises.
    if (summaryByLeaf.size) {
      for (const o of out) {
        if (o.titled) continue;
        const leaf = o.ids.find((id) => summaryByLeaf.has(id));
        if (leaf) o.info.title = summaryByLeaf.get(leaf);
      }
    }
    // SessionFilter.text matches the title or the first prompt (a titled session's prompt too).
    const { text, ...rest } = filter;
    const needle = text?.toLowerCase();
    const matching = needle
      ? out.filter((o) => [o.info.title, o.firstPrompt].some((x) => x?.toLowerCase().includes(needle)))
      : out;
    return applyFilter(
      matching.map((o) => o.info),
      rest,
    );
  }

  /** For `threadbase sync`: every transcript file with its size and mtime, without reading it. */
  async listUnits(): Promise<SourceUnit[]> {
    return fileUnits(
      await findSessionFiles(this.env),
      (f) => f.path,
      (f, st) => {
        this.fileById.set(f.id, f);
        return { key: f.path, sessionId: f.id, path: f.path, size: st.size, mtimeMs: st.mtimeMs, appendOnly: true };
      },
    );
  }

  /**
   * For `threadbase sync`: one file read whole, or with `from` only what was added since, re-parsed
   * from the last user prompt before from.offset (so parallel tool results and compaction summaries
   * that straddle the old end link as a whole read links them). Not kept in the parse cache, so a
   * long sync stays small.
   */
  async readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined> {
    try {
      const state = from ? readState(from.state) : undefined;
      const file = state?.safe && unit.path ? await this.fileOf(unit.sessionId) : undefined;
      if (state?.safe && file && file.path === unit.path && file.kind === 'session') {
        const p = await parseTranscript(file.path, {
          start: state.safe.offset,
          startLine: state.safe.line,
          latestTimestamp: state.safe.latestTimestamp,
          nonRowsBefore: state.nonRows === true,
        });
        const leaf = leafAfter(state, p);
        const titled = summaryTitleAfter(state, p);
        // a leaf or title that depends on records before the part re-read: read the file whole
        if (!leaf || !titled) return await this.readUnit(unit);
        p.leafId = leaf.leaf;
        if (titled.summaryTitle !== undefined) p.summaryTitle = titled.summaryTitle;
        else delete p.summaryTitle;
        const merged = mergeState(state, p);
        const info = await this.info(file, merged);
        const { meta, ...rest } = info;
        const session: Session = { ...rest, entries: p.entries, leafId: p.leafId ?? null, warnings: p.warnings };
        if (meta) {
          const { warnings: _w, ...others } = meta;
          if (Object.keys(others).length) session.meta = others;
        }
        return {
          session,
          appended: true,
          replaces: state.safe.count,
          offset: p.end.offset,
          fromLine: state.safe.line,
          state: stateOf(merged, leaf, titled.aiTitled),
        };
      }
      const session = await this.getSession(unit.sessionId);
      if (!session) return undefined;
      const parsed = unit.path ? this.parsedByPath.get(unit.path)?.parsed : undefined;
      return parsed
        ? {
            session,
            offset: parsed.end.offset,
            state: stateOf(parsed, leafOfWhole(parsed), parsed.aiTitle !== undefined),
          }
        : { session };
    } finally {
      if (unit.path) this.parsedByPath.delete(unit.path);
    }
  }

  private async fileOf(id: string): Promise<SessionFile | undefined> {
    const known = this.fileById.get(id);
    if (known && (await fs.stat(known.path).catch(() => undefined))) return known;
    const found = await locateSessionFile(this.env, id);
    if (found) this.fileById.set(id, found);
    return found;
  }

  async getSession(id: string): Promise<Session | undefined> {
    const file = await this.fileOf(id);
    if (!file) return undefined;
    const p = await this.parse(file);
    // a session read twice in one process (`context`: opened, then its context) is summed up once
    const cached = file.kind === 'session' ? this.sessionInfoOf.get(p) : undefined;
    const info = cached ?? (await this.info(file, p));
    if (file.kind === 'session') this.sessionInfoOf.set(p, info);
    const session: Session = { ...info, entries: p.entries, leafId: p.leafId ?? null, warnings: p.warnings };
    if (info.meta?.warnings) {
      const { warnings: _w, ...rest } = info.meta;
      session.meta = Object.keys(rest).length ? rest : undefined;
      if (!session.meta) delete session.meta;
    }
    if (file.kind !== 'session' && info.parentId && !info.parentToolCallId) {
      const call = await this.spawningCall(info.parentId, id);
      if (call) session.parentToolCallId = call;
    }
    const todos = await this.todos(id);
    if (todos.length) session.meta = { ...(session.meta ?? {}), todos };
    return session;
  }

  /** Without a `.meta.json`: the parent's tool result whose `toolUseResult.agentId` names this sub-agent. */
  private async spawningCall(parentId: string, agentId: string): Promise<string | undefined> {
    const file = await this.fileOf(parentId);
    if (!file) return undefined;
    for (const e of (await this.parse(file)).entries) {
      if (e.kind !== 'message' || !isRecord(e.raw)) continue;
      const r = e.raw.toolUseResult;
      if (isRecord(r) && r.agentId === agentId) {
        const part = e.message.parts.find((x) => x.type === 'tool_result');
        if (part?.type === 'tool_result') return part.callId;
      }
    }
    return undefined;
  }

  /** `todos/<sessionId>-agent-<agentId>.json` files of this session. */
  private async todos(id: string): Promise<{ agentId: string; items: unknown }[]> {
    const dir = join(this.dir, 'todos');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const out: { agentId: string; items: unknown }[] = [];
    for (const n of names) {
      if (!n.startsWith(`${id}-agent-`) || !n.endsWith('.json')) continue;
      try {
        out.push({ agentId: n.slice(id.length + 7, -5), items: parseJson(await fs.readFile(join(dir, n), 'utf8')) });
      } catch {
        // an unreadable todo file is not part of the conversation; skip it
      }
    }
    return out;
  }

  override async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    const file = await this.fileOf(sessionId);
    if (!file) return undefined;
    return (await this.parse(file)).entries.find((e) => e.id === entryId);
  }

  protected override contextOptions(_session: Session): ContextOptions {
    return CLAUDE_CONTEXT_OPTIONS;
  }

  private sessionPath(cwd: string, id: string): string {
    return join(projectsDir(this.env), encodeProjectPath(cwd), `${id}.jsonl`);
  }

  private async freshId(wanted: string | undefined): Promise<string> {
    if (wanted && /^[0-9a-f-]{36}$/i.test(wanted) && !(await locateSessionFile(this.env, wanted))) return wanted;
    return randomUUID();
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const id = await this.freshId(opts.keepId ? session.id : undefined);
    const cwd = session.project ?? this.env.home;
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeSession, markWritten } = await import('./encode.js');
    const { records, warnings } = encodeSession(session, { sessionId: id, cwd });
    markWritten(records);
    const path = this.sessionPath(cwd, id);
    await writeFileAtomic(path, toJsonl(records), { exclusive: true });
    this.writtenHere.add(path);
    const info = await this.info(
      { id, path, projectDir: join(path, '..'), kind: 'session' },
      await this.parse({ id, path, projectDir: '', kind: 'session' }),
    );
    this.fileById.set(id, { id, path, projectDir: join(path, '..'), kind: 'session' });
    if (warnings.length) info.meta = { ...(info.meta ?? {}), warnings };
    return info;
  }

  /**
   * A sub-agent transcript under `parent` (a session or sub-agent written here), as Claude Code keeps
   * one (children.ts), its meta naming the parent's call by the id Claude Code sends.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const file = await this.fileOf(parent.id);
    if (!file) throw new NotFoundError('claude session', parent.id);
    const p = await this.parse(file);
    const call = p.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((x): x is ToolCallPart => x.type === 'tool_call' && x.id === child.parentToolCallId);
    const main = file.kind === 'session' ? file.id : (file.parentSessionId ?? p.sessionIdInFile ?? file.id);
    const depth = file.kind === 'session' ? 1 : (await this.subagentDepth(file)) + 1;
    const toolUseId = call ? (typeof call.meta?.claudeId === 'string' ? call.meta.claudeId : call.id) : undefined;
    const { agentId, path, warnings } = await writeSubagentTranscript(child, {
      dir: join(file.projectDir, main, 'subagents'),
      mainSessionId: main,
      cwd: p.cwd ?? child.project ?? this.env.home,
      ...(toolUseId !== undefined ? { toolUseId } : {}),
      spawnDepth: depth,
    });
    this.writtenHere.add(path);
    // a copied Claude Code parent names the original agent id in the call's result: the copy's now
    if (toolUseId !== undefined && child.source === 'claude' && this.writtenHere.has(file.path))
      if (await relinkAgentId(file.path, toolUseId, child.id, agentId)) this.parsedByPath.delete(file.path);
    const metaPath = join(path, '..', `agent-${agentId}.meta.json`);
    const sf: SessionFile = { id: agentId, path, projectDir: file.projectDir, parentSessionId: main, metaPath, kind: 'subagent' };
    this.fileById.set(agentId, sf);
    const info = await this.info(sf, await this.parse(sf));
    if (call) info.parentToolCallId = call.id;
    if (warnings.length) info.meta = { ...(info.meta ?? {}), warnings };
    return info;
  }

  private async subagentDepth(file: SessionFile): Promise<number> {
    if (!file.metaPath) return 1;
    let meta: unknown;
    try {
      meta = parseJson(await fs.readFile(file.metaPath, 'utf8'));
    } catch {
      return 1;
    }
    return isRecord(meta) && typeof meta.spawnDepth === 'number' ? meta.spawnDepth : 1;
  }

  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    const file = await this.fileOf(sessionId);
    if (!file) throw new NotFoundError('claude session', sessionId);
    const p = await this.parse(file);
    // An entry without a parent continues the current leaf; after a rewind to empty (no leaf) it starts
    // a new root, as Claude Code's next prompt does there.
    const leaf = p.leafId === EMPTY_LEAF ? null : (p.leafId ?? null);
    const linked = entries.map((e, i) =>
      e.parentId === null ? { ...e, parentId: i === 0 ? leaf : (entries[i - 1]?.id ?? leaf) } : e,
    );
    // appended calls stay apart from the transcript's own
    const { encodeSession, holdToolIds } = await import('./encode.js');
    const toolIds = new AnthropicToolIds();
    for (const e of p.entries) if (e.kind === 'message') holdToolIds(toolIds, e.message);
    const { records } = encodeSession(
      { id: sessionId, source: 'claude', createdAt: '', updatedAt: '', messageCount: 0, entries: linked },
      {
        sessionId: file.kind === 'session' ? sessionId : (p.sessionIdInFile ?? sessionId),
        cwd: p.cwd ?? this.env.home,
        toolIds,
      },
    );
    const leafRecord = records.findLast((r) => typeof r.uuid === 'string' && r.isSidechain !== true);
    if (leafRecord) {
      // Claude Code resumes on the last `last-prompt`'s leaf (or a record under it), so the appended
      // records, on a branch or not, end with one naming their last, in 2.1.332's shape.
      const prompt = records.findLast((r) => r.type === 'user' && r.isSidechain !== true && promptText(r) !== undefined);
      records.push({
        type: 'last-prompt',
        ...(prompt ? { lastPrompt: promptText(prompt) } : {}),
        leafUuid: leafRecord.uuid,
        sessionId: leafRecord.sessionId,
      });
    }
    await appendJsonlLines(file.path, records);
  }

  /** Like Claude Code's `--fork-session`: a new file holding the history up to `at`, same uuids, new session id. */
  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.requireSession(sessionId);
    let path: Entry[];
    try {
      path = pathToLeaf(s, opts.at);
    } catch {
      throw new NotFoundError('entry', opts.at ?? '', { file: s.path });
    }
    const at = path[path.length - 1];
    if (!at) throw new ThreadbaseError('empty', 'nothing to fork: the session has no entries', { file: s.path, id: sessionId });
    const id = randomUUID();
    const cwd = s.project ?? this.env.home;
    const { encodeSession } = await import('./encode.js');
    const { records } = encodeSession(
      { ...s, entries: path, leafId: at.id },
      { sessionId: id, cwd, forkedFrom: { sessionId, messageUuid: at.id } },
    );
    const file = this.sessionPath(cwd, id);
    await writeFileAtomic(file, toJsonl(records), { exclusive: true });
    const sf: SessionFile = { id, path: file, projectDir: join(file, '..'), kind: 'session' };
    this.fileById.set(id, sf);
    const info = await this.info(sf, await this.parse(sf));
    if (opts.title) info.title = opts.title;
    return info;
  }

  resumeCommand(session: SessionInfo): string {
    return resumeCommandLine(session.project, {}, `claude --resume ${shellQuote(session.id)}`);
  }
}

/** What a read from an offset needs of the earlier part of a transcript (kept by the index between syncs). */
interface TranscriptState {
  /** where the next read starts (a user prompt line), the entries from it on, and the latest time before it */
  /** orphan: the record there hangs on no row of the file (parse.ts bridgeMissingParents) */
  safe?: { offset: number; line: number; count: number; latestTimestamp?: string; orphan?: boolean };
  /** a record of a type Claude Code keeps no row of was read (parse.ts ParsedTranscript.nonRows) */
  nonRows?: boolean;
  customTitle?: string;
  summaryTitle?: string;
  firstPrompt?: string;
  cwd?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  sessionIdInFile?: string;
  version?: string;
  agentId?: string;
  forkedFrom?: { sessionId?: string; messageUuid?: string };
  requestedIn?: { sessionId: string; messageUuid: string };
  /** the first record's mark, which a read from an offset past it does not see */
  writtenBy?: 'threadbase';
  /** the current leaf as the whole file gives it (parse.ts claudeLeaf), for the next read from an offset */
  leaf?: LeafState;
  /** summaryTitle is an `ai-title`'s (a `summary` record's otherwise), which no `summary` replaces */
  aiTitled?: boolean;
}

/**
 * The summary title a whole read gives (parse.ts: the last `ai-title`, else the last `summary` whose
 * leaf is in the file), from a read of the part from `state.safe` on; undefined when that part cannot
 * tell (a `summary` in it naming a record before it, or in no part of the file: read the file whole).
 */
function summaryTitleAfter(
  state: TranscriptState,
  p: ParsedTranscript,
): { summaryTitle?: string; aiTitled: boolean } | undefined {
  if (p.aiTitle !== undefined) return { summaryTitle: p.aiTitle, aiTitled: true };
  const kept = { ...(state.summaryTitle !== undefined ? { summaryTitle: state.summaryTitle } : {}) };
  if (state.aiTitled) return { ...kept, aiTitled: true };
  const ids = recordIds(p.entries);
  if (p.summaries.some((x) => x.leafUuid && !ids.has(x.leafUuid))) return undefined;
  const last = p.summaries[p.summaries.length - 1];
  return last ? { summaryTitle: last.summary, aiTitled: false } : { ...kept, aiTitled: false };
}

/**
 * The leaf of the file read so far and what a later part's leaf needs of the records before it
 * (parse.ts claudeLeaf): the checkpoint a `last-prompt` left (`checkpointInFile` when it is a row of
 * the file), and whether any `last-prompt` had a leafUuid field.
 */
interface LeafState {
  leaf?: string;
  checkpoint?: string;
  checkpointInFile?: boolean;
  prompted?: boolean;
  /** a compaction that kept a segment made the ends of the chains decide (parse.ts afterPreserved) */
  byEnds?: boolean;
  /** a compact boundary in the file names a segment it kept */
  segmentKept?: boolean;
}

/** The records' own ids (not a file-level record's `type@line`). */
function recordIds(entries: readonly Entry[]): Set<string> {
  return new Set(entries.flatMap((e) => (e.id.includes('@') ? [] : [e.id])));
}

function leafOfWhole(p: ParsedTranscript): LeafState {
  const facts = p.leafFacts;
  const out: LeafState = {};
  if (p.leafId) out.leaf = p.leafId;
  if (facts.checkpoint !== undefined) {
    out.checkpoint = facts.checkpoint;
    if (recordIds(p.entries).has(facts.checkpoint)) out.checkpointInFile = true;
  }
  if (facts.prompted) out.prompted = true;
  if (facts.byEnds) out.byEnds = true;
  if (facts.segmentKept) out.segmentKept = true;
  return out;
}

/**
 * The leaf a whole read gives, from a read of the part from `state.safe` on (`p`, whose own leaf
 * knows only that part, which starts with a main-chain row); undefined when that part cannot tell
 * (the file must be read whole):
 * - a rewind to empty in the part with no row after it: none (EMPTY_LEAF);
 * - `file_snapshot` rows after the part's last row: whole (the newest chain end of the file counts);
 * - a compact boundary in the part naming a segment it kept: the part's leaf when the part holds the
 *   segment, else whole (so too a boundary after such a one before the part);
 * - after such a compaction (the ends of the chains decide), a checkpoint the part sets that is the
 *   leaf there (the last row not under it): whole;
 * - a checkpoint the part set naming a record of it: the part's leaf; naming an earlier one: whole;
 * - the checkpoint from before the part: not in the file, the last row (a checkpoint means a
 *   `last-prompt` with a leafUuid); named before it was written, whole; else the last row when it
 *   descends from the leaf before (which is the checkpoint or under it), else whole;
 * - no checkpoint: the last row, unless no `last-prompt` had a leafUuid and a row hangs under the
 *   last one (the newest of those may count, by the whole file's times): whole.
 */
function leafAfter(state: TranscriptState, p: ParsedTranscript): LeafState | undefined {
  const facts = p.leafFacts;
  const before = state.leaf ?? {};
  const ids = recordIds(p.entries);
  const prompted = before.prompted === true || facts.prompted;
  const last = facts.lastRow;
  if (facts.snapshotsAfter > 0 || !last) return undefined;
  // a row hanging on no row: Claude Code bridges it by time to a row that may be before the part
  if (facts.orphanInPart || state.safe?.orphan) return undefined;
  const segmentKept = before.segmentKept === true || facts.segmentKept === true;
  const withPrompted = (out: LeafState): LeafState => ({
    ...out,
    ...(prompted ? { prompted } : {}),
    ...(before.byEnds || facts.byEnds ? { byEnds: true } : {}),
    ...(segmentKept ? { segmentKept } : {}),
  });
  // a compaction in the part, after or naming a kept segment: Claude Code drops the rows before it but
  // that segment, so the part's own leaf counts when it holds the segment (its walk found it), else whole
  if (facts.compacted && (facts.segmentKept ? !facts.byEnds : before.segmentKept)) return undefined;
  // a rewind to empty in the part with no row after it: no leaf, whatever came before
  if (facts.clearedToEmpty) return withPrompted({ leaf: EMPTY_LEAF });
  if (facts.byEnds) {
    const checkpoint = facts.checkpoint;
    return withPrompted({
      leaf: p.leafId,
      ...(checkpoint !== undefined ? { checkpoint, ...(ids.has(checkpoint) ? { checkpointInFile: true } : {}) } : {}),
    });
  }
  // the ends of the chains decide: a checkpoint the part sets, with the last row not under it, may still
  // lose to it, and a last row whose turn is not an end may lose to another end
  if (before.byEnds && ((facts.checkpointSet && p.leafId !== last) || !facts.lastAtEnd)) return undefined;
  const checkpoint = facts.checkpointSet ? facts.checkpoint : before.checkpoint;
  if (checkpoint === undefined) return !prompted && facts.underLast ? undefined : withPrompted({ leaf: last });
  if (facts.checkpointSet)
    return ids.has(checkpoint) ? withPrompted({ leaf: p.leafId, checkpoint, checkpointInFile: true }) : undefined;
  if (!before.checkpointInFile) return ids.has(checkpoint) ? undefined : withPrompted({ leaf: last, checkpoint });
  if (before.leaf === undefined) return undefined;
  // the part's records by their own parentUuid, as claudeLeaf walks them
  const parentOf = new Map<string, string | null>();
  for (const e of p.entries) {
    if (e.id.includes('@')) continue;
    parentOf.set(e.id, isRecord(e.raw) && typeof e.raw.parentUuid === 'string' ? e.raw.parentUuid : null);
  }
  let at: string | null | undefined = last;
  for (let steps = 0; at && steps <= parentOf.size; steps++) {
    if (at === before.leaf) return withPrompted({ leaf: last, checkpoint, checkpointInFile: true });
    at = parentOf.get(at);
  }
  return undefined;
}

function stateOf(p: ParsedTranscript, leaf: LeafState, aiTitled: boolean): string {
  const { entries, warnings: _w, summaries: _s, leafId: _l, end: _e, leafFacts: _f, aiTitle: _a, safe, ...fields } = p;
  const state: TranscriptState = { ...fields, leaf };
  if (aiTitled) state.aiTitled = true;
  if (safe) {
    state.safe = { offset: safe.offset, line: safe.line, count: entries.length - safe.entryIndex };
    if (safe.latestTimestamp !== undefined) state.safe.latestTimestamp = safe.latestTimestamp;
    if (safe.orphan) state.safe.orphan = true;
  }
  return JSON.stringify(state);
}

function readState(text: string | undefined): TranscriptState | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? (v as TranscriptState) : undefined;
  } catch {
    return undefined;
  }
}

/** The transcript's fields as a whole read would find them: the earlier part's, updated by the part re-read. */
function mergeState(state: TranscriptState, p: ParsedTranscript): ParsedTranscript {
  const merged: ParsedTranscript = { ...p };
  const pick = <K extends keyof TranscriptState & keyof ParsedTranscript>(k: K, later: boolean) => {
    const v = later ? (p[k] ?? state[k]) : (state[k] ?? p[k]);
    if (v !== undefined) (merged as unknown as Record<string, unknown>)[k] = v;
  };
  pick('customTitle', true);
  pick('summaryTitle', true);
  pick('firstPrompt', false);
  pick('cwd', false);
  pick('firstTimestamp', false);
  pick('sessionIdInFile', false);
  pick('version', false);
  pick('agentId', false);
  pick('forkedFrom', true); // the last mark seen is the fork point
  pick('requestedIn', true);
  pick('writtenBy', false);
  if (state.nonRows || p.nonRows) merged.nonRows = true;
  if (state.lastTimestamp && (!p.lastTimestamp || state.lastTimestamp > p.lastTimestamp))
    merged.lastTimestamp = state.lastTimestamp;
  return merged;
}
