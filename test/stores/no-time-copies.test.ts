/**
 * An entry without a time is no copy of another session's entry with the same id. Codex CLI keeps a
 * rollout line's `timestamp` as written (an empty one stays empty) and numbers the entries of items
 * without an id by their line (L2, L3, ... in every rollout), so two unrelated rollouts with empty
 * times have entries with the same id and time: search showed one session's and hid the other's, and
 * a record without a response id was counted once for both. Memory, a SQLite store (the index's
 * code) and PostgreSQL for real.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Session, Usage } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

/** a Codex CLI rollout whose lines have empty times: a question and an answer about `word` */
const rollout = (id: string, cwd: string, word: string, input: number): string => {
  const tokens = {
    input_tokens: input,
    cached_input_tokens: 0,
    output_tokens: 5,
    reasoning_output_tokens: 0,
    total_tokens: input + 5,
  };
  const lines = [
    { type: 'session_meta', payload: { id, timestamp: '', cwd, originator: 'codex_cli_rs', cli_version: '0.171.0' } },
    {
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `where is the ${word}` }] },
    },
    {
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `the ${word} is here` }] },
    },
    { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: tokens, total_token_usage: tokens } } },
  ];
  return `${lines.map((l) => JSON.stringify({ timestamp: '', ...l })).join('\n')}\n`;
};

const usage = (input: number): Usage => ({ input, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
/** two unrelated sessions whose records (no response id, no time) have the same ids */
const untimed = (id: string, project: string, input: number): Session => ({
  id,
  source: 'claude',
  project,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  messageCount: 2,
  entries: [
    messageEntry('u1', null, '', textMessage('user', 'count the otters')),
    messageEntry('a1', 'u1', '', textMessage('assistant', 'two otters', { model: 'claude-sonnet-4-5', usage: usage(input) })),
  ],
});

let dir: string;
let sessions: Session[];
let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;
const memory = new MemoryStore();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-no-time-'));
  await writeFile(join(dir, 'a.jsonl'), rollout('0199a000-0000-7000-8000-00000000000a', '/walrus/a', 'walrus', 100));
  await writeFile(join(dir, 'b.jsonl'), rollout('0199a000-0000-7000-8000-00000000000b', '/walrus/b', 'walrus', 200));
  const codex = [await readRollout(join(dir, 'a.jsonl')), await readRollout(join(dir, 'b.jsonl'))];
  sessions = [...codex, untimed('otters-a', '/otters/a', 10), untimed('otters-b', '/otters/b', 20)];
  ({ pg, sqlite, close } = await storesHolding('tb_no_time', sessions));
  for (const s of sessions) await memory.writeSession(s, { keepId: true });
}, 60_000);
afterAll(async () => {
  await close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('reads Codex CLI entries with empty times and the same ids in two rollouts', () => {
  const [a, b] = sessions;
  const keys = (s: Session | undefined) => s?.entries.filter((e) => e.kind === 'message').map((e) => `${e.id}@${e.timestamp}`);
  expect(keys(a)).toEqual(['L2@', 'L3@']);
  expect(keys(b)).toEqual(keys(a));
});

it('finds and counts such entries in each session, in memory, a SQLite store and PostgreSQL', async () => {
  const found = async (store: Required<Pick<SessionDriver, 'search'>>, word: string) =>
    (await store.search(word)).map((h) => `${h.sessionId}/${h.entryId}`).sort();
  const [a, b] = sessions.map((s) => s.id);
  const want = {
    walrus: [`${a}/L2`, `${a}/L3`, `${b}/L2`, `${b}/L3`].sort(),
    otters: ['otters-a/a1', 'otters-a/u1', 'otters-b/a1', 'otters-b/u1'],
    input: 100 + 200 + 10 + 20,
    responses: 4,
  };
  for (const [name, store] of [
    ['memory', memory],
    ['sqlite', sqlite],
    ['postgres', pg.store],
  ] as const) {
    const totals = await store.usage();
    expect({
      name,
      walrus: await found(store, 'walrus'),
      otters: await found(store, 'otters'),
      input: totals.input,
      responses: totals.messages,
    }).toEqual({ name, ...want });
  }
  // the web viewer's charts count loaded sessions by the same rule
  const charts = (await (await createWebApp({ driver: memory }).request('/api/v1/web/stats')).json()) as {
    totals: { input: number; responses: number };
  };
  expect(charts.totals).toMatchObject({ input: want.input });
});

it('counts and shows again, on opening, what an index of schema 15 took for copies', async () => {
  const file = join(dir, 'v15.db');
  const untimedPair = sessions.slice(2);
  const old = openSqliteStore(file);
  for (const s of untimedPair) await old.writeSession(s, { keepId: true });
  // as schema 12 and 15 settled them: otters-b's records the copies of otters-a's
  old.db.exec(`UPDATE entries SET counted = 2 WHERE session_id = 'otters-b' AND counted = 1;
    INSERT INTO entry_copies (rowid) SELECT rowid FROM entries WHERE session_id = 'otters-b';
    PRAGMA user_version = 15;`);
  expect((await old.usage()).input).toBe(10);
  old.close();
  const store = openSqliteStore(file);
  try {
    expect((await store.usage()).input).toBe(30);
    expect((await store.search('otters')).map((h) => `${h.sessionId}/${h.entryId}`).sort()).toEqual([
      'otters-a/a1',
      'otters-a/u1',
      'otters-b/a1',
      'otters-b/u1',
    ]);
  } finally {
    store.close();
  }
});
