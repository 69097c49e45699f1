/** Token counts in one shape, to compare a store's or driver's usage() with the index's stats(); a response's usage made. */
import type { UsageTotals } from '../../src/model/driver.js';
import type { Usage } from '../../src/model/types.js';
import type { StatsRow } from '../../src/stores/index-sync/stats.js';

export interface TokenCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  messages: number;
}

/** usage()'s totals as TokenCounts */
export const tokenCounts = (u: UsageTotals): TokenCounts => ({
  input: u.input,
  output: u.output,
  cacheRead: u.cacheRead,
  cacheWrite: u.cacheWrite,
  messages: u.messages,
});

/** stats() rows summed as TokenCounts */
export const statsTokenCounts = (rows: readonly StatsRow[]): TokenCounts => ({
  input: rows.reduce((n, r) => n + r.inputTokens, 0),
  output: rows.reduce((n, r) => n + r.outputTokens, 0),
  cacheRead: rows.reduce((n, r) => n + r.cacheReadTokens, 0),
  cacheWrite: rows.reduce((n, r) => n + r.cacheWriteTokens, 0),
  messages: rows.reduce((n, r) => n + r.messages, 0),
});

/** A response's usage of `input` and `output` tokens, nothing cached or reasoned unless `extra` says so. */
export const usageOf = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  ...extra,
});
