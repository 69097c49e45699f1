/**
 * A response whose records name different models is counted under one model in every store: the
 * model of its last record with usage or a cost that names one (the record it is dated by, "a
 * response is dated by the later of its usage/cost records"), else its first record's. The same
 * session in memory (the TypeScript rule CountedResponses and the web viewer's per-message charts
 * count with), the local index (stored whole, and appended to as a sync appends a grown file), a
 * SQLite store and PostgreSQL (for real) gives the same `--by model` buckets.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CountedResponses } from '../../src/model/copies.js';
import type { CostBucket } from '../../src/model/driver.js';
import type { Entry, Message, Session, SessionInfo, Usage } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

const usage = (input: number): Usage => ({ input, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
/** one record of response `id`, naming `model` (none when undefined) */
const record = (id: string, model: string | undefined, extra: Partial<Message>): Message =>
  textMessage('assistant', id, { ...(model ? { model } : {}), responseId: id, ...extra });

/**
 * Each response's two records, the first and the second (written in that order), and the model it
 * counts under; each response's input tokens tell its bucket apart.
 */
const RESPONSES: { id: string; first: Message; second: Message; model: string }[] = [
  // two usage records: the later one's
  {
    id: 'msg_uu',
    first: record('msg_uu', 'uu-first', { usage: usage(1) }),
    second: record('msg_uu', 'uu-later', { usage: usage(2) }),
    model: 'uu-later',
  },
  // the usage, then the cost on a record naming another model: the cost's record (the response's date)
  {
    id: 'msg_uc',
    first: record('msg_uc', 'uc-first', { usage: usage(10) }),
    second: record('msg_uc', 'uc-later', { cost: 0.5 }),
    model: 'uc-later',
  },
  // the cost, then the usage: the usage's record
  {
    id: 'msg_cu',
    first: record('msg_cu', 'cu-first', { cost: 0.25 }),
    second: record('msg_cu', 'cu-later', { usage: usage(100) }),
    model: 'cu-later',
  },
  // two costs
  {
    id: 'msg_cc',
    first: record('msg_cc', 'cc-first', { cost: 0.1 }),
    second: record('msg_cc', 'cc-later', { cost: 0.2 }),
    model: 'cc-later',
  },
  // the later usage record names no model: the last that names one
  {
    id: 'msg_un',
    first: record('msg_un', 'un-first', { usage: usage(1000) }),
    second: record('msg_un', undefined, { usage: usage(2000) }),
    model: 'un-first',
  },
  // no record with usage or a cost names one: the first record's
  {
    id: 'msg_fn',
    first: record('msg_fn', 'fn-first', {}),
    second: record('msg_fn', undefined, { usage: usage(10000) }),
    model: 'fn-first',
  },
];

const AT = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
/** the first records of every response, then the second ones: a sync that read the first part appends the rest */
const FIRST: [string, Message][] = [
  ['u', textMessage('user', 'go')],
  ...RESPONSES.map((r) => [`${r.id}-1`, r.first] as [string, Message]),
];
const SECOND: [string, Message][] = RESPONSES.map((r) => [`${r.id}-2`, r.second]);
const chain = (list: [string, Message][], from: number, parent: string | null): Entry[] =>
  list.map(([id, m], i) => messageEntry(id, i ? (list[i - 1]?.[0] ?? null) : parent, AT(from + i), m));
const firstEntries = chain(FIRST, 0, null);
const secondEntries = chain(SECOND, FIRST.length, FIRST[FIRST.length - 1]?.[0] ?? null);
const SESSION: Session = {
  id: 'model-agree',
  source: 'claude',
  project: '/model/agree',
  createdAt: AT(0),
  updatedAt: AT(FIRST.length + SECOND.length),
  messageCount: FIRST.length + SECOND.length,
  entries: [...firstEntries, ...secondEntries],
};

/** model → input tokens, as every store must count them */
const WANT = Object.fromEntries(
  RESPONSES.map((r) => [r.model, (r.second.usage ?? r.first.usage)?.input ?? 0] as const).sort(([a], [b]) => (a < b ? -1 : 1)),
);
const byModel = (buckets: { key: string; input: number }[]) =>
  Object.fromEntries(buckets.map((b) => [b.key, b.input] as const).sort(([a], [b]) => (a < b ? -1 : 1)));

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;
let dir: string;
let whole: SqliteStore;
let appended: SqliteStore;
const memory = new MemoryStore();

beforeAll(async () => {
  ({ pg, sqlite, close } = await storesHolding('tb_stats_model', [SESSION]));
  dir = await mkdtemp(join(tmpdir(), 'tb-stats-model-'));
  whole = openSqliteStore(join(dir, 'whole.db'));
  whole.putSession(SESSION, { keepSource: true });
  appended = openSqliteStore(join(dir, 'appended.db'));
  appended.putSession({ ...SESSION, entries: firstEntries }, { keepSource: true });
  appended.db.transaction(() => appended.appendEntriesNow(SESSION.id, secondEntries))();
  await memory.writeSession(SESSION, { keepId: true });
}, 60_000);

afterAll(async () => {
  await close?.();
  await whole?.close();
  await appended?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const buckets = (b: CostBucket[]) => byModel(b.map((x) => ({ key: x.key, input: x.input })));

it('names a response whose records name different models alike in memory, the index, SQLite and PostgreSQL', async () => {
  expect(Object.keys(WANT)).toHaveLength(RESPONSES.length);
  const counted = new CountedResponses();
  counted.add(SESSION);
  const got: Record<string, Record<string, number>> = {
    memory: byModel([...counted.values()].map((c) => ({ key: c.model ?? 'unknown', input: c.usage?.input ?? 0 }))),
    'memory web charts': byModel(
      (
        (await (await createWebApp({ driver: memory }).request('/api/v1/web/stats')).json()) as {
          byModel: { key: string; input: number }[];
        }
      ).byModel,
    ),
    'index (whole)': byModel(stats(whole, PRICES, { by: 'model' }).map((r) => ({ key: r.key, input: r.inputTokens }))),
    'index (appended)': byModel(stats(appended, PRICES, { by: 'model' }).map((r) => ({ key: r.key, input: r.inputTokens }))),
    sqlite: buckets(await sqlite.costBuckets('model', {}, PRICES)),
    postgres: buckets(await pg.store.costBuckets('model', {}, PRICES)),
  };
  expect(got).toEqual(Object.fromEntries(Object.keys(got).map((store) => [store, WANT])));
});

/** model → input tokens of a listing's usageByModel (a response with only a cost adds no tokens to any model) */
const listed = (info: { usageByModel?: Record<string, Usage> } | undefined) =>
  byModel(Object.entries(info?.usageByModel ?? {}).map(([key, u]) => ({ key, input: u.input })));

it("files a session's per-model usage in its listing by the same rule, in memory, the index, SQLite and PostgreSQL", async () => {
  const want = Object.fromEntries(Object.entries(WANT).filter(([, input]) => input > 0));
  const one = async (store: { listSessions(): Promise<SessionInfo[]> }) =>
    (await store.listSessions()).find((s) => s.id === SESSION.id);
  const got: Record<string, Record<string, number>> = {
    'memory listing': listed(await one(memory)),
    'memory show': listed(await memory.getSession(SESSION.id)),
    'index listing (whole)': listed(await one(whole)),
    'index listing (appended)': listed(await one(appended)),
    'sqlite listing': listed(await one(sqlite)),
    'sqlite show': listed(await sqlite.getSession(SESSION.id)),
    'postgres listing': listed(await one(pg.store)),
    'postgres show': listed(await pg.store.getSession(SESSION.id)),
  };
  expect(got).toEqual(Object.fromEntries(Object.keys(got).map((store) => [store, want])));
});
