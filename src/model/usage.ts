import type { UsageTotals } from './driver.js';
import type { Entry, Usage } from './types.js';
import { addUsage, emptyUsage } from './types.js';

export interface UsageSummary {
  usage: Usage;
  cost: number;
  /** assistant responses counted (split records of one response count once) */
  responses: number;
  models: string[];
  /** the counted usage per model ('' for records that name none) */
  byModel: Record<string, Usage>;
}

/**
 * Token and cost totals of a session. One API response split over several records (same
 * responseId) is counted once, with the usage of its last record, as usage tools do.
 */
export function summarizeUsage(entries: readonly Entry[]): UsageSummary {
  const byResponse = new Map<string, { usage?: Usage; cost?: number; model?: string }>();
  let usage = emptyUsage();
  let cost = 0;
  let responses = 0;
  const models = new Set<string>();
  const byModel: Record<string, Usage> = {};
  const addModel = (model: string | undefined, u: Usage | undefined) => {
    if (u) byModel[model ?? ''] = addUsage(byModel[model ?? ''] ?? emptyUsage(), u);
  };
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'assistant') continue;
    const m = e.message;
    if (m.model) models.add(m.model);
    if (m.responseId) {
      if (!byResponse.has(m.responseId)) responses++;
      const prev = byResponse.get(m.responseId);
      // the model goes with the usage it priced (the record that carried it)
      const model = m.usage ? m.model : (prev?.model ?? m.model);
      byResponse.set(m.responseId, { usage: m.usage ?? prev?.usage, cost: m.cost ?? prev?.cost, model });
    } else if (m.usage || m.cost !== undefined) {
      responses++;
      usage = addUsage(usage, m.usage);
      cost += m.cost ?? 0;
      addModel(m.model, m.usage);
    }
  }
  for (const r of byResponse.values()) {
    usage = addUsage(usage, r.usage);
    cost += r.cost ?? 0;
    addModel(r.model, r.usage);
  }
  return { usage, cost, responses, models: [...models], byModel };
}

/**
 * The listing's usage per model, for a session whose usage is split over more than one (a list
 * prices each model's tokens at its own price); undefined otherwise: `usage` and `models` say it all.
 */
export function usageByModelOf(u: Pick<UsageSummary, 'byModel'>): { usageByModel?: Record<string, Usage> } {
  return Object.keys(u.byModel).length > 1 ? { usageByModel: u.byModel } : {};
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
