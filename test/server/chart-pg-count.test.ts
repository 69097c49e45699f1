/**
 * A PostgreSQL team server's charts past statsSessionLimit are counted in the store (costBuckets),
 * per response as the local index's `stats --by` counts them: by day, model (an advisor request
 * under its own model), project and source, a response copied into several sessions once, split by
 * since/until, recorded costs kept and the rest priced; no session read. Real Claude Code sessions
 * (one with advisor requests) and a conversion of one into threadbase (a copy of its responses), in
 * the local index, in a SQLite store and in PostgreSQL (127.0.0.1:5432, db test).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CostBucket, CostBucketKey, DriverEnv, SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { projectStores } from '../../src/server/scope.js';
import { WebData } from '../../src/server/web/data.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { costBucketOf, type StatsRow } from '../../src/stores/index-sync/stats.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { PostgresStore } from '../../src/stores/postgres/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { roundedChart, storesHolding, type TestSchema } from './pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** after three of 0afea31a's responses, before the later sessions' */
const WINDOW = { since: '2026-11-22T19:13:01.100Z', until: '2026-11-22T19:20:00.000Z' };
/** each window, and whether it holds the session with advisor requests (-tmp-cc-advisor) */
const WINDOWS = [
  ['all time', {}, true],
  ['a window', WINDOW, false],
] as const;
const ADVISOR = 'claude-opus-5';
const KEYS: readonly CostBucketKey[] = ['day', 'model', 'project', 'source'];

let home: string;
let env: DriverEnv;
let index: SqliteStore;
let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-chart-pg-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);
  await runCliOk(env, ['convert', CLAUDE_ID, '--to', 'threadbase', '--json']);
  index = openSqliteStore(indexPath(env), { readonly: true });
  const sessions: Session[] = [];
  for (const info of await index.listSessions()) {
    const s = await index.getSession(info.id);
    if (s) sessions.push(s);
  }
  // the same sessions in PostgreSQL and SQLite, and in two team server projects of the PostgreSQL
  // store (the other one holds the same responses: another tenant's copies never count here)
  ({ pg, sqlite, close } = await storesHolding('tb_chart_pg', sessions));
  for (const project of ['team', 'other'])
    for (const s of sessions) await projectStores(pg.store)(project).writeSession?.(s, { keepId: true });
}, 120_000);

afterAll(async () => {
  await index?.close();
  await close?.();
  if (home) await rm(home, { recursive: true, force: true });
});

/** buckets by key, their cost rounded (summed in another order) */
const byKey = (list: readonly CostBucket[]) =>
  [...list].map((b) => ({ ...b, cost: Math.round(b.cost * 1e9) / 1e9 })).sort((a, b) => (a.key < b.key ? -1 : 1));

/** `stats --json` rows as buckets */
const asBuckets = (rows: readonly StatsRow[]): CostBucket[] => rows.map(costBucketOf);

/** local `stats --by <by> --json` over `filter` */
const localStats = async (by: CostBucketKey, filter: { since?: string; until?: string }) => {
  const args = ['stats', '--by', by, '--json', '--no-sync'];
  if (filter.since) args.push('--since', filter.since);
  if (filter.until) args.push('--until', filter.until);
  return asBuckets(JSON.parse(await runCliOk(env, args)) as StatsRow[]);
};

/** the buckets as one, under `key` */
const summed = (key: string, list: readonly CostBucket[]): CostBucket => {
  const total: CostBucket = { key, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, responses: 0 };
  for (const b of list)
    for (const k of ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'cost', 'responses'] as const) total[k] += b[k];
  return total;
};

describe.each(WINDOWS)("PostgreSQL's costBuckets over %s", (_w, filter, advisors) => {
  it.each(KEYS)("by %s equal the SQLite store's and local `stats --by` (a copy once, advisors under their model)", async (by) => {
    const got = await pg.store.costBuckets(by, filter, PRICES);
    expect(got.length).toBeGreaterThan(0);
    expect(byKey(got)).toEqual(byKey(await sqlite.costBuckets(by, filter, PRICES)));
    const local = await localStats(by, filter);
    // a store written through keeps threadbase as every session's source; the index, each agent's own
    if (by === 'source') expect(byKey(got)).toEqual(byKey([summed('threadbase', local)]));
    else expect(byKey(got)).toEqual(byKey(local));
    if (by === 'model' && advisors) expect(got.map((b) => b.key)).toContain(ADVISOR);
  });

  it("in a team server project, count that project's sessions only, as its SQLite twin does", async () => {
    const team = projectStores(pg.store)('team');
    for (const by of KEYS) {
      const got = await team.costBuckets?.(by, filter, PRICES);
      expect(byKey(got ?? [])).toEqual(byKey(await pg.store.costBuckets(by, filter, PRICES)));
    }
  });
});

/** the windows, and all time in a reader's zone of a :45 offset (19:13 UTC is the next day in Kathmandu) */
const CHART_WINDOWS = [...WINDOWS, ['all time in Kathmandu', { timeZone: 'Asia/Kathmandu' }, true]] as const;

describe("a PostgreSQL team server project's charts past statsSessionLimit", () => {
  it.each(CHART_WINDOWS)('over %s are per message, equal to the charts per message, reading no session', async (_w, filter) => {
    const team = () => projectStores(pg.store)('team') as SessionDriver;
    const perMessage = await new WebData(team(), { statsSessionLimit: 1000 }).stats(filter);
    expect(perMessage.granularity).toBe('message');
    expect(perMessage.totals.responses).toBeGreaterThan(0);
    const reads = vi.spyOn(PostgresStore.prototype, 'getSession');
    try {
      const counted = await new WebData(team(), { statsSessionLimit: 0 }).stats(filter);
      expect(reads).not.toHaveBeenCalled();
      expect(counted.granularity).toBe('message');
      expect(roundedChart(counted)).toEqual(roundedChart(perMessage));
      expect(counted.dayZone).toBe('timeZone' in filter ? filter.timeZone : 'UTC');
    } finally {
      reads.mockRestore();
    }
  });
});
