/**
 * The same sessions give the same token and cost numbers in every store and every way of asking:
 * `usageOf()`, a server's `/stats` (costSummary), its charts (costBuckets) on SQLite and PostgreSQL,
 * and local `threadbase stats` over the index. The sessions make each rule decide something:
 * - a response copied into a session of another agent and project (a conversion keeps the response's
 *   id and time) counts once among the sessions selected, whichever of them holds its copies: so
 *   `--source pi` or `--project /agree/b`, which select only the later copy, count it too;
 * - a response whose usage and cost sit on different records, either side of midnight, is dated by
 *   its counted record (the last that carries usage or a cost, as countedUsage picks it): its cost's;
 * - a response recorded with neither usage nor a cost still counts as a response, with no tokens.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostBucket, SessionFilter, UsageTotals } from '../../src/model/driver.js';
import type { Message, Session } from '../../src/model/types.js';
import { costOf, PRICES, priceOf } from '../../src/stores/index-sync/prices.js';
import { countedWhere, stats } from '../../src/stores/index-sync/stats.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

const MODEL = 'claude-sonnet-4-5';
const reply = (responseId: string, extra: Partial<Message>): Message =>
  textMessage('assistant', responseId, { model: MODEL, responseId, ...extra });

/** `entries` as [id, time, message], each the parent of the next */
function session(id: string, source: string, project: string, createdAt: string, entries: [string, string, Message][]): Session {
  return {
    id,
    source,
    project,
    createdAt,
    updatedAt: entries[entries.length - 1]?.[1] ?? createdAt,
    messageCount: entries.length,
    entries: entries.map(([eid, at, message], i) => messageEntry(eid, i ? (entries[i - 1]?.[0] ?? null) : null, at, message)),
  };
}

const R1 = reply('msg_r1', { usage: usageOf(100, 10), cost: 0.01 });
const R2 = reply('msg_r2', { usage: usageOf(200, 20) });
const ORIGINAL = session('agree-original', 'claude', '/agree/a', '2026-03-01T10:00:00.000Z', [
  ['o1', '2026-03-01T10:00:00.000Z', textMessage('user', 'go')],
  ['o2', '2026-03-01T10:00:05.000Z', R1],
  ['o3', '2026-03-01T10:00:10.000Z', textMessage('user', 'more')],
  ['o4', '2026-03-01T10:00:15.000Z', R2],
]);
/** its conversion into pi in another project, started later, with a response of its own */
const CONVERTED = session('agree-converted', 'pi', '/agree/b', '2026-03-02T09:00:00.000Z', [
  ['c1', '2026-03-01T10:00:00.000Z', textMessage('user', 'go')],
  ['c2', '2026-03-01T10:00:05.000Z', R1],
  ['c3', '2026-03-01T10:00:10.000Z', textMessage('user', 'more')],
  ['c4', '2026-03-01T10:00:15.000Z', R2],
  ['c5', '2026-03-02T09:00:00.000Z', textMessage('user', 'and now')],
  ['c6', '2026-03-02T09:00:05.000Z', reply('msg_r3', { usage: usageOf(1000, 100), cost: 0.1 })],
]);
/** usage on one record before midnight, the cost on the next after it; a response with neither */
const SPLIT = session('agree-split', 'claude', '/agree/c', '2026-03-03T23:59:00.000Z', [
  ['s1', '2026-03-03T23:59:00.000Z', textMessage('user', 'late')],
  ['s2', '2026-03-03T23:59:59.000Z', reply('msg_split', { usage: usageOf(5000, 500) })],
  ['s3', '2026-03-04T00:00:01.000Z', reply('msg_split', { cost: 0.5 })],
  ['s4', '2026-03-04T01:00:00.000Z', reply('msg_empty', {})],
]);
const SESSIONS = [ORIGINAL, CONVERTED, SPLIT];

/** What every store must count (tokens, recorded cost, responses) for each selection of sessions. */
const EXPECTED: { filter: SessionFilter; input: number; output: number; cost: number; messages: number }[] = [
  // each copied response once
  { filter: {}, input: 6300, output: 630, cost: 0.61, messages: 5 },
  { filter: { project: '/agree/a' }, input: 300, output: 30, cost: 0.01, messages: 2 },
  // only the later copies selected: they count
  { filter: { project: '/agree/b' }, input: 1300, output: 130, cost: 0.11, messages: 3 },
  { filter: { project: '/agree/c' }, input: 5000, output: 500, cost: 0.5, messages: 2 },
];

const counts = (u: Pick<UsageTotals, 'input' | 'output' | 'cost' | 'messages'>) => ({
  input: u.input,
  output: u.output,
  cost: Math.round(u.cost * 1e9) / 1e9,
  messages: u.messages,
});

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;
/** the local index: the same sessions under their own sources, as `threadbase sync` stores them */
let index: SqliteStore;
let indexDir: string;
const memory = new MemoryStore();

beforeAll(async () => {
  const stores = await storesHolding('tb_stats_agree', SESSIONS);
  ({ pg, sqlite, close } = stores);
  indexDir = await mkdtemp(join(tmpdir(), 'tb-stats-agree-index-'));
  index = openSqliteStore(join(indexDir, 'index.db'));
  for (const s of SESSIONS) {
    index.putSession(s, { keepSource: true });
    await memory.writeSession(s, { keepId: true });
  }
}, 60_000);

afterAll(async () => {
  await close?.();
  await index?.close();
  if (indexDir) await rm(indexDir, { recursive: true, force: true });
});

/** both stores as a server holds them (the sessions written to each) */
const servers = () =>
  [
    ['sqlite', sqlite],
    ['postgres', pg.store],
  ] as const;

describe('stats agree across SQLite and PostgreSQL', () => {
  it('usageOf() counts a copied response once among the sessions selected, in both stores (and in memory)', async () => {
    for (const [name, store] of [...servers(), ['memory', memory] as const])
      for (const { filter, ...want } of EXPECTED)
        expect({ name, filter, ...counts(await store.usage(filter)) }).toEqual({ name, filter, ...want });
  });

  it("the server's /stats (costSummary) counts what usageOf() counts, in both stores", async () => {
    for (const [name, store] of servers())
      for (const { filter, ...want } of EXPECTED) {
        const got = await store.costSummary(filter, PRICES);
        expect({ name, filter, ...counts(got.usage) }).toEqual({ name, filter, ...want });
        expect(got.recordedCost).toBeCloseTo(want.cost, 9);
      }
  });

  it('a response whose usage and cost sit on different records is dated by the later one, in both stores', async () => {
    const days = async (store: { costBuckets(...a: Parameters<SqliteStore['costBuckets']>): Promise<CostBucket[]> }) =>
      (await store.costBuckets('day', {}, PRICES)).map((b) => ({
        key: b.key,
        input: b.input,
        responses: b.responses,
        cost: Math.round(b.cost * 1e9) / 1e9,
      }));
    const r2 = costOf(priceOf(PRICES, MODEL), usageOf(200, 20), 200);
    expect(r2).toBeGreaterThan(0);
    const want = [
      { key: '2026-03-01', input: 300, responses: 2, cost: Math.round((0.01 + r2) * 1e9) / 1e9 },
      { key: '2026-03-02', input: 1000, responses: 1, cost: 0.1 },
      // the usage's day (03-03) has nothing: the response counts on its cost's record's day
      { key: '2026-03-04', input: 5000, responses: 2, cost: 0.5 },
    ];
    for (const [name, store] of servers()) expect({ name, days: await days(store) }).toEqual({ name, days: want });
    // a window holding only the usage's record: the response is not in it
    for (const [name, store] of servers()) {
      const got = await store.costSummary({ since: '2026-03-03T00:00:00.000Z', until: '2026-03-03T23:59:59.999Z' }, PRICES);
      expect({ name, messages: got.usage.messages }).toEqual({ name, messages: 0 });
    }
  });
});

describe('local `stats --source/--project` counts as a server does', () => {
  /** `stats` over the index (what `threadbase stats --json` prints), summed */
  const local = (filter: { source?: string; project?: string }) => {
    const rows = stats(index, PRICES, { by: 'model', ...filter });
    return {
      input: rows.reduce((n, r) => n + r.inputTokens, 0),
      output: rows.reduce((n, r) => n + r.outputTokens, 0),
      messages: rows.reduce((n, r) => n + r.messages, 0),
      cost: Math.round(rows.reduce((n, r) => n + r.cost, 0) * 1e9) / 1e9,
    };
  };
  /** a server's /stats over the same sessions: tokens, responses and the whole cost */
  const server = async (store: SqliteStore | TestSchema['store'], filter: { source?: string; project?: string }) => {
    const s = await store.costSummary(filter, PRICES);
    return {
      input: s.usage.input,
      output: s.usage.output,
      messages: s.usage.messages,
      cost: Math.round((s.recordedCost + s.cost) * 1e9) / 1e9,
    };
  };

  it('a response whose counted copy is outside the filter counts in the copy inside it', async () => {
    // the conversion into pi: its copies of R1 and R2 are not the index's counted copies (the
    // original started first), and still count for `--source pi` and `--project /agree/b`
    const pi = local({ source: 'pi' });
    expect(pi).toMatchObject({ input: 1300, output: 130, messages: 3 });
    expect(local({ project: '/agree/b' })).toEqual(pi);
    // the original's source and project: its own two responses
    expect(local({ source: 'claude', project: '/agree/a' })).toMatchObject({ input: 300, messages: 2 });
    // all of them: each response once
    expect(local({})).toMatchObject({ input: 6300, messages: 5 });
    expect(counts(await index.usage({ source: 'pi' }))).toMatchObject({ input: 1300, messages: 3 });
  });

  it('the same numbers as /stats on PostgreSQL and on a SQLite server, for each source and project', async () => {
    for (const filter of [{ source: 'pi' }, { source: 'claude' }, { project: '/agree/a' }, { project: '/agree/b' }, {}]) {
      const want = local(filter);
      expect({ filter, ...(await server(pg.store, filter)) }).toEqual({ filter, ...want });
      expect({ filter, ...(await server(index, filter)) }).toEqual({ filter, ...want });
    }
  });
});

describe('the index of schema 13', () => {
  it("is migrated: `stats --source` finds the selected copies by their own index and sums the rest by the counted records'", async () => {
    const path = join(indexDir, 'schema13.db');
    const old = openSqliteStore(path);
    for (const s of SESSIONS) old.putSession(s, { keepSource: true });
    old.db.exec('DROP INDEX entries_copied; PRAGMA user_version = 13');
    await old.close();
    const store = openSqliteStore(path);
    try {
      expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const where = countedWhere({ source: 'pi' });
      const plan = (
        store.db
          .prepare(
            `EXPLAIN QUERY PLAN SELECT sum(e.input) FROM entries e JOIN sessions s ON s.id = e.session_id WHERE ${where.sql}`,
          )
          .all(...where.args) as { detail: string }[]
      ).map((r) => r.detail);
      expect(plan.join(' | ')).toMatch(/SEARCH e USING COVERING INDEX entries_counted/);
      expect(plan.join(' | ')).toMatch(/SEARCH e USING INDEX entries_copied \(session_id=\?\)/);
      expect(plan.join(' | ')).not.toMatch(/SCAN e\b/);
      expect(stats(store, PRICES, { by: 'source', source: 'pi' })[0]).toMatchObject({ inputTokens: 1300, messages: 3 });
    } finally {
      await store.close();
    }
  });
});
