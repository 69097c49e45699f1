/**
 * Long-prompt rates: a request whose prompt (input + cache read + cache write) is above a model's
 * threshold is billed whole at other rates, as Claude Code prices Haiku 5.5 above 100k prompt tokens.
 * `stats` sums requests in SQL, so it must keep the requests on either side of every threshold apart.
 * And 1-hour cache writes, which Claude Code records apart and Anthropic bills at twice the input rate;
 * fast mode's rates, US-only inference (1.1 times) and web searches ($0.01 each), as Claude Code prices them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { costOf, loadPrices, PRICES, priceOf, ratesFor } from '../../src/stores/index-sync/prices.js';
import type { StatsRow } from '../../src/stores/index-sync/stats.js';
import { runCli } from '../helpers/cli.js';

const SID = '5b0c2d7e-3f41-4a6b-9c8d-1e2f3a4b5c6d';
let dir: string;
let env: { home: string; env: Record<string, string> };

interface Req {
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h?: number;
  speed?: 'fast';
  inferenceGeo?: string;
  webSearches?: number;
}

// Haiku 5.5 on both sides of 100k, Sonnet 4.5 on both sides of 200k, and a model only the user's file prices
const REQUESTS: Req[] = [
  { model: 'claude-haiku-5-5', input: 1000, output: 500, cacheRead: 49_000, cacheWrite: 0 },
  { model: 'claude-haiku-5-5', input: 2000, output: 700, cacheRead: 140_000, cacheWrite: 8000 },
  { model: 'claude-haiku-5-5', input: 100_000, output: 10, cacheRead: 0, cacheWrite: 0 },
  { model: 'claude-sonnet-4-5-20250929', input: 3000, output: 900, cacheRead: 150_000, cacheWrite: 2000 },
  { model: 'claude-sonnet-4-5-20250929', input: 4000, output: 1100, cacheRead: 240_000, cacheWrite: 6000 },
  { model: 'house-model-1', input: 130_000, output: 100, cacheRead: 0, cacheWrite: 0 },
  { model: 'house-model-1', input: 110_000, output: 100, cacheRead: 0, cacheWrite: 0 },
  { model: 'claude-opus-5-5', input: 100, output: 50, cacheRead: 0, cacheWrite: 3000, cacheWrite1h: 2000 },
  // Opus 4.6 in fast mode, the same tokens at standard speed, kept in the US, with web searches
  { model: 'claude-opus-4-6', input: 1000, output: 200, cacheRead: 10_000, cacheWrite: 0, speed: 'fast' },
  { model: 'claude-opus-4-6', input: 1000, output: 200, cacheRead: 10_000, cacheWrite: 0 },
  { model: 'claude-opus-4-6', input: 2000, output: 100, cacheRead: 0, cacheWrite: 0, inferenceGeo: 'us' },
  { model: 'claude-opus-4-6', input: 500, output: 100, cacheRead: 0, cacheWrite: 0, webSearches: 3 },
  // fast mode for a model without fast rates: its own (here long-prompt) rates
  { model: 'claude-haiku-5-5', input: 2000, output: 700, cacheRead: 140_000, cacheWrite: 8000, speed: 'fast' },
];

// what each request costs, by hand from the published rates (USD per million tokens)
const EXPECTED = [
  1000 * 0.1 + 500 * 0.5 + 49_000 * 0.01,
  2000 * 0.5 + 700 * 2.5 + 140_000 * 0.05 + 8000 * 0.625,
  100_000 * 0.1 + 10 * 0.5, // exactly at the threshold: not above it
  3000 * 3 + 900 * 15 + 150_000 * 0.3 + 2000 * 3.75,
  4000 * 6 + 1100 * 22.5 + 240_000 * 0.6 + 6000 * 7.5,
  130_000 * 2 + 100 * 4,
  110_000 * 1 + 100 * 2,
  100 * 4 + 50 * 20 + 1000 * 5 + 2000 * 8,
  1000 * 30 + 200 * 150 + 10_000 * 3,
  1000 * 5 + 200 * 25 + 10_000 * 0.5,
  (2000 * 5 + 100 * 25) * 1.1,
  500 * 5 + 100 * 25 + 3 * 0.01 * 1e6,
  2000 * 0.5 + 700 * 2.5 + 140_000 * 0.05 + 8000 * 0.625,
].map((c) => c / 1e6);

const HOUSE = { 'house-model-1': { input: 1, output: 2, longPrompt: { above: 120_000, input: 2, output: 4 } } };

function transcript(): string {
  const base = { sessionId: SID, cwd: '/work/long', version: '2.1.0', userType: 'external', isSidechain: false };
  const lines: unknown[] = [];
  let parent: string | null = null;
  REQUESTS.forEach((r, i) => {
    const t = (s: number) => `2026-11-20T10:${String(i).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
    lines.push({
      ...base,
      type: 'user',
      uuid: `u${i}`,
      parentUuid: parent,
      timestamp: t(0),
      message: { role: 'user', content: `q${i}` },
    });
    lines.push({
      ...base,
      type: 'assistant',
      uuid: `a${i}`,
      parentUuid: `u${i}`,
      timestamp: t(1),
      requestId: `req_${i}`,
      message: {
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: r.model,
        content: [{ type: 'text', text: `answer ${i}` }],
        stop_reason: 'end_turn',
        usage: {
          input_tokens: r.input,
          output_tokens: r.output,
          cache_read_input_tokens: r.cacheRead,
          cache_creation_input_tokens: r.cacheWrite,
          ...(r.cacheWrite1h
            ? {
                cache_creation: {
                  ephemeral_5m_input_tokens: r.cacheWrite - r.cacheWrite1h,
                  ephemeral_1h_input_tokens: r.cacheWrite1h,
                },
              }
            : {}),
          ...(r.webSearches ? { server_tool_use: { web_search_requests: r.webSearches, web_fetch_requests: 0 } } : {}),
          service_tier: 'standard',
          speed: r.speed ?? 'standard',
          inference_geo: r.inferenceGeo ?? '',
        },
      },
    });
    parent = `a${i}`;
  });
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-long-prompt-'));
  const project = join(dir, '.claude', 'projects', '-work-long');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, `${SID}.jsonl`), transcript());
  mkdirSync(join(dir, '.threadbase'), { recursive: true });
  writeFileSync(join(dir, '.threadbase', 'prices.json'), JSON.stringify(HOUSE));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('prices each request at the rates its prompt size calls for', () => {
  const table = loadPrices(join(dir, '.threadbase', 'prices.json'));
  REQUESTS.forEach((r, i) => {
    const cost = costOf(priceOf(table, r.model), { ...r, reasoning: 0 });
    expect({ i, cost }).toEqual({ i, cost: expect.closeTo(EXPECTED[i] ?? Number.NaN, 12) });
  });
  // the threshold itself is not above it, as Claude Code compares
  const haiku = priceOf(PRICES, 'claude-haiku-5-5');
  expect(haiku && ratesFor(haiku, 100_000).input).toBe(0.1);
  expect(haiku && ratesFor(haiku, 100_001).input).toBe(0.5);
  // Sonnet 4.6 has no long-prompt rates, though Sonnet 4 and 4.5 (its prefix) have
  expect(priceOf(PRICES, 'claude-sonnet-4-6')?.longPrompt).toBeUndefined();
});

it('stats keeps the requests on either side of each threshold apart when it sums them', async () => {
  const bySession = await runCli(env, ['stats', '--by', 'session', '--json']);
  expect(bySession.code, bySession.err).toBe(0);
  const [row] = JSON.parse(bySession.out) as StatsRow[];
  const total = EXPECTED.reduce((a, b) => a + b, 0);
  expect(row?.key).toBe(SID);
  expect(row?.cost).toBeCloseTo(total, 12);
  expect(row?.messages).toBe(REQUESTS.length);

  const byModel = await runCli(env, ['stats', '--by', 'model', '--json']);
  expect(byModel.code, byModel.err).toBe(0);
  const models = new Map((JSON.parse(byModel.out) as StatsRow[]).map((r) => [r.key, r.cost]));
  const want = new Map<string, number>();
  for (const [i, r] of REQUESTS.entries()) want.set(r.model, (want.get(r.model) ?? 0) + (EXPECTED[i] ?? 0));
  expect(models.size).toBe(want.size);
  for (const [model, cost] of want) expect({ model, cost: models.get(model) }).toEqual({ model, cost: expect.closeTo(cost, 12) });
});

it('export prices the session as stats does', async () => {
  const md = await runCli(env, ['export', SID, '--format', 'md']);
  expect(md.code, md.err).toBe(0);
  const total = EXPECTED.reduce((a, b) => a + b, 0);
  expect(md.out).toContain(`; cost ≈$${total.toFixed(4)}`);
});

it('refuses a price file whose long-prompt rates name no threshold, naming the file', async () => {
  const bad = join(dir, 'bad-prices.json');
  writeFileSync(bad, JSON.stringify({ 'house-model-1': { input: 1, output: 2, longPrompt: { input: 2, output: 4 } } }));
  expect(() => loadPrices(bad)).toThrow(/bad-prices\.json: price of house-model-1/);
  for (const wrong of [{ fast: { input: 2 } }, { webSearch: '0.01' }, { inferenceGeo: { us: 'more' } }]) {
    writeFileSync(bad, JSON.stringify({ 'house-model-1': { input: 1, output: 2, ...wrong } }));
    expect(() => loadPrices(bad)).toThrow(/bad-prices\.json: price of house-model-1/);
  }
  // a user's own fast rates, web search price and place multiplier are taken
  writeFileSync(
    bad,
    JSON.stringify({
      'house-model-1': { input: 1, output: 2, fast: { input: 3, output: 6 }, webSearch: 0.5, inferenceGeo: { eu: 2 } },
    }),
  );
  const own = priceOf(loadPrices(bad), 'house-model-1');
  const u = { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  expect(costOf(own, { ...u, speed: 'fast' })).toBe(3);
  expect(costOf(own, { ...u, inferenceGeo: 'eu', webSearches: 2 })).toBe(1 * 2 + 2 * 0.5);
  expect(costOf(own, { ...u, inferenceGeo: 'us' })).toBe(1);
  writeFileSync(bad, JSON.stringify({ 'house-model-1': { input: 1, output: 2, longPrompt: { input: 2, output: 4 } } }));
  const r = await runCli(env, ['stats', '--prices', bad, '--json']);
  expect(r.code).not.toBe(0);
  expect(r.err).toContain('bad-prices.json');
});
