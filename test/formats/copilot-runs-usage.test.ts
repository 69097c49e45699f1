/**
 * The usage of a Copilot CLI session that ran a sub-agent, whose run is a session of its own too
 * (side-chains.ts runSessions: the run's records are in both): the driver's usage() (DriverBase's,
 * CountedResponses) and the index's `stats` count each response once, and their numbers are what
 * Copilot CLI recorded itself in the session's last `session.shutdown` (accountingSnapshot).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { type TokenCounts, tokenCounts } from '../helpers/usage.js';

const FIXTURE = 'test/fixtures/copilot/real-1.0.102/.copilot';
const WITH_RUN = 'f99f5ed3-753c-4039-b5b4-94f890e7fd56';
const RUN = 'dbc5e332-8b80-4a98-a522-e470049ee15a';
const PLAIN = '44b0e2d9-5ac6-46a4-b568-ce0f72a10d33';

interface ModelMetrics {
  requests: { count: number };
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
}

/** What Copilot CLI recorded for a session (its last shutdown's totals, which add up the runs before it), or for one agent in it. */
function recorded(sessionId: string, agent?: string): TokenCounts {
  const lines = readFileSync(join(FIXTURE, 'session-state', sessionId, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n');
  const shutdown = lines
    .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
    .filter((e) => e.type === 'session.shutdown')
    .at(-1);
  const snapshot = shutdown?.data.accountingSnapshot as {
    modelMetrics: Record<string, ModelMetrics>;
    agentMetrics: Record<string, { modelMetrics: Record<string, ModelMetrics> }>;
  };
  const metrics = agent ? (snapshot.agentMetrics[agent]?.modelMetrics ?? {}) : snapshot.modelMetrics;
  const out: TokenCounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, messages: 0 };
  for (const m of Object.values(metrics)) {
    // Copilot CLI's inputTokens include the cache reads and writes (events.ts usageOf)
    out.input += m.usage.inputTokens - m.usage.cacheReadTokens - m.usage.cacheWriteTokens;
    out.output += m.usage.outputTokens;
    out.cacheRead += m.usage.cacheReadTokens;
    out.cacheWrite += m.usage.cacheWriteTokens;
    out.messages += m.requests.count;
  }
  return out;
}

const add = (a: TokenCounts, b: TokenCounts): TokenCounts => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cacheRead: a.cacheRead + b.cacheRead,
  cacheWrite: a.cacheWrite + b.cacheWrite,
  messages: a.messages + b.messages,
});

let dir: string;
let env: DriverEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-copilot-runs-usage-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  cpSync(FIXTURE, join(dir, '.copilot'), { recursive: true });
  mkdirSync(join(dir, '.threadbase'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a session with a run: usage() and stats count what Copilot CLI recorded, the run once', async () => {
  const sources = new Sources(env);
  const driver = sources.driver('copilot');
  const listed = await driver.listSessions();
  expect(listed.find((s) => s.id === RUN)).toMatchObject({ parentId: WITH_RUN });
  const run = recorded(WITH_RUN, RUN);
  expect(run.messages).toBe(1);
  // the session's totals hold its run's response; counted again with the run it would be more
  expect(tokenCounts(await driver.usage())).toEqual(add(recorded(WITH_RUN), recorded(PLAIN)));
  // the run alone (its session not selected): its own response
  expect(tokenCounts(await driver.usage({ parentId: WITH_RUN }))).toEqual(run);

  const store = openSqliteStore(indexPath(env));
  try {
    await new IndexSync(store).sync(sources, { formats: ['copilot'] });
    const rows = stats(store, loadPrices(), { by: 'session', source: 'copilot' });
    const row = (id: string) => rows.find((r) => r.key === id);
    const counts = (id: string) => {
      const r = row(id);
      return r
        ? {
            input: r.inputTokens,
            output: r.outputTokens,
            cacheRead: r.cacheReadTokens,
            cacheWrite: r.cacheWriteTokens,
            messages: r.messages,
          }
        : undefined;
    };
    expect(counts(WITH_RUN)).toEqual(recorded(WITH_RUN));
    expect(counts(PLAIN)).toEqual(recorded(PLAIN));
    // its response counted in its session's copy, not again in the run's
    expect(row(RUN)).toBeUndefined();
  } finally {
    await store.close();
    await sources.close();
  }
});
