/**
 * The team server's /stats counts what local `threadbase stats` counts for the same window:
 * `since`/`until` select responses by time, so a session spanning the edge counts only its
 * responses inside (Claude Code's 0afea31a starts before `since`, its fork bcdac43d copies two of
 * its responses and adds one, all inside; the later sessions fall after `until`). Real Claude Code
 * sessions, pushed with `threadbase push` to servers on PostgreSQL, SQLite and memory. A store that
 * cannot count in SQL (memory) has each session read once per request.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { MemoryTokenStore, PostgresTokenStore, SqliteTokenStore, type TokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

/** after three of 0afea31a's six responses, before the rest */
const SINCE = '2026-11-22T19:13:01.100Z';
/** after 0afea31a and its fork, before 9f7f5cd3 (19:32) and the advisor session (11-25) */
const UNTIL = '2026-11-22T19:20:00.000Z';
const SPANNING = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

interface StatsData {
  sessions: number;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number; messages: number };
  cost: number;
  estimatedCost: number;
}

interface LocalTotals {
  cost: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  messages: number;
}

/** A store that counts the sessions it reads whole. */
function counting<T extends SessionDriver>(store: T): T & { reads: number } {
  const counted = store as T & { reads: number };
  counted.reads = 0;
  const getSession = store.getSession.bind(store);
  counted.getSession = async (id: string): Promise<Session | undefined> => {
    counted.reads++;
    return getSession(id);
  };
  return counted;
}

let home: string;
let env: DriverEnv;
let dir: string;
let pg: TestSchema;
const servers: { name: string; server: RunningServer; key: string; store: SessionDriver & Partial<{ reads: number }> }[] = [];

async function serverStats(server: RunningServer, key: string, query = ''): Promise<StatsData> {
  const res = await fetch(`${server.url}/api/v1/threadbase/stats${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: StatsData }).data;
}

/** `stats --json` summed over its rows */
async function localStats(args: string[]): Promise<LocalTotals> {
  const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'model', '--json', '--no-sync', ...args])) as {
    cost: number;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    messages: number;
  }[];
  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((a, r) => a + f(r), 0);
  return {
    cost: sum((r) => r.cost),
    input: sum((r) => r.inputTokens),
    output: sum((r) => r.outputTokens),
    cacheRead: sum((r) => r.cacheReadTokens),
    cacheWrite: sum((r) => r.cacheWriteTokens),
    messages: sum((r) => r.messages),
  };
}

async function addServer(name: string, store: SessionDriver, tokens: TokenStore): Promise<void> {
  const server = await startServer({ store, tokens, port: 0, log: () => undefined });
  const key = (await tokens.createToken('team')).key;
  await runCliOk(env, ['push', '--to', server.url, '--key', key, '--json']);
  servers.push({ name, server, key, store });
}

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-stats-window-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);
  dir = await mkdtemp(join(tmpdir(), 'tb-stats-window-server-'));
  pg = await freshSchema('tb_stats_window');
  await addServer('PostgreSQL', pg.store, new PostgresTokenStore(pg.store.pool, pg.store.ready()));
  const path = join(dir, 'server.db');
  await addServer('SQLite', counting(new SqliteStore(path)), new SqliteTokenStore(path));
  await addServer('memory', counting(new MemoryStore()), new MemoryTokenStore());
}, 180_000);

afterAll(async () => {
  for (const s of servers) await s.server.close();
  await pg?.drop();
  for (const s of servers) if (s.name !== 'PostgreSQL') await s.store.close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (home) await rm(home, { recursive: true, force: true });
});

describe('/stats?since&until on a team server', () => {
  it('the window cuts a session in two: local stats counts only some of its responses', async () => {
    const all = await localStats([]);
    const window = await localStats(['--since', SINCE, '--until', UNTIL]);
    const spanning = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync'])) as {
      key: string;
      messages: number;
    }[];
    const inside = JSON.parse(
      await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync', '--since', SINCE, '--until', UNTIL]),
    ) as { key: string; messages: number }[];
    const before = spanning.find((r) => r.key === SPANNING)?.messages ?? 0;
    const after = inside.find((r) => r.key === SPANNING)?.messages ?? 0;
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThan(before);
    expect(window.cost).toBeGreaterThan(0);
    expect(window.cost).toBeLessThan(all.cost - 1e-6);
  });

  it.each(['PostgreSQL', 'SQLite', 'memory'])('on %s: the cost and tokens local `stats --since --until` gives', async (name) => {
    const s = servers.find((x) => x.name === name);
    if (!s) throw new Error(`no ${name} server`);
    const local = await localStats(['--since', SINCE, '--until', UNTIL]);
    const data = await serverStats(s.server, s.key, `?since=${SINCE}&until=${UNTIL}`);
    expect(Math.abs(data.cost - local.cost)).toBeLessThan(1e-9);
    expect(data.usage).toMatchObject({
      input: local.input,
      output: local.output,
      cacheRead: local.cacheRead,
      cacheWrite: local.cacheWrite,
      messages: local.messages,
    });
    // the sessions that meet the window: the one spanning its start, its sub-agent's and its fork
    expect(data.sessions).toBe(3);
    // since alone and until alone too
    for (const args of [
      ['--since', SINCE],
      ['--until', UNTIL],
    ]) {
      const one = await localStats(args);
      const q = args[0] === '--since' ? `?since=${SINCE}` : `?until=${UNTIL}`;
      const got = await serverStats(s.server, s.key, q);
      expect(Math.abs(got.cost - one.cost)).toBeLessThan(1e-9);
      expect(got.usage.messages).toBe(one.messages);
    }
  });

  // memory cannot count in SQL: each session read once; SQLite counts in the store (costSummary), reading none
  it.each([
    ['memory', 1],
    ['SQLite', 0],
  ] as const)('on %s: one /stats request reads each session %i times', async (name, times) => {
    const s = servers.find((x) => x.name === name);
    if (!s || s.store.reads === undefined) throw new Error(`no counting ${name} server`);
    const listed = await serverStats(s.server, s.key);
    s.store.reads = 0;
    await serverStats(s.server, s.key);
    expect(listed.sessions).toBeGreaterThan(1);
    expect(s.store.reads).toBe(listed.sessions * times);
  });
});
