/** How ccusage counts what we count otherwise, for comparing the two (bench/run.ts, test/index/ccusage.test.ts). */
import type { StatsRow } from '../src/stores/index-sync/stats.js';

/** Agents whose own output count leaves the reasoning tokens out, as ccusage gives it; ours counts them in output. */
export const REASONING_APART: ReadonlySet<string> = new Set(['opencode', 'gemini']);

/** A row's output tokens as ccusage counts them. */
export function ccusageOutput(row: Pick<StatsRow, 'source' | 'outputTokens' | 'reasoningTokens'>): number {
  return REASONING_APART.has(row.source ?? '') ? row.outputTokens - row.reasoningTokens : row.outputTokens;
}
