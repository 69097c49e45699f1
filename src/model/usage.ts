import type { UsageTotals } from './driver.js';
import type { AdvisorUsage, Entry, Usage } from './types.js';
import { addUsage, emptyUsage } from './types.js';

/** What a record says of a model response's usage (the fields an assistant message has). */
export interface ResponseRecord {
  usage?: Usage | undefined;
  cost?: number | undefined;
  model?: string | undefined;
  responseId?: string | undefined;
}

/**
 * The records usage is counted from: assistant messages, and compactions whose summary's request the
 * agent recorded (CompactionEntry.usage); undefined for every other entry.
 */
export function responseRecordOf(e: Entry): ResponseRecord | undefined {
  if (e.kind === 'message') return e.message.role === 'assistant' ? e.message : undefined;
  if (e.kind === 'compaction' && (e.usage !== undefined || e.cost !== undefined)) return e;
  return undefined;
}

/** An advisor request as a usage of its own model, served where its response was. */
export function advisorAsUsage(a: AdvisorUsage, served: Usage): Usage {
  return {
    input: a.input,
    output: a.output,
    cacheRead: a.cacheRead,
    cacheWrite: a.cacheWrite,
    ...(a.cacheWrite1h ? { cacheWrite1h: a.cacheWrite1h } : {}),
    reasoning: 0,
    ...(served.inferenceGeo ? { inferenceGeo: served.inferenceGeo } : {}),
  };
}

/**
 * A response's usage split by the model that billed it: its own model's part (advisors left out),
 * then each advisor request under its model, as Claude Code counts and prices them.
 */
export function usagePerModel(model: string | undefined, u: Usage): { model: string | undefined; usage: Usage }[] {
  if (!u.advisors?.length) return [{ model, usage: u }];
  const { advisors, ...own } = u;
  return [{ model, usage: own }, ...advisors.map((a) => ({ model: a.model, usage: advisorAsUsage(a, u) }))];
}

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
 * responseId) is counted once, with the usage of its last record, as usage tools do, under the
 * model countedUsage names it by (so a listing's usageByModel and `stats --by model` agree).
 */
export function summarizeUsage(entries: readonly Entry[]): UsageSummary {
  const byResponse = new Map<string, { usage?: Usage; cost?: number; model?: string }>();
  let usage = emptyUsage();
  let cost = 0;
  let responses = 0;
  const models = new Set<string>();
  const byModel: Record<string, Usage> = {};
  /** a response's usage into the totals and, per model that billed it, into byModel */
  const add = (model: string | undefined, u: Usage | undefined) => {
    if (!u) return;
    for (const part of usagePerModel(model, u)) {
      if (part.model) models.add(part.model);
      usage = addUsage(usage, part.usage);
      byModel[part.model ?? ''] = addUsage(byModel[part.model ?? ''] ?? emptyUsage(), part.usage);
    }
  };
  for (const e of entries) {
    const m = responseRecordOf(e);
    if (!m) continue;
    if (m.model) models.add(m.model);
    if (m.responseId) {
      if (!byResponse.has(m.responseId)) responses++;
      const prev = byResponse.get(m.responseId);
      // named as countedUsage names it (and stats --by model counts it): by its last record with usage
      // or a cost that names a model, else by its first record
      const has = m.usage !== undefined || m.cost !== undefined;
      const model = prev && !(has && m.model !== undefined) ? prev.model : m.model;
      byResponse.set(m.responseId, { usage: m.usage ?? prev?.usage, cost: m.cost ?? prev?.cost, model });
    } else if (m.usage || m.cost !== undefined) {
      responses++;
      cost += m.cost ?? 0;
      add(m.model, m.usage);
    }
  }
  for (const r of byResponse.values()) {
    cost += r.cost ?? 0;
    add(r.model, r.usage);
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

/** What one counted record stands for: its response's usage, cost and the model that priced it. */
export interface CountedUsage {
  usage?: Usage;
  cost?: number;
  model?: string;
}

/**
 * The records whose usage counts, as summarizeUsage counts: every record without a responseId that
 * has usage or a cost, and one per responseId (the last carrying either, else the last). A split
 * response's record carries the usage of its last record with usage and the cost of its last record
 * with a cost, each taken on its own, as summarizeUsage takes them, and the model of its last record
 * with either that names one (the record it is dated by: every store names a response so), else of its
 * first record.
 */
export function countedUsage(entries: readonly Entry[]): Map<string, CountedUsage> {
  const out = new Map<string, CountedUsage>();
  const byResponse = new Map<string, { last: string; lastWithUsage?: string; counted: CountedUsage }>();
  for (const e of entries) {
    const m = responseRecordOf(e);
    if (!m) continue;
    const has = m.usage !== undefined || m.cost !== undefined;
    if (!m.responseId) {
      if (has) out.set(e.id, countedOf(m.usage, m.cost, m.model));
      continue;
    }
    const r = byResponse.get(m.responseId) ?? { last: e.id, counted: countedOf(undefined, undefined, m.model) };
    r.last = e.id;
    if (has) r.lastWithUsage = e.id;
    if (m.usage) r.counted.usage = m.usage;
    if (m.cost !== undefined) r.counted.cost = m.cost;
    if (has && m.model !== undefined) r.counted.model = m.model;
    byResponse.set(m.responseId, r);
  }
  for (const r of byResponse.values()) out.set(r.lastWithUsage ?? r.last, r.counted);
  return out;
}

function countedOf(usage: Usage | undefined, cost: number | undefined, model: string | undefined): CountedUsage {
  const c: CountedUsage = {};
  if (usage) c.usage = usage;
  if (cost !== undefined) c.cost = cost;
  if (model !== undefined) c.model = model;
  return c;
}

/** A driver's `usage()` answer over nothing: every count and the cost 0. */
export function emptyUsageTotals(): UsageTotals {
  return { ...emptyUsage(), cost: 0, messages: 0 };
}

/** Totals over many sessions' summaries (what a driver's `usage()` answers). */
export function totalUsage(summaries: Iterable<UsageSummary>): UsageTotals {
  const totals = emptyUsageTotals();
  for (const u of summaries) {
    Object.assign(totals, addUsage(totals, u.usage));
    totals.cost += u.cost;
    totals.messages += u.responses;
  }
  return totals;
}
