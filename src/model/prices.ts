/**
 * The shapes of a price table and of what it prices, as the driver interface names them (a store's
 * sessionCosts and costSummary take a table): types only. The bundled table and the pricing itself
 * live in src/stores/index-sync/prices.ts, which re-exports these.
 */
import type { UsageTotals } from './driver.js';

/** USD per million tokens. */
export interface Rates {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** tokens written to a 1-hour cache (Anthropic); without it they cost cacheWrite */
  cacheWrite1h?: number;
}

export interface ModelPrice extends Rates {
  /**
   * Other rates for a request whose prompt (input + cache read + cache write tokens) is above
   * `above` tokens: the whole request is billed at them, as Anthropic, Google and OpenAI bill long prompts.
   */
  longPrompt?: Rates & { above: number };
  /** Rates in fast mode (Usage.speed 'fast'), whatever the prompt's length; a model without them costs its own rates. */
  fast?: Rates;
  /** USD per server-side web search (Usage.webSearches) */
  webSearch?: number;
  /** The tokens' cost times this where the request ran in a given place (Usage.inferenceGeo, e.g. { us: 1.1 }). */
  inferenceGeo?: Record<string, number>;
}

/** Model name prefixes to prices; the longest matching prefix wins. */
export type PriceTable = Record<string, ModelPrice>;

/** What unrecorded usage costs by the table, and the models with tokens it has no price for. */
export interface EstimatedCost {
  cost: number;
  unpricedModels: string[];
}

/** What `stats` counts over many sessions: the costs agents recorded, the rest priced by the table. */
export interface CostSummary extends EstimatedCost {
  /** the costs the agents recorded */
  recordedCost: number;
}

/** Responses by the time of the record that counts them (ISO times, both ends included), as `stats --since/--until`. */
export interface ResponseWindow {
  since?: string | undefined;
  until?: string | undefined;
}

/** What `stats` counts over the responses of many sessions: their tokens and how many, and their cost. */
export interface ResponseStats extends CostSummary {
  /** tokens of the responses counted (advisor requests' included), `cost` the recorded part, `messages` how many */
  usage: UsageTotals;
}
