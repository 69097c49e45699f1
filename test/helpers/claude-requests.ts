/** Messages API requests as the Claude Code tests compare them: the conversation, without what Claude Code adds per request. */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

export type Block = Record<string, unknown> & { type: string };
export interface Msg {
  role: string;
  content: string | Block[];
}

/**
 * The conversation of a request with Claude Code's request-time additions taken out. Each rule is
 * something Claude Code adds when it builds a request, not something in the conversation:
 * - role 'system' messages: 2.1.3xx renders its `attachment` records (environment, model identity,
 *   deferred-tool / agent / skill listings) and per-turn settings (`output_config`) as system-role
 *   messages placed at request time;
 * - text blocks that start with `<system-reminder>`: the date and commit-attribution reminders it
 *   prepends to a user turn, and background-task notifications, which it wraps in a reminder
 *   (threadbase wraps them the same way; both sides drop them here);
 * - `cache_control` markers on blocks (prompt-caching hints, moved on every request);
 * - string content is the same as one text block (it sends the latest turn one way, older ones the other).
 * Empty messages left behind are dropped and neighbours of one role joined, as the API does.
 */
export function conversation(messages: readonly Msg[]): { role: string; content: Block[] }[] {
  const out: { role: string; content: Block[] }[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const blocks = (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)
      .filter((b) => !(b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>')))
      .map(({ cache_control: _c, ...rest }) => rest as Block);
    if (blocks.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) prev.content.push(...blocks);
    else out.push({ role: m.role, content: blocks });
  }
  return out;
}

/**
 * One comparable shape for a request's or a context's messages (the conversion tests compare what an
 * agent sent with our context): conversation() (request-time additions, cache markers), plus what the
 * Messages API treats as the same: a tool_result's string content is one text block, `is_error: false`
 * is none, trailing whitespace of a text (Claude Code joins user records with a newline) and empty
 * texts go. The probe, the last user text, is taken out.
 */
export function comparable(messages: readonly Msg[], probe?: string): { role: string; content: Block[] }[] {
  const block = (b: Block): Block | undefined => {
    if (b.type === 'text') {
      const text = String(b.text ?? '').trimEnd();
      return text === '' || text === probe ? undefined : { ...b, text };
    }
    if (b.type === 'tool_result') {
      const content =
        typeof b.content === 'string' ? [{ type: 'text', text: b.content } as Block] : ((b.content ?? []) as Block[]);
      const { is_error, ...rest } = b;
      return { ...rest, content: content.flatMap((c) => block(c) ?? []), ...(is_error === true ? { is_error } : {}) };
    }
    return b;
  };
  const out: { role: string; content: Block[] }[] = [];
  for (const m of conversation(messages)) {
    const content = m.content.flatMap((b) => block(b) ?? []);
    if (content.length === 0) continue;
    const prev = out.at(-1);
    if (prev?.role === m.role) prev.content.push(...content);
    else out.push({ role: m.role, content });
  }
  return out;
}

/**
 * A recorded fixture (test/fixtures/claude/<name>: transcript.jsonl and request.json, the request
 * Claude Code sent resuming it with the prompt "probe") put into `home` as a session of project
 * `-tmp-cc-<name>`, under its own id. Returns the id, the file and the recorded conversation
 * without the probe (checked to be the last message).
 */
export async function installRecordedTranscript(
  home: string,
  name: string,
): Promise<{ id: string; file: string; theirs: { role: string; content: Block[] }[] }> {
  const dir = resolve('test/fixtures/claude', name);
  const golden = JSON.parse(await fs.readFile(join(dir, 'request.json'), 'utf8')) as { sessionId: string; messages: Msg[] };
  const project = join(home, '.claude', 'projects', `-tmp-cc-${name}`);
  await fs.mkdir(project, { recursive: true });
  const file = join(project, `${golden.sessionId}.jsonl`);
  await fs.copyFile(join(dir, 'transcript.jsonl'), file);
  const theirs = conversation(golden.messages);
  expect(theirs.pop()).toEqual({ role: 'user', content: [{ type: 'text', text: 'probe' }] });
  return { id: golden.sessionId, file, theirs };
}

/**
 * Messages in the shape the Messages API treats alike: cache_control markers dropped, a string content
 * or a tool_result's string content as one text block, `is_error: false` as none, consecutive messages
 * of one role as one (the API joins them).
 */
export function wireMessages(messages: readonly { role: string; content: unknown }[]): { role: string; content: Block[] }[] {
  const out: { role: string; content: Block[] }[] = [];
  for (const m of messages) {
    const blocks = (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[])).map((b) => {
      const { cache_control: _c, ...rest } = b;
      if (rest.type === 'tool_result') {
        if (typeof rest.content === 'string') rest.content = [{ type: 'text', text: rest.content }];
        if (rest.is_error === false) delete rest.is_error;
      }
      return rest;
    });
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) prev.content.push(...blocks);
    else out.push({ role: m.role, content: blocks });
  }
  return out;
}
