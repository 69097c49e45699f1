/**
 * Which models of each `stats` row are left out of its cost: tokens whose agent recorded no cost,
 * of a model the price table has no price for. stats() prices those at nothing, so without this a
 * row's `0.0000` could not be told from a free model's.
 */
import { type PriceTable, priceOf } from '../stores/index-sync/prices.js';
import type { StatsBy, StatsOptions, StatsRow } from '../stores/index-sync/stats.js';
import type { SqliteStore } from '../stores/sqlite/index.js';
import { Where } from '../stores/sqlite/where.js';

/** stats.ts's grouping keys, as that file groups (a test holds the two to the same keys). */
const KEY: Record<StatsBy, string> = {
  day: 'substr(e.timestamp, 1, 10)',
  week: "date(e.timestamp, '-6 days', 'weekday 1')",
  month: 'substr(e.timestamp, 1, 7)',
  model: "coalesce(e.model, 'unknown')",
  project: "coalesce(s.project, '')",
  session: 's.id',
  source: 's.source',
};

/** The row's id as stats() keys its rows: its key, and its agent when grouped by session. */
export const statsRowId = (r: Pick<StatsRow, 'key' | 'source'>): string => `${r.key}\u0000${r.source ?? ''}`;

/**
 * The models with tokens left out of the cost, by statsRowId, for the rows stats(store, prices,
 * opts) gives; a row with none is not in the map. Advisor requests are not looked at.
 */
export function unpricedModels(
  store: SqliteStore,
  prices: PriceTable,
  opts: Pick<StatsOptions, 'by' | 'since' | 'until' | 'source' | 'project'>,
): Map<string, string[]> {
  const by = opts.by ?? 'day';
  const where = new Where()
    .add('e.counted = 1')
    .add('e.cost IS NULL')
    .add('coalesce(e.input,0) + coalesce(e.output,0) + coalesce(e.cache_read,0) + coalesce(e.cache_write,0) > 0')
    .given(opts.since, 'e.timestamp >= ?')
    .given(opts.until, 'e.timestamp <= ?')
    .given(opts.source, 's.source = ?')
    .given(opts.project, 's.project = ?');
  const rows = store.db
    .prepare(
      `SELECT DISTINCT ${KEY[by]} key, ${by === 'session' ? 's.source' : 'NULL'} source, e.model model
       FROM entries e JOIN sessions s ON s.id = e.session_id WHERE ${where.sql} ORDER BY 3`,
    )
    .all(...where.args) as { key: string; source: string | null; model: string | null }[];
  const out = new Map<string, string[]>();
  for (const r of rows) {
    if (priceOf(prices, r.model)) continue;
    const id = statsRowId({ key: r.key, ...(r.source !== null ? { source: r.source } : {}) });
    const models = out.get(id) ?? [];
    const name = r.model ?? 'unknown';
    if (!models.includes(name)) models.push(name);
    out.set(id, models);
  }
  return out;
}
