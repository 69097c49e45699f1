/**
 * The bundled price table against the agent's own word: Claude Code records no cost per message, but
 * keeps its running cost of the process in `cost-state` records. A session that one process wrote
 * alone, with no sub-agent, must cost by our table what Claude Code says it cost.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { PRICES, priceOf } from '../../src/stores/index-sync/prices.js';
import { runCli } from '../helpers/cli.js';

const PROJECT = join(__dirname, '..', 'fixtures', 'claude', 'real', 'projects', '-tmp-cc-proj2');
const SESSION = '9f7f5cd3-8a7d-4c4a-bd84-0310bdd47949';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

it('prices a real Claude Code session at the cost Claude Code recorded for it', async () => {
  const lines = readFileSync(join(PROJECT, `${SESSION}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; totalCostUSD?: number; modelUsage?: Record<string, unknown> });
  const costStates = lines.filter((r) => r.type === 'cost-state');
  const last = costStates[costStates.length - 1];
  expect(last?.totalCostUSD).toBeGreaterThan(0);
  // the model Claude Code priced is one our table knows
  for (const model of Object.keys(last?.modelUsage ?? {})) expect(priceOf(PRICES, model)).toBeDefined();

  dir = mkdtempSync(join(tmpdir(), 'tb-prices-'));
  cpSync(PROJECT, join(dir, '.claude', 'projects', '-tmp-cc-proj2'), { recursive: true });
  const env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const r = await runCli(env, ['stats', '--by', 'session', '--json']);
  expect(r.code, r.err).toBe(0);
  const row = (JSON.parse(r.out) as { key: string; cost: number }[]).find((x) => x.key === SESSION);
  expect(row?.cost).toBeCloseTo(last?.totalCostUSD ?? 0, 9);
});

it('prices a model named with dots in its version (Copilot CLI, OpenRouter) as the same model with dashes', () => {
  // claude-opus-4.5 is not claude-opus-4, whose price is three times as much
  expect(priceOf(PRICES, 'claude-opus-4.5')).toBe(PRICES['claude-opus-4-5']);
  expect(priceOf(PRICES, 'anthropic/claude-haiku-4.5')).toBe(PRICES['claude-haiku-4-5']);
  expect(priceOf(PRICES, 'claude-3.5-sonnet-20241022')).toBe(PRICES['claude-3-5-sonnet']);
  // names the table keeps with dots still find their own price, not a shorter one
  expect(priceOf(PRICES, 'gpt-4.1-mini-2025-04-14')).toBe(PRICES['gpt-4.1-mini']);
  expect(priceOf(PRICES, 'gpt-4.1')).toBe(PRICES['gpt-4.1']);
  // a user's table may name it either way
  const price = { input: 1, output: 2 };
  expect(priceOf({ 'my-model-2.5': price }, 'my-model-2-5-latest')).toBe(price);
});

it('prices the real Copilot CLI session: claude-haiku-4.5 responses (no recorded cost) by the table', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-prices-'));
  const fixture = join(__dirname, '..', 'fixtures', 'copilot', 'real-1.0.102-compact');
  cpSync(fixture, dir, { recursive: true });
  const env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const r = await runCli(env, ['stats', '--by', 'model', '--json']);
  expect(r.code, r.err).toBe(0);
  const rows = JSON.parse(r.out) as { key: string; cost: number | null; inputTokens: number; outputTokens: number }[];
  const haiku = rows.find((x) => x.key === 'claude-haiku-4.5');
  expect(haiku?.inputTokens).toBeGreaterThan(0);
  const p = PRICES['claude-haiku-4-5'];
  expect(haiku?.cost).toBeGreaterThan(0);
  expect(haiku?.cost).toBeLessThanOrEqual(
    ((haiku?.inputTokens ?? 0) * 2 * (p?.input ?? 0) + (haiku?.outputTokens ?? 0) * (p?.output ?? 0)) / 1e6 + 1e-9,
  );
});
