/** Token counts in one shape, to compare a store's or driver's usage() with the index's stats(). */
import type { UsageTotals } from '../../src/model/driver.js';
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
