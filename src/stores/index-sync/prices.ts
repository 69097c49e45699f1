/**
 * Prices for messages whose agent recorded no cost. Bundled and dated (no network at run time);
 * a user file ($THREADBASE_HOME/prices.json, same shape as PRICES) overrides or adds models.
 * USD per million tokens. Reasoning tokens are billed as output and agents count them in output already.
 */
import { readFileSync } from 'node:fs';
import { CountedResponses, type CountedSession } from '../../model/copies.js';
import type {
  CostSummary,
  EstimatedCost,
  ModelPrice,
  PriceTable,
  Rates,
  ResponseStats,
  ResponseWindow,
} from '../../model/prices.js';
import { addUsage, type Entry, emptyUsage, type Usage } from '../../model/types.js';
import { type CountedUsage, countedUsage, usagePerModel } from '../../model/usage.js';

// the table's shapes are the model's (the driver interface names them); re-exported for every importer here
export type {
  CostSummary,
  EstimatedCost,
  ModelPrice,
  PriceTable,
  Rates,
  ResponseStats,
  ResponseWindow,
} from '../../model/prices.js';

export const PRICES_DATE = '2026-11-22';

/** Fast mode's rates as Claude Code falls back on them, one set for each group of models it names. */
const FAST_5_2: Rates = { input: 16, output: 80, cacheRead: 0.4, cacheWrite: 20, cacheWrite1h: 32 }; // Fable, Mythos 5.2
const FAST_OPUS_5_5: Rates = { input: 8, output: 40, cacheRead: 0.4, cacheWrite: 10, cacheWrite1h: 16 };
const FAST_OPUS_5: Rates = { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5, cacheWrite1h: 20 }; // Opus 5, 4.8
const FAST_OPUS_4_6: Rates = { input: 30, output: 150, cacheRead: 3, cacheWrite: 37.5, cacheWrite1h: 60 }; // Opus 4.6, 4.7

/**
 * Keys are model name prefixes; the longest matching prefix wins.
 * - Claude: as Claude Code 2.1.330 prices them itself (its baked-in model catalog; 1-hour cache
 *   writes at twice the input rate), with Haiku 5.5's long-prompt rates from
 *   the same catalog; Sonnet 4 and 4.5 above 200k prompt tokens as LiteLLM lists them. Fast mode's
 *   rates are the ones Claude Code falls back on for the models it names (Opus 4.6 and 4.7 at six
 *   times their rates, Opus 4.8, 5, 5.5, Fable and Mythos 5.2 at twice).
 * - OpenAI and Google: as the models.dev and LiteLLM snapshots that ccusage 20.0.24 embeds list them
 *   (long-prompt rates from models.dev). OpenAI and Gemini bill no cache writes; their agents record none.
 */
const TABLE: Readonly<Record<string, ModelPrice>> = {
  'claude-mythos-5-2': { input: 8, output: 40, cacheRead: 0.2, cacheWrite: 10, cacheWrite1h: 16, fast: FAST_5_2 },
  'claude-mythos-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5, cacheWrite1h: 20 },
  'claude-mythos-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5, cacheWrite1h: 20 },
  'claude-fable-5-2': { input: 8, output: 40, cacheRead: 0.2, cacheWrite: 10, cacheWrite1h: 16, fast: FAST_5_2 },
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5, cacheWrite1h: 20 },
  'claude-fable-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5, cacheWrite1h: 20 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5, cacheWrite1h: 8, fast: FAST_OPUS_5_5 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10, fast: FAST_OPUS_5 },
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10, fast: FAST_OPUS_5 },
  'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10, fast: FAST_OPUS_4_6 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10, fast: FAST_OPUS_4_6 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, cacheWrite1h: 30 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5, cacheWrite1h: 4 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5, cacheWrite1h: 4 },
  'claude-haiku-5-5': {
    input: 0.1,
    output: 0.5,
    cacheRead: 0.01,
    cacheWrite: 0.125,
    cacheWrite1h: 0.2,
    longPrompt: { above: 100_000, input: 0.5, output: 2.5, cacheRead: 0.05, cacheWrite: 0.625, cacheWrite1h: 1 },
  },
  'claude-3-opus': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, cacheWrite1h: 30 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 },
  'claude-sonnet-4': {
    input: 3,
    output: 15,
    cacheRead: 0.3,
    cacheWrite: 3.75,
    cacheWrite1h: 6,
    longPrompt: { above: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5, cacheWrite1h: 12 },
  },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 },
  'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, cacheWrite1h: 1.6 },
  'gpt-6-astra': {
    input: 10,
    output: 50,
    cacheRead: 1,
    cacheWrite: 12.5,
    longPrompt: { above: 272_000, input: 20, output: 75, cacheRead: 2, cacheWrite: 25 },
  },
  'gpt-5.6-cyber': { input: 12.5, output: 75, cacheRead: 1.25, cacheWrite: 15.625 },
  'gpt-5.6-luna': {
    input: 0.2,
    output: 1.2,
    cacheRead: 0.02,
    cacheWrite: 0.25,
    longPrompt: { above: 272_000, input: 0.4, output: 1.8, cacheRead: 0.04, cacheWrite: 0.5 },
  },
  'gpt-5.6-terra': {
    input: 2,
    output: 12,
    cacheRead: 0.2,
    cacheWrite: 2.5,
    longPrompt: { above: 272_000, input: 4, output: 18, cacheRead: 0.4, cacheWrite: 5 },
  },
  // gpt-5.6 and gpt-5.6-sol
  'gpt-5.6': {
    input: 4,
    output: 20,
    cacheRead: 0.4,
    cacheWrite: 5,
    longPrompt: { above: 272_000, input: 8, output: 30, cacheRead: 0.8, cacheWrite: 10 },
  },
  'gpt-5.5-cyber': { input: 12.5, output: 75, cacheRead: 1.25 },
  'gpt-5.5-pro': { input: 30, output: 180, longPrompt: { above: 272_000, input: 60, output: 270 } },
  'gpt-5.5': { input: 5, output: 30, cacheRead: 0.5, longPrompt: { above: 272_000, input: 10, output: 45, cacheRead: 1 } },
  'gpt-5.4-pro': { input: 30, output: 180, longPrompt: { above: 272_000, input: 60, output: 270 } },
  'gpt-5.4-mini': { input: 0.75, output: 4.5, cacheRead: 0.075 },
  'gpt-5.4-nano': { input: 0.2, output: 1.25, cacheRead: 0.02 },
  'gpt-5.4': { input: 2.5, output: 15, cacheRead: 0.25, longPrompt: { above: 272_000, input: 5, output: 22.5, cacheRead: 0.5 } },
  'gpt-5.3': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.2-pro': { input: 21, output: 168 },
  'gpt-5.2': { input: 1.75, output: 14, cacheRead: 0.175 },
  'gpt-5.1-codex-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-pro': { input: 15, output: 120 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005 },
  // gpt-5, gpt-5-codex, gpt-5.1, gpt-5.1-codex, gpt-5.1-codex-max
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275 },
  'gemini-3.8-flash': { input: 0.75, output: 3.75, cacheRead: 0.075 },
  'gemini-3.7-flash': { input: 0.75, output: 3.75, cacheRead: 0.075 },
  'gemini-3.6-flash': { input: 0.75, output: 3.75, cacheRead: 0.075 },
  'gemini-3.5-flash-lite': { input: 0.3, output: 2.5, cacheRead: 0.03 },
  'gemini-3.5-flash': { input: 1.5, output: 9, cacheRead: 0.15 },
  'gemini-3.1-flash-lite': { input: 0.25, output: 1.5, cacheRead: 0.025 },
  'gemini-3.1-pro': {
    input: 2,
    output: 12,
    cacheRead: 0.2,
    longPrompt: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 },
  },
  'gemini-3-pro': { input: 2, output: 12, cacheRead: 0.2, longPrompt: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 } },
  'gemini-3-flash': { input: 0.5, output: 3, cacheRead: 0.05 },
  'gemini-2.5-pro': {
    input: 1.25,
    output: 10,
    cacheRead: 0.125,
    longPrompt: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
  },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.01 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.03 },
};

/**
 * Terms Claude Code applies to every Claude model (its cost function): a web search costs $0.01 and a
 * request kept in the US (`inference_geo: "us"`) costs 1.1 times its tokens.
 */
const CLAUDE_TERMS = { webSearch: 0.01, inferenceGeo: { us: 1.1 } } as const satisfies Partial<ModelPrice>;

export const PRICES: Readonly<Record<string, ModelPrice>> = Object.fromEntries(
  Object.entries(TABLE).map(([model, price]) => [model, model.startsWith('claude-') ? { ...CLAUDE_TERMS, ...price } : price]),
);

function isRates(v: unknown): v is Rates {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  const optional = (x: unknown) => x === undefined || typeof x === 'number';
  return (
    typeof p.input === 'number' &&
    typeof p.output === 'number' &&
    optional(p.cacheRead) &&
    optional(p.cacheWrite) &&
    optional(p.cacheWrite1h)
  );
}

function isPrice(v: unknown): v is ModelPrice {
  if (!isRates(v)) return false;
  const p = v as { longPrompt?: unknown; fast?: unknown; webSearch?: unknown; inferenceGeo?: unknown };
  const geo = p.inferenceGeo;
  return (
    (p.longPrompt === undefined || (isRates(p.longPrompt) && typeof (p.longPrompt as { above?: unknown }).above === 'number')) &&
    (p.fast === undefined || isRates(p.fast)) &&
    (p.webSearch === undefined || typeof p.webSearch === 'number') &&
    (geo === undefined || (typeof geo === 'object' && geo !== null && Object.values(geo).every((x) => typeof x === 'number')))
  );
}

/** The bundled table with a user file laid over it (a missing file is fine; a bad one is an error). */
export function loadPrices(userFile?: string): PriceTable {
  const table: PriceTable = { ...PRICES };
  if (!userFile) return table;
  let text: string;
  try {
    text = readFileSync(userFile, 'utf8');
  } catch {
    return table;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${userFile}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${userFile}: expected an object of model prices`);
  for (const [model, price] of Object.entries(parsed)) {
    if (!isPrice(price))
      throw new Error(
        `${userFile}: price of ${model} needs numeric input and output (and cacheRead, cacheWrite, longPrompt.above, fast.input and fast.output, webSearch, inferenceGeo's multipliers when given)`,
      );
    table[model] = price;
  }
  return table;
}

/**
 * A model name with its version's dots as dashes: Copilot CLI and OpenRouter say `claude-opus-4.5`
 * where Anthropic says `claude-opus-4-5` (else it would take `claude-opus-4`'s price, three times
 * as much); OpenAI's and Google's dotted names compare alike on both sides.
 */
function versionDashed(name: string): string {
  return name.toLowerCase().replace(/(\d)\.(?=\d)/g, '$1-');
}

export function priceOf(table: PriceTable, model: string | null | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const name = versionDashed(model.slice(model.lastIndexOf('/') + 1));
  let best: string | undefined;
  for (const [key, dashed] of dashedKeys(table)) {
    if (name.startsWith(dashed) && (!best || key.length > best.length)) best = key;
  }
  return best ? table[best] : undefined;
}

const dashedKeysOf = new WeakMap<PriceTable, [string, string][]>();

function dashedKeys(table: PriceTable): [string, string][] {
  const known = dashedKeysOf.get(table);
  if (known) return known;
  const keys = Object.keys(table).map((k): [string, string] => [k, versionDashed(k)]);
  dashedKeysOf.set(table, keys);
  return keys;
}

/** The prompt of a request: what decides whether its long-prompt rates apply. */
export function promptTokens(u: Usage): number {
  return u.input + u.cacheRead + u.cacheWrite;
}

/** The rates a request with a prompt of `prompt` tokens is billed at. */
export function ratesFor(price: ModelPrice, prompt: number): Rates {
  return price.longPrompt && prompt > price.longPrompt.above ? price.longPrompt : price;
}

/**
 * What tokens cost at a model's price. `prompt` picks the long-prompt rates; it defaults to the
 * prompt of `u`, which is right for one request: a caller passing a sum of requests passes a prompt
 * size that stands for all of them.
 */
export function costOf(price: ModelPrice | undefined, u: Usage, prompt = promptTokens(u)): number {
  if (!price) return 0;
  // as Claude Code prices a request: fast mode's rates replace the others, long prompt or not
  const r = u.speed === 'fast' && price.fast ? price.fast : ratesFor(price, prompt);
  const oneHour = u.cacheWrite1h ?? 0;
  const tokens =
    (u.input * r.input +
      u.output * r.output +
      u.cacheRead * (r.cacheRead ?? r.input) +
      (u.cacheWrite - oneHour) * (r.cacheWrite ?? r.input) +
      oneHour * (r.cacheWrite1h ?? r.cacheWrite ?? r.input)) /
    1_000_000;
  const place = u.inferenceGeo !== undefined ? (price.inferenceGeo?.[u.inferenceGeo] ?? 1) : 1;
  return tokens * place + (u.webSearches ?? 0) * (price.webSearch ?? 0);
}

/**
 * The prompt sizes above which some model of the table has other rates, ascending: sums of requests
 * whose prompts all fall between the same two of them can be priced as one request.
 */
export function longPromptThresholds(table: PriceTable): number[] {
  const set = new Set<number>();
  for (const p of Object.values(table)) if (p.longPrompt) set.add(p.longPrompt.above);
  return [...set].sort((a, b) => a - b);
}

/**
 * What a record's tokens cost by the table, when its agent recorded no cost and the table knows its
 * model; undefined otherwise (a recorded cost is the agent's word, and an unknown model has no price).
 */
export function pricedCost(
  prices: PriceTable,
  m: { usage?: Usage | undefined; cost?: number | undefined; model?: string | undefined },
): number | undefined {
  if (m.cost !== undefined || !m.usage) return undefined;
  return responseCost(prices, m.model, m.usage);
}

/**
 * What one response's tokens cost by the table: its model's part and each advisor request at its own
 * model's price; undefined when the table knows none of them.
 */
export function responseCost(prices: PriceTable, model: string | undefined, u: Usage): number | undefined {
  let cost: number | undefined;
  for (const part of usagePerModel(model, u)) {
    const price = priceOf(prices, part.model);
    if (price) cost = (cost ?? 0) + costOf(price, part.usage);
  }
  return cost;
}

/** One model's part of a counted response (CountedUsage) and what it cost. */
export interface ModelPartCost {
  model: string | undefined;
  usage: Usage | undefined;
  /** the recorded cost (on the response's own part; it covers its advisor requests, which get 0), else the part priced; undefined for a model the table does not know */
  cost: number | undefined;
  /** `cost` was priced from tokens: the agent recorded none */
  priced: boolean;
}

/**
 * A counted response split by the model that billed it (usagePerModel: its own model first, then each
 * advisor request), each part with its cost as `stats` counts it.
 */
export function costPerModel(prices: PriceTable, c: CountedUsage): ModelPartCost[] {
  if (!c.usage) return [{ model: c.model, usage: undefined, cost: c.cost, priced: false }];
  return usagePerModel(c.model, c.usage).map((part, i) => {
    if (c.cost !== undefined) return { ...part, cost: i === 0 ? c.cost : 0, priced: false };
    const price = priceOf(prices, part.model);
    return { ...part, cost: price ? costOf(price, part.usage) : undefined, priced: price !== undefined };
  });
}

/** One model's share of a session: its counted usage and what it cost. */
export interface ModelUsageCost {
  /** the model ('' for records that name none) */
  model: string;
  usage: Usage;
  /** recorded costs plus tokens priced with the table; null when there was neither (a model the table does not know) */
  cost: number | null;
  /** part of `cost` was priced from tokens: the agent recorded none */
  estimated: boolean;
  responses: number;
}

/**
 * A session's usage and cost per model, most expensive first, counted as `threadbase stats` counts:
 * one record per response (a split response once), its recorded cost, else its tokens priced.
 */
export function usageCostByModel(entries: readonly Entry[], prices: PriceTable): ModelUsageCost[] {
  const out = new Map<string, ModelUsageCost>();
  const rowOf = (model: string) => {
    const row = out.get(model) ?? { model, usage: emptyUsage(), cost: null, estimated: false, responses: 0 };
    out.set(model, row);
    return row;
  };
  for (const c of countedUsage(entries).values()) {
    costPerModel(prices, c).forEach((part, i) => {
      const r = rowOf(part.model ?? '');
      // an advisor request is no response of its own (as `stats` counts messages)
      if (i === 0) r.responses++;
      if (part.usage) r.usage = addUsage(r.usage, part.usage);
      if (part.cost !== undefined) r.cost = (r.cost ?? 0) + part.cost;
      if (part.priced) r.estimated = true;
    });
  }
  return [...out.values()].sort((a, b) => (b.cost ?? 0) - (a.cost ?? 0) || a.model.localeCompare(b.model));
}

/**
 * The usage of responses whose agent recorded no cost, summed over responses of one model served
 * alike (same speed and place) whose prompts fall in the same band of `longPromptThresholds`: what a
 * store's `unrecordedUsage` answers, so a server prices it as `stats` prices the local index.
 */
export interface UnrecordedUsageGroup {
  model: string | undefined;
  /** how many of the table's thresholds each request's prompt is above */
  band: number;
  /** the summed tokens; with `advisors` only for a group of one response (advisors are priced per request) */
  usage: Usage;
  responses: number;
}

const hasTokens = (u: Usage) => u.input + u.output + u.cacheRead + u.cacheWrite > 0;

/**
 * Prices groups of unrecorded usage as `stats` does: each model's part (advisor requests under their
 * own model) at the rates of its group's band; `thresholds` are the ones the groups were banded by.
 */
export function priceUnrecorded(
  prices: PriceTable,
  thresholds: readonly number[],
  groups: Iterable<UnrecordedUsageGroup>,
): EstimatedCost {
  const { cost, unpricedModels } = priceUnrecordedByModel(prices, thresholds, groups);
  return { cost, unpricedModels };
}

/** priceUnrecorded, its cost split by the model that billed it too ('' for records that name none). */
export function priceUnrecordedByModel(
  prices: PriceTable,
  thresholds: readonly number[],
  groups: Iterable<UnrecordedUsageGroup>,
): EstimatedCost & { costByModel: Record<string, number> } {
  let cost = 0;
  const costByModel: Record<string, number> = {};
  const unpriced = new Set<string>();
  for (const g of groups) {
    usagePerModel(g.model, g.usage).forEach((part, i) => {
      const price = priceOf(prices, part.model);
      if (!price) {
        if (hasTokens(part.usage)) unpriced.add(part.model || 'unknown');
        return;
      }
      // a group's own part is priced at its band's rates; an advisor request (one response) at its own prompt
      const prompt = i === 0 ? (g.band === 0 ? 0 : (thresholds[g.band - 1] ?? 0) + 1) : promptTokens(part.usage);
      const c = costOf(price, part.usage, prompt);
      cost += c;
      costByModel[part.model ?? ''] = (costByModel[part.model ?? ''] ?? 0) + c;
    });
  }
  return { cost, unpricedModels: [...unpriced].sort(), costByModel };
}

/** The part of a session's cost `stats` prices from tokens (responses with no recorded cost). */
export function estimatedCostOf(entries: readonly Entry[], prices: PriceTable): EstimatedCost {
  return estimatedCostOfCounted(countedUsage(entries).values(), prices);
}

/** A session as costOfSessions takes it: what decides which of its copies of a response counts. */
export type CostedSession = CountedSession;

/**
 * The cost of many sessions as the local index's `stats` counts it: one record per response
 * (countedUsage), and a response copied into several sessions (a resumed or forked session repeats
 * its history) once, in the copy the index prefers (CopyChoice, src/model/copies.ts).
 */
export function costOfSessions(sessions: Iterable<CostedSession>, prices: PriceTable): CostSummary {
  const { usage: _usage, ...cost } = statsOfSessions(sessions, prices);
  return cost;
}

/**
 * What local `stats` counts over many sessions' responses: their tokens (advisor requests' too),
 * how many, and their cost (recorded, the rest priced), each response once (costOfSessions), only
 * responses whose counted record's time is inside `window` (a session spanning its edge counts
 * only its responses inside, as `stats --since/--until` counts).
 */
export function statsOfSessions(
  sessions: Iterable<CostedSession>,
  prices: PriceTable,
  window: ResponseWindow = {},
): ResponseStats {
  const counter = new ResponseCounter(window);
  for (const s of sessions) counter.add(s);
  return counter.stats(prices);
}

/**
 * statsOfSessions one session at a time (a server reads each session once and keeps only its
 * counted records): `add` each session, then `stats`. The counting is CountedResponses'
 * (src/model/copies.ts), as a driver's usage() counts; this prices it.
 */
export class ResponseCounter {
  private readonly counted: CountedResponses;

  constructor(window: ResponseWindow = {}) {
    this.counted = new CountedResponses(window);
  }

  add(s: CostedSession): void {
    this.counted.add(s);
  }

  stats(prices: PriceTable): ResponseStats {
    const usage = this.counted.totals();
    return { recordedCost: usage.cost, ...estimatedCostOfCounted(this.counted.values(), prices), usage };
  }
}

function estimatedCostOfCounted(counted: Iterable<CountedUsage>, prices: PriceTable): EstimatedCost {
  let cost = 0;
  const unpriced = new Set<string>();
  for (const c of counted) {
    if (c.cost !== undefined) continue;
    for (const part of costPerModel(prices, c)) {
      if (part.priced) cost += part.cost ?? 0;
      else if (part.usage && hasTokens(part.usage)) unpriced.add(part.model || 'unknown');
    }
  }
  return { cost, unpricedModels: [...unpriced].sort() };
}
