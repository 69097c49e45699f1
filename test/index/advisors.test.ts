/**
 * A response's request to an advisor model (Claude Code's advisor tool: `usage.iterations` entries of
 * type `advisor_message`) is counted and priced under the advisor's model, as Claude Code itself
 * does: the fixture is a real Claude Code session whose `cost-state` record says what Claude Code
 * priced it at per model. The index keeps it through an incremental read, a conversion (counted
 * once) and the migration from schema 10; the web viewer's stats agree.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { type StatsRow, stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { type ClaudeModelUsage, statsTokensOfClaude } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { tempIndexHome } from '../helpers/index-units.js';

const PROJECT = join(__dirname, '..', 'fixtures', 'claude', 'real', 'projects', '-tmp-cc-advisor');
const SESSION = '4cf6af46-90ce-4140-a417-cb383e9c5ef7';
const FILE = `${SESSION}.jsonl`;

type Json = Record<string, unknown>;
const lines = readFileSync(join(PROJECT, FILE), 'utf8').split('\n').filter(Boolean);

/** What Claude Code priced the session at, per model: its last `cost-state` record. */
const claudeCodeSays = (() => {
  const states = lines.map((l) => JSON.parse(l) as Json).filter((r) => r.type === 'cost-state');
  const last = states[states.length - 1] as { totalCostUSD: number; modelUsage: Record<string, ClaudeModelUsage> };
  return last;
})();

const asRow = (u: ClaudeModelUsage) => ({ ...statsTokensOfClaude(u), cost: expect.closeTo(u.costUSD, 9) });

function byModel(rows: StatsRow[]) {
  return Object.fromEntries(
    rows.map((r) => [
      r.key,
      {
        inputTokens: r.inputTokens,
        outputTokens: r.outputTokens,
        cacheReadTokens: r.cacheReadTokens,
        cacheWriteTokens: r.cacheWriteTokens,
        cost: r.cost,
      },
    ]),
  );
}

const expected = Object.fromEntries(Object.entries(claudeCodeSays.modelUsage).map(([m, u]) => [m, asRow(u)]));

let dir: string;
let env: DriverEnv;
let store: SqliteStore;
let claudeDir: string;

let remove: () => Promise<void>;

beforeEach(async () => {
  ({ dir, env, remove } = await tempIndexHome('tb-advisors-'));
  claudeDir = join(dir, '.claude', 'projects', '-tmp-cc-advisor');
  mkdirSync(claudeDir, { recursive: true });
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  await remove();
});

const sync = () => new IndexSync(store).sync(new Sources(env), { formats: ['claude', 'pi'] });
const statsByModel = () => byModel(stats(store, loadPrices(), { by: 'model' }));

describe('advisor requests in the index', () => {
  it('stats counts and prices them under the advisor model, as Claude Code did', async () => {
    cpSync(PROJECT, claudeDir, { recursive: true });
    await sync();
    // the fixture is what it says: one request to claude-opus-5 beside the session's own model
    expect(Object.keys(claudeCodeSays.modelUsage).sort()).toEqual(['claude-opus-5', 'claude-sonnet-5']);
    expect(statsByModel()).toEqual(expected);
    const [day] = stats(store, loadPrices(), { by: 'session' });
    expect(day?.cost).toBeCloseTo(claudeCodeSays.totalCostUSD, 9);
    // two responses, the advisor's request no message of its own
    expect(day?.messages).toBe(2);
    // the listing and the store's totals count the advisor's tokens too
    const listed = (await store.listSessions({ source: 'claude' }))[0];
    expect(listed?.models?.sort()).toEqual(['claude-opus-5', 'claude-sonnet-5']);
    expect(listed?.usageByModel?.['claude-opus-5']?.input).toBe(4000);
    const totals = await store.usage({ source: 'claude' });
    expect(totals.input).toBe(claudeCodeSays.modelUsage['claude-sonnet-5']?.inputTokens + 4000);
  });

  it('stats and the totals read advisor requests through their own index, not every counted record', async () => {
    cpSync(PROJECT, claudeDir, { recursive: true });
    await sync();
    const prepare = vi.spyOn(store.db, 'prepare');
    stats(store, loadPrices(), { by: 'model', since: '2026-01-01' });
    await store.usage({ source: 'claude' });
    const sql = prepare.mock.calls.map((c) => String(c[0])).filter((q) => q.includes('json_each(e.advisors)'));
    prepare.mockRestore();
    expect(sql).toHaveLength(2);
    for (const q of sql) {
      const params = Array.from({ length: q.split('?').length - 1 }, () => null);
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...params) as { detail: string }[]).map((r) => r.detail);
      // the advisor part: a search of the partial index; the counted records' own index is the other part's
      const part = plan.slice(plan.findIndex((d) => d.includes('entries_advisors')));
      expect(part[0]).toMatch(/^SEARCH e USING INDEX entries_advisors/);
      expect(plan.join(' | ')).not.toMatch(/SCAN e\b/);
    }
  });

  it('a transcript read in two parts (the response split over the cut) counts it once', async () => {
    // cut between the two records of the advised response (thinking, then text)
    const cut = lines.findIndex((l) => (JSON.parse(l) as Json).type === 'assistant') + 1;
    writeFileSync(join(claudeDir, FILE), `${lines.slice(0, cut).join('\n')}\n`);
    await sync();
    appendFileSync(join(claudeDir, FILE), `${lines.slice(cut).join('\n')}\n`);
    const report = await sync();
    expect(report.appended).toBe(1);
    expect(statsByModel()).toEqual(expected);
  });

  for (const target of ['pi', 'opencode', 'codex'] as const)
    it(`a conversion into ${target} keeps the advisor request, and stats counts it once`, async () => {
      cpSync(PROJECT, claudeDir, { recursive: true });
      if (target === 'opencode') {
        // OpenCode writes only into a database OpenCode made: the fixture's, emptied of its sessions
        const ocDir = join(dir, '.local', 'share', 'opencode');
        mkdirSync(ocDir, { recursive: true });
        cpSync(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), join(ocDir, 'opencode.db'));
        const oc = new Database(join(ocDir, 'opencode.db'));
        oc.exec('DELETE FROM part; DELETE FROM message; DELETE FROM todo; DELETE FROM session;');
        oc.close();
      }
      const sources = new Sources(env);
      const session = await sources.driver('claude').getSession(SESSION);
      if (!session) throw new Error('fixture not read');
      const [written] = await convertSessionAll(session, sources.driver(target));
      const copy = await sources.driver(target).getSession(written?.id ?? '');
      const advised = copy?.entries.find((e) => e.kind === 'message' && e.message.usage?.advisors);
      expect(advised?.kind === 'message' && advised.message.usage?.advisors).toEqual([
        { model: 'claude-opus-5', input: 4000, output: 500, cacheRead: 2000, cacheWrite: 800, cacheWrite1h: 600 },
      ]);
      await new IndexSync(store).sync(new Sources(env), { formats: ['claude', target] });
      expect(statsByModel()).toEqual(expected);
      // the copy's own listing shows what its file records
      expect((await store.listSessions({ source: target }))[0]?.usageByModel?.['claude-opus-5']?.input).toBe(4000);
    });

  it('an index of schema 10 gets the column, and its sessions are read again (stats syncs first) and bring their advisor requests', async () => {
    cpSync(PROJECT, claudeDir, { recursive: true });
    await sync();
    await store.close();
    // as schema 10 left it: no column, no index of it, no reader versions
    const raw = new Database(indexPath(env));
    raw.exec(`DROP INDEX entries_advisors; ALTER TABLE entries DROP COLUMN advisors; PRAGMA user_version = 10;
      DELETE FROM index_meta WHERE key LIKE 'reader:%'`);
    raw.close();
    store = openSqliteStore(indexPath(env));
    const index = store.db.prepare("SELECT sql FROM sqlite_master WHERE name = 'entries_advisors'").pluck().get();
    expect(index).toMatch(/WHERE advisors IS NOT NULL/);
    // the rows indexed before have none until read again
    expect(Object.keys(statsByModel())).toEqual(['claude-sonnet-5']);
    await store.close();
    // `stats`, inside its 30 s window, syncs first: the index was made by an older reader
    const rows = JSON.parse(await runCliOk(env, ['stats', '--by', 'model', '--source', 'claude', '--json'])) as StatsRow[];
    expect(byModel(rows)).toEqual(expected);
    store = openSqliteStore(indexPath(env));
    expect(statsByModel()).toEqual(expected);
    // and the sync after it is incremental again
    expect((await sync()).unchanged).toBe(1);
  });

  it("the web viewer's stats put it under the advisor model too", async () => {
    cpSync(PROJECT, claudeDir, { recursive: true });
    await sync();
    const web = (await (await createWebApp({ driver: store }).request('/api/v1/web/stats')).json()) as {
      granularity: string;
      totals: { input: number; responses: number; cost: number };
      byModel: { key: string; input: number; cost: number; responses: number }[];
    };
    expect(web.granularity).toBe('message');
    const opus = web.byModel.find((b) => b.key === 'claude-opus-5');
    expect(opus).toEqual(expect.objectContaining({ input: 4000, responses: 0 }));
    expect(opus?.cost).toBeCloseTo(claudeCodeSays.modelUsage['claude-opus-5']?.costUSD ?? 0, 9);
    expect(web.totals.responses).toBe(2);
    expect(web.totals.cost).toBeCloseTo(claudeCodeSays.totalCostUSD, 9);
  });
});
