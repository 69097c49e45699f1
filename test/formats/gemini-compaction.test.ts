/**
 * A compacted session written into Gemini CLI (the summary first in a `$set.messages`, as Gemini CLI's own
 * compression) reads back with the conversation before the compaction still on the path to it and the
 * messages it kept where they were: carried on (back into Claude Code, say), nothing before it is lost.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext, pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (s: number) => new Date(Date.UTC(2025, 4, 1, 10, 0, s)).toISOString();
const usage = (input: number) => ({ input, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 });

function compacted(project: string): Session {
  const entries: Entry[] = [
    messageEntry('u0', null, t(1), textMessage('user', 'zeroth')),
    messageEntry('a0', 'u0', t(2), textMessage('assistant', 'nil', { usage: usage(10), responseId: 'r0' })),
    messageEntry('u1', 'a0', t(3), textMessage('user', 'first')),
    messageEntry('a1', 'u1', t(4), textMessage('assistant', 'one', { usage: usage(20), responseId: 'r1' })),
    { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(5), summary: 'we said zeroth and first', firstKeptEntryId: 'u1' },
    messageEntry('u2', 'c', t(6), textMessage('user', 'second')),
    messageEntry('a2', 'u2', t(7), textMessage('assistant', 'two', { usage: usage(30), responseId: 'r2' })),
  ];
  return { id: 's', source: 'pi', project, createdAt: t(1), updatedAt: t(7), messageCount: 6, entries };
}

const sent = (s: Session) =>
  buildContext(s).messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(' '));

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-compaction-'));
  await fs.mkdir(join(root, 'project'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('gemini: a compaction threadbase wrote, read back', () => {
  it('keeps the conversation before it on the path, its kept messages before it, and the same context and totals', async () => {
    const source = compacted(join(root, 'project'));
    const driver = new GeminiDriver(env);
    const info = await driver.writeSession(source);
    const back = (await driver.getSession(info.id)) as Session;
    expect(pathToLeaf(back).map((e) => e.id)).toEqual(['u0', 'a0', 'u1', 'a1', 'c', 'u2', 'a2']);
    const c = back.entries.find((e) => e.kind === 'compaction');
    expect(c?.kind === 'compaction' && c.firstKeptEntryId).toBe('u1');
    expect(sent(back)).toEqual(sent(source));
    expect(sent(back)[0]).toContain('we said zeroth and first');
    expect(summarizeUsage(pathToLeaf(back)).usage).toEqual(summarizeUsage(source.entries).usage);
  });

  it('stays so when a resume writes the conversation again and goes on', async () => {
    const driver = new GeminiDriver(env);
    const info = await driver.writeSession(compacted(join(root, 'project')));
    const file = info.path as string;
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    // Gemini CLI 0.61 on resume (test/agents/roundtrip-gemini.test.ts): the loaded conversation written
    // again (a `$set.messages`) after its own fresh session context, then the new turn
    const set = JSON.parse(lines.at(-1) as string) as { $set: { messages: unknown[] } };
    const context = {
      id: 'ctx',
      timestamp: t(8),
      type: 'user',
      content: [{ text: '<session_context>\nhere\n</session_context>' }],
    };
    const next = { id: 'u3', timestamp: t(9), type: 'user', content: [{ text: 'third' }] };
    const again = { $set: { messages: [context, ...set.$set.messages] } };
    // and once more on the next resume, the turn of the first in it
    const thrice = { $set: { messages: [context, ...set.$set.messages, next] } };
    await fs.appendFile(file, `${[again, next, thrice].map((r) => JSON.stringify(r)).join('\n')}\n`);
    const back = (await driver.getSession(info.id)) as Session;
    expect(pathToLeaf(back).map((e) => e.id)).toEqual(['u0', 'a0', 'u1', 'a1', 'ctx', 'c', 'u2', 'a2', 'u3']);
    const c = back.entries.find((e) => e.kind === 'compaction');
    expect(c?.kind === 'compaction' && c.firstKeptEntryId).toBe('u1');
  });

  it('stays so when the resume writes the records back from its history: new times, our fields left out', async () => {
    const driver = new GeminiDriver(env);
    const source = compacted(join(root, 'project'));
    const info = await driver.writeSession(source);
    const file = info.path as string;
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    // what Gemini CLI 0.61 wrote resuming a chat it had also opened for its fresh session (same minute, same id)
    const set = JSON.parse(lines.at(-1) as string) as { $set: { messages: Record<string, unknown>[] } };
    const rewritten = set.$set.messages.map(({ threadbase: _t, ...r }) => ({ ...r, timestamp: t(50) }));
    await fs.appendFile(file, `${JSON.stringify({ $set: { messages: rewritten } })}\n`);
    const back = (await driver.getSession(info.id)) as Session;
    expect(pathToLeaf(back).map((e) => [e.id, e.kind, e.timestamp])).toEqual(
      pathToLeaf(source).map((e) => [e.id, e.kind, e.timestamp]),
    );
    const reply = back.entries.find((e) => e.id === 'a2');
    expect(reply?.kind === 'message' && reply.message.responseId).toBe('r2');
    expect(sent(back)).toEqual(sent(source));
  });
});
