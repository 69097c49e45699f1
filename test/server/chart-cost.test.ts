import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { WebData } from '../../src/server/web/data.js';
import { estimatedCostOf, PRICES } from '../../src/stores/index-sync/prices.js';
import type { SqliteStore } from '../../src/stores/sqlite/index.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';
import { storesHolding, type TestSchema } from './pg-helpers.js';

const SONNET = 'claude-sonnet-4'; // long-prompt rates above 200,000 tokens, 1.1 times in the US
const HAIKU = 'claude-haiku-4-5';

/** Two models: Sonnet's recorded response, its long prompt run in the US and a short one; Haiku's short one. */
const MIXED: Session = chainSession('chart-cost-mixed', 'threadbase', '/tmp/chart-cost', [
  ['m0', textMessage('user', 'go')],
  ['m1', textMessage('assistant', 'recorded', { model: SONNET, usage: usageOf(1000, 100), cost: 0.5 })],
  ['m2', textMessage('assistant', 'long, US', { model: SONNET, usage: usageOf(250_000, 2000, { inferenceGeo: 'us' }) })],
  ['m3', textMessage('assistant', 'short', { model: SONNET, usage: usageOf(3000, 400) })],
  ['m4', textMessage('assistant', 'haiku', { model: HAIKU, usage: usageOf(2000, 300) })],
]);
/** One model, one long request in the US and one short one, nothing recorded. */
const SINGLE: Session = chainSession('chart-cost-single', 'threadbase', '/tmp/chart-cost', [
  ['s0', textMessage('user', 'go')],
  ['s1', textMessage('assistant', 'long, US', { model: SONNET, usage: usageOf(240_000, 1000, { inferenceGeo: 'us' }) })],
  ['s2', textMessage('assistant', 'short', { model: SONNET, usage: usageOf(5000, 200) })],
]);

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ pg, sqlite, close } = await storesHolding('tb_chart_cost', [MIXED, SINGLE]));
}, 60_000);

afterAll(async () => {
  await close?.();
});

const costByModel = (rows: { key: string; cost: number }[]) => Object.fromEntries(rows.map((r) => [r.key, r.cost]));

// past the limit both stores count the charts themselves (costBuckets, per response)
describe.each([
  ['SQLite', () => sqlite as SessionDriver],
  ['PostgreSQL', () => pg.store as SessionDriver],
] as const)("the web viewer's charts past statsSessionLimit on %s", (_name, store) => {
  it('give each model the cost the charts per message give it (request by request)', async () => {
    const perMessage = await new WebData(store(), { statsSessionLimit: 1000 }).stats({});
    const counted = await new WebData(store(), { statsSessionLimit: 0 }).stats({});
    expect(perMessage.granularity).toBe('message');
    expect(counted.granularity).toBe('message');
    // request by request: the recorded 0.5, the rest priced one request at a time
    const expected = 0.5 + estimatedCostOf(MIXED.entries, PRICES).cost + estimatedCostOf(SINGLE.entries, PRICES).cost;
    expect(Math.abs(perMessage.totals.cost - expected)).toBeLessThan(1e-9);
    expect(Math.abs(counted.totals.cost - expected)).toBeLessThan(1e-9);
    const want = costByModel(perMessage.byModel);
    const got = costByModel(counted.byModel);
    expect(Object.keys(got).sort()).toEqual([HAIKU, SONNET]);
    for (const model of [HAIKU, SONNET]) expect(Math.abs((got[model] ?? 0) - (want[model] ?? 0))).toBeLessThan(1e-9);
    // the tokens stay the listing's
    expect(counted.totals.input).toBe(perMessage.totals.input);
    expect(counted.totals.output).toBe(perMessage.totals.output);
  });
});
