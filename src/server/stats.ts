/**
 * The team server's `/stats`: what local `threadbase stats` counts, over the sessions of a project.
 * `source` and `project` select sessions; `since` and `until` select responses by their time, so a
 * session spanning either edge counts only its responses inside, as local `stats --since/--until`.
 */
import type { SessionDriver, UsageTotals } from '../model/driver.js';
import type { PriceTable, ResponseStats } from '../model/prices.js';
import { ResponseCounter } from '../stores/index-sync/prices.js';

export interface StatsQuery {
  source?: string | undefined;
  project?: string | undefined;
  /** ISO time: responses at or after it */
  since?: string | undefined;
  /** ISO time: responses at or before it */
  until?: string | undefined;
}

export interface ServerStats {
  /** sessions whose time meets the window (updated at or after `since`, started at or before `until`) */
  sessions: number;
  /** the tokens, recorded cost and number of the responses counted (a copied response once) */
  usage: UsageTotals;
  /** recorded costs plus the rest priced with the server's table */
  cost: number;
  /** the part of `cost` priced from tokens */
  estimatedCost: number;
  /** models with unrecorded tokens the table has no price for */
  unpricedModels: string[];
}

export async function serverStats(store: SessionDriver, q: StatsQuery, prices: PriceTable): Promise<ServerStats> {
  const { since, until } = q;
  // a session with a response in the window was updated after its start and started before its end
  const listed = await store.listSessions({
    ...(q.source ? { source: q.source } : {}),
    ...(q.project ? { project: q.project } : {}),
    ...(since ? { since } : {}),
  });
  const sessions = until ? listed.filter((s) => s.createdAt <= until) : listed;
  let counted: ResponseStats;
  if (store.costSummary) {
    counted = await store.costSummary({ ...q }, prices);
  } else {
    // each session read once, only its counted records kept
    const counter = new ResponseCounter({ since, until });
    for (const info of sessions) {
      const s = await store.getSession(info.id);
      if (s) counter.add(s);
    }
    counted = counter.stats(prices);
  }
  return {
    sessions: sessions.length,
    usage: counted.usage,
    cost: counted.recordedCost + counted.cost,
    estimatedCost: counted.cost,
    unpricedModels: counted.unpricedModels,
  };
}
