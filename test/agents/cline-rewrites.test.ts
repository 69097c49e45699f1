/**
 * What the real cline 3.0.65 sends of a session beyond its messages, part two:
 * - two files read eleven times in turn: the nine earlier results replaced by `[outdated - see the latest file content]`
 *   (they save over 64 KiB, each counted as the ~8 KB Cline sends of it): `threadbase context` of the
 *   session is what Cline sends when it resumes it. (The run's own last request had 8: its builder
 *   commits rewrites as they come, and the last outdated read alone saves too little. A resumed Cline
 *   starts a fresh builder, which threadbase models.)
 * - a stored error result whose content is blocks goes to the model as their JSON text: the context of
 *   such a session is what Cline sends when it resumes it.
 * - a reply of only redacted or unsigned thinking (Cline's own, or redacted in a copy) goes as an assistant
 *   message with no content, one merged with a text of its turn as that text; another agent's reply of unsigned
 *   thinking only, which threadbase writes as text, goes as that text: the context says the same.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Message } from '../../src/model/types.js';
import type { AnthropicMessage, AnthropicRequest } from '../helpers/anthropic-standin.js';
import { conversationOf, textOf } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import {
  type ClineHome,
  messageItems as items,
  resumeCline,
  resumedRequest,
  runCline,
  setupClineHome,
} from '../helpers/cline.js';
import { newestSession, withDriver } from '../helpers/conversions.js';
import { chainSession } from '../helpers/sessions.js';

const OUTDATED = '[outdated - see the latest file content]';
let home: ClineHome;

/** How many tool results a request holds. */
const resultCount = (req: AnthropicRequest): number =>
  req.messages.reduce((n, m) => n + (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result').length : 0), 0);

beforeAll(async () => {
  home = await setupClineHome({
    rules: [
      (req) => {
        // "READ <n>: <file> <file>…": n reads, one call a turn, the files in turn (Cline stops a run
        // making one call again and again), then an answer
        const last = req.messages.at(-1);
        const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
        const prompt = req.messages.find((m) => m.role === 'user' && /^READ \d+:/.test(textOf(m).trim()));
        const m = prompt ? /^READ (\d+): (.+)$/.exec(textOf(prompt).trim()) : null;
        if (!m || (!answered && last !== prompt)) return undefined;
        const count = resultCount(req);
        if (count >= Number(m[1])) return { text: 'read it' };
        const files = (m[2] as string).split(' ');
        return { toolUse: { name: 'read_files', input: { path: files[count % files.length] } } };
      },
    ],
  });
  const lines = Array.from({ length: 2000 }, (_, i) => `line ${i + 1} of the big file`);
  await fs.writeFile(join(home.project, 'big.txt'), `${lines.join('\n')}\n`);
  await fs.writeFile(join(home.project, 'other.txt'), `${lines.join('\n').replaceAll('big', 'other')}\n`);
});
afterAll(async () => {
  await home?.close();
});

const contextItems = async (id: string): Promise<string[]> =>
  (
    JSON.parse(await runCliOk(home.env, ['context', id, '--format', 'anthropic'])) as { messages: AnthropicMessage[] }
  ).messages.flatMap(items);

describe('a session that read two files eleven times in turn', () => {
  it('has as context what Cline sends on resume, the nine earlier reads replaced by its outdated note', async () => {
    // 6 reads of big.txt and 5 of other.txt: 9 outdated of ~8 KB each, over 64 KiB (8 are not)
    await runCline(home, ['READ 11: big.txt other.txt']);
    const info = await newestSession(home, 'cline');
    const ctx = await contextItems(info.id);
    await resumeCline(home, info.id, 'probe outdated');
    const sent = resumedRequest(home, 'probe outdated').messages.flatMap(items);
    const results = sent.filter((s) => s.startsWith('result:'));
    expect(results).toHaveLength(11);
    expect(results.filter((r) => r.includes(OUTDATED))).toHaveLength(9);
    expect(results.at(-1)).toMatch(/\.\.\.\[truncated \d+ chars\]\.\.\./);
    expect(ctx).toEqual(sent);
  }, 180_000);
});

describe('a session with an error result whose content is blocks', () => {
  it('has as context what Cline sends on resume, the blocks as their JSON text', async () => {
    await runCline(home, ['READ 1: big.txt']);
    const info = await newestSession(home, 'cline');
    // the result made a failed one of content blocks (as another host or an MCP tool may store it)
    const file = join(home.data, 'sessions', info.id, `${info.id}.messages.json`);
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { messages: { content: Record<string, unknown>[] | string }[] };
    const blocks = [
      { type: 'text', text: 'the read failed' },
      { type: 'text', text: 'permission denied' },
    ];
    let changed = 0;
    for (const m of doc.messages)
      if (Array.isArray(m.content))
        m.content = m.content.map((b) => (b.type === 'tool_result' && ++changed ? { ...b, is_error: true, content: blocks } : b));
    expect(changed).toBe(1);
    await fs.writeFile(file, JSON.stringify(doc));

    const ctx = await contextItems(info.id);
    await resumeCline(home, info.id, 'probe error blocks');
    const sent = resumedRequest(home, 'probe error blocks').messages.flatMap(items);
    const result = sent.find((item) => item.startsWith('result:'));
    expect(result?.replace(/^result:toolu_standin_\d+:/, '')).toBe(JSON.stringify(blocks));
    expect(ctx).toEqual(sent);
  }, 180_000);
});

describe('a session with replies of only thinking Cline does not send', () => {
  it('has as context what Cline sends on resume: such a turn with no content, a copy’s unsigned one as text', async () => {
    const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
    const reply = (parts: Message['parts']): Message => ({ role: 'assistant', model: 'claude-sonnet-4-5', parts });
    const copy = chainSession('thinking-only', 'claude', home.project, [
      ['u1', user('q1')],
      ['a1', reply([{ type: 'thinking', thinking: 'an unsigned thought' }])],
      ['u2', user('q2')],
      ['a2', reply([{ type: 'redacted_thinking', data: 'ENCRYPTED' }])],
      ['u3', user('q3')],
      ['a3', reply([{ type: 'thinking', thinking: 'before a text' }])],
      ['a3b', reply([{ type: 'text', text: 'after the thinking' }])],
    ]);
    const id = (await withDriver(home.env, 'cline', async (d) => d.writeSession?.(copy)))?.id as string;
    // and Cline's own record of a reply of unsigned thinking only (as another provider's reasoning is kept)
    const file = join(home.data, 'sessions', id, `${id}.messages.json`);
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { messages: Record<string, unknown>[] };
    doc.messages.push(
      { id: 'u-own', role: 'user', content: [{ type: 'text', text: 'q4' }], ts: Date.now() },
      { id: 'msg_own', role: 'assistant', content: [{ type: 'thinking', thinking: 'its own unsigned thought' }], ts: Date.now() },
    );
    await fs.writeFile(file, JSON.stringify(doc));

    const ctx = JSON.parse(await runCliOk(home.env, ['context', id, '--format', 'anthropic'])) as {
      messages: AnthropicMessage[];
    };
    await resumeCline(home, id, 'probe thinking only');
    const sent = conversationOf(resumedRequest(home, 'probe thinking only').messages);
    expect(sent).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q1' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'an unsigned thought' }] },
      { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: 'q3' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'after the thinking' }] },
      { role: 'user', content: [{ type: 'text', text: 'q4' }] },
      { role: 'assistant', content: [] },
    ]);
    expect(conversationOf(ctx.messages)).toEqual(sent);
  }, 180_000);
});
