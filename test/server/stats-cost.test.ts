/**
 * The team server's /stats cost is the cost local `threadbase stats` gives for the same sessions:
 * recorded costs as the agents recorded them, the rest (Claude Code records none) priced from tokens
 * with the same table. Real Claude Code sessions (advisor requests included), a pi session with
 * recorded costs and a session of a model no table prices, pushed with `threadbase push` to a server
 * on PostgreSQL and to one on SQLite.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore, SqliteTokenStore } from '../../src/server/tokens.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

const UNPRICED = 'mystery-model-9';
const MYSTERY_ID = 'bcdac43d-0000-4000-8000-00000000000a';
const PI_ID = '0190cccc-3333-7000-8000-000000000003';
/** Claude Code with an advisor (Opus 5 advising Sonnet 5), requests run in the US */
const ADVISOR_ID = '4cf6af46-90ce-4140-a417-cb383e9c5ef7';

let home: string;
let env: DriverEnv;
let local: { cost: number; recorded: number; unpricedModels: string[] };
let pg: TestSchema;
let pgServer: RunningServer;
let sqliteDir: string;
let sqliteStore: SqliteStore;
let sqliteServer: RunningServer;

interface StatsData {
  sessions: number;
  usage: { cost: number; messages: number; input: number; output: number };
  cost: number;
  estimatedCost: number;
  unpricedModels: string[];
}

async function serverStats(server: RunningServer, key: string, query = ''): Promise<StatsData> {
  const res = await fetch(`${server.url}/api/v1/threadbase/stats${query}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: StatsData }).data;
}

/** The cost the web viewer's session list shows for one session */
async function webListCost(server: RunningServer, key: string, id: string): Promise<number> {
  const res = await fetch(`${server.url}/api/v1/web/sessions?limit=500`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  const row = ((await res.json()) as { sessions: { id: string; cost: number | null }[] }).sessions.find((s) => s.id === id);
  expect(row?.cost).toBeTypeOf('number');
  return row?.cost ?? 0;
}

/** `stats --json` by model: its total cost, the part agents recorded (the pi session's) and the unpriced models */
async function localStats(args: string[] = []): Promise<typeof local> {
  const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'model', '--json', ...args])) as {
    key: string;
    cost: number;
    unpricedModels: string[];
  }[];
  return {
    cost: rows.reduce((a, r) => a + r.cost, 0),
    recorded: 0.05 + 0.33,
    unpricedModels: [...new Set(rows.flatMap((r) => r.unpricedModels))].sort(),
  };
}

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-stats-cost-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  // pi with the costs it recorded (0.05 and 0.33, claude-opus-4-5: a model the table prices otherwise)
  const piDir = join(home, '.pi/agent/sessions/--work-all--');
  await mkdir(piDir, { recursive: true });
  await copyFile('test/fixtures/pi/v3-all-types.jsonl', join(piDir, `2026-01-01T10-00-00-000Z_${PI_ID}.jsonl`));
  // a Claude Code session of a model no table knows: responses of its own (not copies of the fixture's)
  const original = await readFile(
    'test/fixtures/claude/real/projects/-tmp-cc-proj/bcdac43d-f5e3-48d3-b285-908f5f7abc8b.jsonl',
    'utf8',
  );
  const mystery = original
    .replaceAll('bcdac43d-f5e3-48d3-b285-908f5f7abc8b', MYSTERY_ID)
    .replaceAll('"model":"claude-opus-5-5"', `"model":"${UNPRICED}"`)
    .replaceAll('msg_standin_', 'msg_mystery_')
    .replaceAll('req_standin_', 'req_mystery_')
    // a NUL in its answers' text: PostgreSQL keeps it escaped in the body's JSON text, which jsonb refuses
    .split('\n')
    .map((line) =>
      line.includes('"type":"assistant"') ? line.replaceAll('"type":"text","text":"', '"type":"text","text":"\\u0000') : line,
    )
    .join('\n');
  await mkdir(join(home, '.claude/projects/-tmp-cc-mystery'), { recursive: true });
  await writeFile(join(home, `.claude/projects/-tmp-cc-mystery/${MYSTERY_ID}.jsonl`), mystery);
  local = await localStats();

  pg = await freshSchema('tb_stats_cost');
  const pgTokens = new PostgresTokenStore(pg.store.pool, pg.store.ready());
  pgServer = await startServer({ store: pg.store, tokens: pgTokens, port: 0, log: () => undefined });
  sqliteDir = await mkdtemp(join(tmpdir(), 'tb-stats-cost-server-'));
  const path = join(sqliteDir, 'server.db');
  sqliteStore = openSqliteStore(path);
  sqliteServer = await startServer({ store: sqliteStore, tokens: new SqliteTokenStore(path), port: 0, log: () => undefined });
}, 120_000);

afterAll(async () => {
  await pgServer?.close();
  await sqliteServer?.close();
  await pg?.drop();
  sqliteStore?.close();
  if (sqliteDir) await rm(sqliteDir, { recursive: true, force: true });
  if (home) await rm(home, { recursive: true, force: true });
});

describe.each([
  ['PostgreSQL', () => ({ server: pgServer, store: pg.store, tokens: new PostgresTokenStore(pg.store.pool, pg.store.ready()) })],
  ['SQLite', () => ({ server: sqliteServer, store: sqliteStore, tokens: new SqliteTokenStore(join(sqliteDir, 'server.db')) })],
] as const)('/stats on a %s server', (_name, setup) => {
  let key: string;
  let server: RunningServer;
  beforeAll(async () => {
    const s = setup();
    server = s.server;
    key = (await s.tokens.createToken('team')).key;
    await runCliOk(env, ['push', '--to', server.url, '--key', key, '--json']);
  }, 120_000);

  it("gives the cost local `stats` gives for the same sessions: recorded costs kept, Claude Code's priced", async () => {
    const data = await serverStats(server, key);
    // 4 Claude Code sessions and a sub-agent's, the unpriced one, pi's
    expect(data.sessions).toBe(7);
    // the local total prices Claude Code's responses: far more than the pi session's recorded costs
    expect(local.cost).toBeGreaterThan(local.recorded + 0.01);
    expect(Math.abs(data.cost - local.cost)).toBeLessThan(1e-9);
    // what the agents recorded stays as recorded (pi's 0.05 + 0.33, not pi's tokens priced again)
    expect(data.usage.cost).toBeCloseTo(local.recorded, 12);
    expect(Math.abs(data.estimatedCost - (local.cost - local.recorded))).toBeLessThan(1e-9);
  });

  it("prices with the server's own table (serve --prices), long prompts at their rates, as `stats --prices` does", async () => {
    // Opus 5.5 with long-prompt rates above 2,700 tokens: some of the fixture's requests fall on each side
    const file = join(home, 'team-prices.json');
    await writeFile(
      file,
      JSON.stringify({
        'claude-opus-5-5': {
          input: 4,
          output: 20,
          cacheRead: 0.2,
          cacheWrite: 5,
          longPrompt: { above: 2700, input: 40, output: 200, cacheRead: 2, cacheWrite: 50 },
        },
      }),
    );
    const priced = await localStats(['--prices', file, '--no-sync']);
    expect(Math.abs(priced.cost - local.cost)).toBeGreaterThan(0.01);
    // startServer hands its options to createApp, which takes the table (what `serve --prices` passes)
    const options = { store: setup().store, tokens: setup().tokens, port: 0, log: () => undefined, prices: loadPrices(file) };
    const team = await startServer(options);
    try {
      const data = await serverStats(team, key);
      expect(Math.abs(data.cost - priced.cost)).toBeLessThan(1e-9);
      expect(data.usage.cost).toBeCloseTo(local.recorded, 12);
    } finally {
      await team.close();
    }
  });

  it("the web viewer's list on the team server prices with the server's table too (serve --prices)", async () => {
    // a table that prices Sonnet 5 (the advisor session's main model) at ten times its rates
    const file = join(home, 'sonnet-prices.json');
    await writeFile(file, JSON.stringify({ 'claude-sonnet-5': { input: 20, output: 100, cacheRead: 2, cacheWrite: 25 } }));
    const options = { store: setup().store, tokens: setup().tokens, port: 0, log: () => undefined, prices: loadPrices(file) };
    const team = await startServer(options);
    try {
      const bundled = await webListCost(server, key, ADVISOR_ID);
      const own = await webListCost(team, key, ADVISOR_ID);
      expect(own).toBeGreaterThan(bundled + 0.01);
    } finally {
      await team.close();
    }
  });

  // the list asks the store for each session's cost priced request by request (SessionDriver.sessionCosts):
  // a request run in the US (1.1 times) or above a long-prompt threshold at its own rates, as `stats` prices it
  it("the web viewer's list prices a session as `stats --by session` does (request by request)", async () => {
    const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'session', '--json', '--no-sync'])) as {
      key: string;
      cost: number;
    }[];
    const expected = rows.find((r) => r.key === ADVISOR_ID)?.cost;
    expect(expected).toBeGreaterThan(0);
    expect(Math.abs((await webListCost(server, key, ADVISOR_ID)) - (expected ?? 0))).toBeLessThan(1e-9);
  });

  it('lists the model no table prices, as local `stats` does', async () => {
    const data = await serverStats(server, key);
    expect(local.unpricedModels).toEqual([UNPRICED]);
    expect(data.unpricedModels).toEqual([UNPRICED]);
  });

  it("filters by agent as the listing does: Claude Code's alone, then pi's alone", async () => {
    const claude = await serverStats(server, key, '?source=claude');
    const localClaude = await localStats(['--source', 'claude', '--no-sync']);
    expect(Math.abs(claude.cost - localClaude.cost)).toBeLessThan(1e-9);
    expect(claude.usage.cost).toBe(0);
    const pi = await serverStats(server, key, '?source=pi');
    expect(pi.cost).toBeCloseTo(local.recorded, 12);
    expect(pi.estimatedCost).toBe(0);
    expect(pi.unpricedModels).toEqual([]);
  });
});
