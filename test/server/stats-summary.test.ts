/**
 * The team server's /stats on SQLite is counted in the store (SqliteStore.costSummary over the
 * project's sessions), not by reading every session: the same numbers as a server on PostgreSQL, as
 * the read-every-session path and as local `stats`, for real Claude Code sessions (a fork copying
 * its parent's responses, split responses, a sub-agent) pushed to two projects of the same store: a
 * response copied into the other project's session still counts in each project.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { projectStores } from '../../src/server/scope.js';
import { type ServerStats, serverStats } from '../../src/server/stats.js';
import { PostgresTokenStore, SqliteTokenStore } from '../../src/server/tokens.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { localStatsTotals, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

/** after three of 0afea31a's responses, before the later sessions' */
const WINDOW = { since: '2026-11-22T19:13:01.100Z', until: '2026-11-22T19:20:00.000Z' };

let home: string;
let env: DriverEnv;
let pg: TestSchema;
let pgServer: RunningServer;
let pgKey: string;
let dir: string;
let sqlite: SqliteStore;
let sqliteServer: RunningServer;
const sqliteKeys: { key: string; project: string }[] = [];

async function statsOf(server: RunningServer, key: string, query = ''): Promise<ServerStats> {
  const res = await fetch(`${server.url}/api/v1/threadbase/stats${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: ServerStats }).data;
}

/** local `stats --json` summed: tokens, messages and cost */
async function local(args: string[] = []) {
  return localStatsTotals(env, args);
}

const totals = (s: ServerStats) => ({ cost: s.cost, input: s.usage.input, output: s.usage.output, messages: s.usage.messages });
const close = (a: { cost: number }, b: { cost: number }) => Math.abs(a.cost - b.cost) < 1e-9;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-stats-summary-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);

  pg = await freshSchema('tb_stats_summary');
  const pgTokens = new PostgresTokenStore(pg.store.pool, pg.store.ready());
  pgServer = await startServer({ store: pg.store, tokens: pgTokens, port: 0, log: () => undefined });
  pgKey = (await pgTokens.createToken('team')).key;
  await runCliOk(env, ['push', '--to', pgServer.url, '--key', pgKey, '--json']);

  dir = await mkdtemp(join(tmpdir(), 'tb-stats-summary-'));
  const path = join(dir, 'server.db');
  sqlite = openSqliteStore(path);
  const tokens = new SqliteTokenStore(path);
  sqliteServer = await startServer({ store: sqlite, tokens, port: 0, log: () => undefined });
  for (const name of ['team', 'other']) {
    const t = await tokens.createToken(name);
    sqliteKeys.push({ key: t.key, project: t.project.id });
    await runCliOk(env, ['push', '--to', sqliteServer.url, '--key', t.key, '--json']);
  }
}, 180_000);

afterAll(async () => {
  await pgServer?.close();
  await sqliteServer?.close();
  await pg?.drop();
  sqlite?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (home) await rm(home, { recursive: true, force: true });
});

describe('/stats on a SQLite server', () => {
  it('is counted in the store: no session is read, and each project gets what PostgreSQL and local `stats` give', async () => {
    const reads = vi.spyOn(sqlite, 'getSession');
    try {
      const want = await local();
      expect(want.messages).toBeGreaterThan(0);
      const onPg = await statsOf(pgServer, pgKey);
      expect(close(totals(onPg), want)).toBe(true);
      for (const { key } of sqliteKeys) {
        const got = await statsOf(sqliteServer, key);
        expect(reads).not.toHaveBeenCalled();
        expect(close(totals(got), want)).toBe(true);
        expect({ ...got, cost: 0, estimatedCost: 0 }).toEqual({ ...onPg, cost: 0, estimatedCost: 0 });
        expect(Math.abs(got.estimatedCost - onPg.estimatedCost)).toBeLessThan(1e-9);
      }
    } finally {
      reads.mockRestore();
    }
  });

  it('over a window and a source, the same numbers as the read-every-session path and PostgreSQL', async () => {
    const query = `?since=${WINDOW.since}&until=${WINDOW.until}&source=claude`;
    const want = await local(['--since', WINDOW.since, '--until', WINDOW.until]);
    expect(want.messages).toBeGreaterThan(0);
    expect(want.messages).toBeLessThan((await local()).messages);
    const onPg = await statsOf(pgServer, pgKey, query);
    for (const { key, project } of sqliteKeys) {
      const got = await statsOf(sqliteServer, key, query);
      expect(close(totals(got), want)).toBe(true);
      expect(totals({ ...got, cost: 0 })).toEqual(totals({ ...onPg, cost: 0 }));
      // the same project's view without costSummary: each session read and counted (ResponseCounter)
      const view = projectStores(sqlite)(project);
      const slow = Object.create(view, { costSummary: { value: undefined } }) as SessionDriver;
      const read = await serverStats(slow, { source: 'claude', ...WINDOW }, PRICES);
      expect(close(read, got)).toBe(true);
      expect({ ...read, cost: 0, estimatedCost: 0 }).toEqual({ ...got, cost: 0, estimatedCost: 0 });
    }
  });

  it('counts a project of tens of thousands of sessions in one query (the ids are one parameter)', async () => {
    const ids = (await sqlite.listSessions({})).map((s) => s.id);
    expect(ids.length).toBeGreaterThan(1);
    const many = [...ids, ...Array.from({ length: 40_000 }, (_, i) => `missing-${i}`)];
    const want = await sqlite.costSummary({}, PRICES, ids);
    expect(want.usage.messages).toBeGreaterThan(0);
    expect(await sqlite.costSummary({}, PRICES, many)).toEqual(want);
    expect(await sqlite.costBuckets('day', {}, PRICES, many)).toEqual(await sqlite.costBuckets('day', {}, PRICES, ids));
    expect(await sqlite.sessionCosts(PRICES, many)).toEqual(await sqlite.sessionCosts(PRICES, ids));
  });
});
