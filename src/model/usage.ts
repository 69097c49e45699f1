import type { UsageTotals } from './driver.js';
import type { Entry, Usage } from './types.js';
import { addUsage, emptyUsage } from './types.js';

export interface UsageSummary {
  usage: Usage;
  cost: number;
  /** assistant responses counted (split records of one response count once) */
  responses: number;
  models: string[];
}

/**
 * Token and cost totals of a session. One API response split over several records (same
 * responseId) is counted once, with the usage of its last record, as usage tools do.
 */
export function summarizeUsage(entries: readonly Entry[]): UsageSummary {
  const byResponse = new Map<string, { usage?: Usage; cost?: number }>();
  let usage = emptyUsage();
  let cost = 0;
  let responses = 0;
  const models = new Set<string>();
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'assistant') continue;
    const m = e.message;
    if (m.model) models.add(m.model);
    if (m.responseId) {
      if (!byResponse.has(m.responseId)) responses++;
      const prev = byResponse.get(m.responseId);
      byResponse.set(m.responseId, { usage: m.usage ?? prev?.usage, cost: m.cost ?? prev?.cost });
    } else if (m.usage || m.cost !== undefined) {
      responses++;
      usage = addUsage(usage, m.usage);
      cost += m.cost ?? 0;
    }
  }
  for (const r of byResponse.values()) {
    usage = addUsage(usage, r.usage);
    cost += r.cost ?? 0;
  }
  return { usage, cost, responses, models: [...models] };
}

/** Which records' usage counts, as summarizeUsage counts: one per response, the last carrying usage. */
export function countedIds(entries: readonly Entry[]): Set<string> {
  const out = new Set<string>();
  const byResponse = new Map<string, { last: string; lastWithUsage?: string }>();
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'assistant') continue;
    const m = e.message;
    const has = m.usage !== undefined || m.cost !== undefined;
    if (!m.responseId) {
      if (has) out.add(e.id);
      continue;
    }
    const r = byResponse.get(m.responseId) ?? { last: e.id };
    r.last = e.id;
    if (has) r.lastWithUsage = e.id;
    byResponse.set(m.responseId, r);
  }
  for (const r of byResponse.values()) out.add(r.lastWithUsage ?? r.last);
  return out;
}

/** Totals over many sessions' summaries (what a driver's `usage()` answers). */
export function totalUsage(summaries: Iterable<UsageSummary>): UsageTotals {
  const totals: UsageTotals = { ...emptyUsage(), cost: 0, messages: 0 };
  for (const u of summaries) {
    Object.assign(totals, addUsage(totals, u.usage));
    totals.cost += u.cost;
    totals.messages += u.responses;
  }
  return totals;
}
