/**
 * A uuid written twice in a Claude Code transcript: Claude Code 2.1.332 reads the records into a Map by
 * uuid with Map.set, so only the later record is sent, and as the last main-chain record it is the leaf
 * (the real binary: test/agents/claude-repeated-uuid). threadbase reads the same: the earlier record is
 * left out with a warning naming both lines, also in a read of only the part from the last prompt on.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { parseTranscript } from '../../src/formats/claude/parse.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext, messageText } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';

const SESSION = '7a2c9e10-3b4d-4f5e-8a6b-7c8d9e0f1a2b';
type Rec = Record<string, unknown>;
const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
const user = (uuid: string, parentUuid: string | null, text: string, second: number): Rec => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: at(second),
  message: { role: 'user', content: text },
});
const reply = (uuid: string, parentUuid: string, text: string, second: number): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: at(second),
  message: { role: 'assistant', id: `msg_${uuid}`, model: 'claude-opus-5-5', content: [{ type: 'text', text }] },
});

/** u1 a1 X(second bravo) a2, then X again (second charlie, under a1): the test/agents/claude-repeated-uuid transcript. */
const first = [
  user('u1', null, 'first alpha', 1),
  reply('a1', 'u1', 'reply alpha', 2),
  user('X', 'a1', 'second bravo', 3),
  reply('a2', 'X', 'reply bravo', 4),
];
const again = user('X', 'a1', 'second charlie', 5);

let env: DriverEnv;
let file: string;
beforeEach(async () => {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-claude-dup-'));
  env = { home, env: { HOME: home } };
  const dir = join(home, '.claude', 'projects', encodeProjectPath('/work/dup'));
  await fs.mkdir(dir, { recursive: true });
  file = join(dir, `${SESSION}.jsonl`);
});
afterEach(async () => {
  await fs.rm(env.home, { recursive: true, force: true });
});

const write = (records: Rec[]) => fs.writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
const shape = (entries: readonly Entry[]) =>
  entries.map((e) => [e.id, e.parentId, e.kind === 'message' ? messageText(e.message) : e.kind]);

it('keeps the later record of a repeated uuid, as Claude Code does: the leaf, and the context it sends', async () => {
  await write([...first, again]);
  const parsed = await parseTranscript(file);
  expect(shape(parsed.entries)).toEqual([
    ['u1', null, 'first alpha'],
    ['a1', 'u1', 'reply alpha'],
    ['a2', 'X', 'reply bravo'],
    ['X', 'a1', 'second charlie'],
  ]);
  expect(parsed.leafId).toBe('X');
  expect(parsed.warnings.map((w) => `${basename(w.file)}:${w.line} ${w.message}`)).toEqual([
    `${SESSION}.jsonl:3 duplicate uuid X: line 5 has it again and Claude Code keeps only that later record; this one left out`,
  ]);
  const session = (await new ClaudeDriver(env).getSession(SESSION)) as Session;
  expect(buildContext(session).messages.map(messageText)).toEqual(['first alpha', 'reply alpha', 'second charlie']);
});

it('a read from the last prompt on gives what the whole read gives, the entries it replaces counted without the one left out', async () => {
  await write([...first, again, reply('a3', 'X', 'reply charlie', 6), user('u4', 'a3', 'third delta', 7)]);
  const whole = await parseTranscript(file);
  expect(shape(whole.entries).map((e) => e[0])).toEqual(['u1', 'a1', 'a2', 'X', 'a3', 'u4']);
  expect(whole.firstPrompt).toBe('first alpha');
  // the last prompt is u4: the part from it replaces the one entry from it on
  const safe = whole.safe;
  if (!safe) throw new Error('no safe point');
  expect(whole.entries.length - safe.entryIndex).toBe(1);

  // synced after a2, the safe point is X's first line: the part from it holds both records of X
  await write(first);
  const before = await parseTranscript(file);
  const from = before.safe;
  if (!from) throw new Error('no safe point');
  await write([...first, again]);
  const part = await parseTranscript(file, { start: from.offset, startLine: from.line });
  const stored = before.entries.slice(0, from.entryIndex);
  expect(shape([...stored, ...part.entries])).toEqual(shape((await parseTranscript(file)).entries));
  expect(part.leafId).toBe('X');
});

it('the first prompt is taken from the records kept', async () => {
  await write([user('u1', null, 'first alpha', 1), reply('a1', 'u1', 'reply alpha', 2), user('u1', null, 'first again', 3)]);
  const parsed = await parseTranscript(file);
  expect(parsed.firstPrompt).toBe('first again');
  expect(parsed.leafId).toBe('u1');
});

it('the later record older than a reply hung under the earlier one: that reply is the leaf, under the later record', async () => {
  // no last-prompt, and a2 (second 8) is newer than the later X (second 5): Claude Code resumes from the
  // newest record under the last row (test/agents/claude-repeated-uuid)
  await write([...first.slice(0, 3), reply('a2', 'X', 'reply bravo', 8), again]);
  const parsed = await parseTranscript(file);
  expect(parsed.leafId).toBe('a2');
  const session = (await new ClaudeDriver(env).getSession(SESSION)) as Session;
  expect(buildContext(session).messages.map(messageText)).toEqual([
    'first alpha',
    'reply alpha',
    'second charlie',
    'reply bravo',
  ]);
  // a last-prompt (any leafUuid field) makes the last row the leaf again
  await write([
    ...first.slice(0, 3),
    reply('a2', 'X', 'reply bravo', 8),
    again,
    { type: 'last-prompt', leafUuid: null, sessionId: SESSION },
  ]);
  expect((await parseTranscript(file)).leafId).toBe('X');
});
