/** Token and cost totals from the index, grouped by time, model, project, session or source. */
import type { CostBucket } from '../../model/driver.js';
import { wallClockAt, zoneOffsetAt } from '../../model/time-window.js';
import { ADVISOR_ROWS, advisorCount } from '../sqlite/advisors.js';
import { asBytes, textOfColumn } from '../sqlite/column-text.js';
import { preferredAmong } from '../sqlite/copies.js';
import type { SqliteStore } from '../sqlite/index.js';
import { Where } from '../sqlite/where.js';
import { costOf, longPromptThresholds, type PriceTable, priceOf } from './prices.js';

export type StatsBy = 'day' | 'week' | 'month' | 'model' | 'project' | 'session' | 'source';
export const STATS_BY: readonly StatsBy[] = ['day', 'week', 'month', 'model', 'project', 'session', 'source'];

export interface StatsRow {
  key: string;
  source?: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  cost: number;
  messages: number;
  /**
   * Models with tokens left out of `cost`: no cost recorded by the agent and no price known for the
   * model (a row whose cost is 0 for that reason could not otherwise be told from a free one); absent
   * when the whole cost is known.
   */
  unpricedModels?: string[];
  /** with StatsOptions.costByModel: `cost` by the model that billed it ('' for records that name none) */
  costByModel?: Record<string, number>;
}

/** A stats row in the stores' chart terms (SessionDriver.costBuckets). */
export function costBucketOf(r: StatsRow): CostBucket {
  return {
    key: r.key,
    input: r.inputTokens,
    output: r.outputTokens,
    cacheRead: r.cacheReadTokens,
    cacheWrite: r.cacheWriteTokens,
    reasoning: r.reasoningTokens,
    cost: r.cost,
    responses: r.messages,
  };
}

export interface StatsOptions {
  by?: StatsBy;
  since?: string;
  until?: string;
  source?: string;
  project?: string;
  /** only these sessions */
  sessionIds?: readonly string[];
  /**
   * Count each session's own records, a copy's too (what the session's own listing shows), instead
   * of each copied response once among the sessions selected (source, project, sessionIds), in the
   * copy the rule prefers there (preferredAmong), as PostgreSQL and a server's ResponseCounter count
   * a set of sessions: a response counts when any of its copies is selected.
   */
  ownRecords?: boolean;
  /** Each row's cost split by the model that billed it too (StatsRow.costByModel). */
  costByModel?: boolean;
  /** The IANA zone whose calendar days, ISO weeks and months `by` day, week and month count; absent: UTC. */
  timeZone?: string;
}

// ---------------------------------------------------------------------------------------------
// Days in a time zone

// The zone's wall clock lives in model/time-window.ts (the CLI and the server read --since/--until in it too).

/** The calendar day (YYYY-MM-DD) of UTC instant `t` in `timeZone`. */
function dayAt(timeZone: string, t: number): string {
  return new Date(wallClockAt(timeZone, t)).toISOString().slice(0, 10);
}

/**
 * The day (YYYY-MM-DD) an ISO time falls on in `timeZone`; without one (or UTC) its UTC date. A time
 * Date cannot read keeps its first ten characters, as the index's UTC days do.
 */
export function dayIn(timeZone: string | undefined): (iso: string) => string {
  if (!timeZone || timeZone === 'UTC') return (iso) => iso.slice(0, 10);
  const days = new Map<string, string>();
  return (iso) => {
    let day = days.get(iso);
    if (day === undefined) {
      const t = Date.parse(iso);
      day = Number.isNaN(t) ? iso.slice(0, 10) : dayAt(timeZone, t);
      days.set(iso, day);
    }
    return day;
  };
}

/** Monday of the ISO week of day `day` (YYYY-MM-DD), as SQLite's date(d, '-6 days', 'weekday 1'). */
export function mondayOf(day: string): string {
  const t = Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(t)) return day;
  const d = new Date(t);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

/**
 * How a store groups records' UTC times so a zone's days are whole groups: by UTC date where the zone
 * is UTC all year, by UTC hour where its offsets are whole hours (its clock changes at a whole UTC
 * hour too), else by UTC quarter hour (Asia/Kathmandu's +05:45, Australia/Lord_Howe's half-hour DST).
 */
export type TimeSlot = 'day' | 'hour' | 'quarter';

const slotOfZone = new Map<string, TimeSlot>();
/**
 * The slot `timeZone` needs, from its offsets in January and July of 1970 to 2069 (winter and summer
 * time on either side of the equator), read once a zone: each month's took a CLI call 40 ms.
 */
export function timeSlotOf(timeZone: string | undefined): TimeSlot {
  if (!timeZone || timeZone === 'UTC') return 'day';
  let slot = slotOfZone.get(timeZone);
  if (!slot) {
    let zero = true;
    let whole = true;
    for (let year = 1970; year < 2070; year++)
      for (const month of [0, 6]) {
        const offset = zoneOffsetAt(timeZone, Date.UTC(year, month, 1));
        zero &&= offset === 0;
        whole &&= offset % 3_600_000 === 0;
      }
    slot = zero ? 'day' : whole ? 'hour' : 'quarter';
    slotOfZone.set(timeZone, slot);
  }
  return slot;
}

/**
 * The day, week (its Monday) or month in `timeZone` of a slot key as timeSlotOf's SQL writes it
 * ('2026-03-08T10' an hour, '2026-03-08T10:45' a quarter hour), memoized: the keys of a store's
 * groups, folded into the zone's.
 */
export function zonedKeyOfSlot(timeZone: string, by: 'day' | 'week' | 'month'): (slot: string) => string {
  const keys = new Map<string, string>();
  return (slot) => {
    let key = keys.get(slot);
    if (key === undefined) {
      const t = Date.parse(slot.length === 13 ? `${slot}:00:00Z` : `${slot}:00Z`);
      const day = Number.isNaN(t) ? slot.slice(0, 10) : dayAt(timeZone, t);
      key = by === 'day' ? day : by === 'week' ? mondayOf(day) : day.slice(0, 7);
      keys.set(slot, key);
    }
    return key;
  };
}

/** SQL (SQLite's) of the UTC slot of `e.timestamp` a zone's day is a whole number of. */
const SLOT_KEY: Record<Exclude<TimeSlot, 'day'>, string> = {
  hour: 'substr(e.timestamp, 1, 13)',
  quarter: `substr(e.timestamp, 1, 14) || CASE WHEN substr(e.timestamp, 15, 2) GLOB '[0-9][0-9]'
              THEN printf('%02d', CAST(substr(e.timestamp, 15, 2) AS INTEGER) / 15 * 15) ELSE '' END`,
};

const UTC_KEY: Record<StatsBy, string> = {
  day: 'substr(e.timestamp, 1, 10)',
  // Monday of the ISO week
  week: "date(e.timestamp, '-6 days', 'weekday 1')",
  month: 'substr(e.timestamp, 1, 7)',
  model: "coalesce(e.model, 'unknown')",
  project: "coalesce(s.project, '')",
  session: 's.id',
  source: 's.source',
};

/** The sessions `opts` selects, as terms over `s`. */
function sessionsWhere(opts: StatsOptions): Where {
  const sessions = new Where().given(opts.source, 's.source = ?').given(opts.project, 's.project = ?');
  // one JSON parameter, not one per id: a server project of thousands of sessions stays under
  // SQLite's 32,766 parameters (the ids appear several times in a query)
  if (opts.sessionIds) sessions.add('s.id IN (SELECT value FROM json_each(?))', JSON.stringify(opts.sessionIds));
  return sessions;
}

const inWindow = (w: Where, opts: StatsOptions): Where =>
  w.given(opts.since, 'e.timestamp >= ?').given(opts.until, 'e.timestamp <= ?');

/**
 * The counted records `stats` sums for `opts` (entries `e` of sessions `s`): a copied response once
 * among the sessions (preferredAmong). A session's own records (ownRecords) are countedParts'.
 */
export function countedWhere(opts: StatsOptions): Where {
  return inWindow(preferredAmong(sessionsWhere(opts)), opts);
}

/**
 * The records `stats` sums for `opts`, as parts it sums apart, each read through an index of its own. A session's
 * own records (ownRecords) are the copies that count, read from their covering index
 * (entries_counted, `counted = 1`), and the copies that do not (entries_copied, `counted = 2`: few):
 * `counted > 0` matched neither partial index's term, so every record was read from its row among the
 * JSON (a viewer's prices of every session, 200 MB index: 0.9 s; 30 ms from the index).
 */
function countedParts(opts: StatsOptions): Where[] {
  if (!opts.ownRecords) return [countedWhere(opts)];
  const sessions = sessionsWhere(opts);
  return [1, 2].map((counted) => inWindow(new Where().add(`e.counted = ${counted}`).add(sessions.sql, ...sessions.args), opts));
}

export function stats(store: SqliteStore, prices: PriceTable, opts: StatsOptions = {}): StatsRow[] {
  const by = opts.by ?? 'day';
  // a zone's days as its UTC hours (quarter hours) grouped in SQL, folded to the zone's days below:
  // a date computed for each record in SQL or a function of ours would cost every record a call
  const slot = by === 'day' || by === 'week' || by === 'month' ? timeSlotOf(opts.timeZone) : 'day';
  const zoned = slot !== 'day' && opts.timeZone ? zonedKeyOfSlot(opts.timeZone, by as 'day' | 'week' | 'month') : undefined;
  const KEY = slot === 'day' ? UTC_KEY : { ...UTC_KEY, day: SLOT_KEY[slot], week: SLOT_KEY[slot], month: SLOT_KEY[slot] };
  // Grouped by model, by whether the agent recorded a cost, by the band of the table's long-prompt
  // thresholds each request's prompt falls in and by how it was served (fast mode, where it ran), so
  // unrecorded costs can be priced as one request a group. Advisor requests (kept as JSON on their
  // response's record) are grouped the same way under their own model, as tokens and no messages.
  const thresholds = longPromptThresholds(prices);
  const bandOf = (prompt: string) => (thresholds.length ? thresholds.map(() => `(${prompt} > ?)`).join(' + ') : '0');
  // The sessions joined only where the key or a term names them: a record's session looked up for
  // each counted record cost a `stats --by day` a fifth of its time.
  const needsSessions = (where: Where) => by === 'session' || /\bs\./.test(`${KEY[by]} ${where.sql}`);
  // key and model as bytes: a project or model with a lone surrogate comes back as written (column-text.ts)
  const own = (
    where: Where,
  ) => `SELECT ${asBytes(KEY[by])} key, ${by === 'session' ? 's.source' : 'NULL'} source, ${asBytes('e.model')} model, e.cost IS NOT NULL recorded,
         ${bandOf('coalesce(e.input,0) + coalesce(e.cache_read,0) + coalesce(e.cache_write,0)')} band, e.speed speed,
         e.inference_geo inferenceGeo, coalesce(sum(e.input),0) input, coalesce(sum(e.output),0) output,
         coalesce(sum(e.cache_read),0) cacheRead, coalesce(sum(e.cache_write),0) cacheWrite,
         coalesce(sum(e.cache_write_1h),0) cacheWrite1h, coalesce(sum(e.reasoning),0) reasoning,
         coalesce(sum(e.web_searches),0) webSearches, coalesce(sum(e.cost),0) cost, count(*) messages
       FROM entries e${needsSessions(where) ? ' JOIN sessions s ON s.id = e.session_id' : ''}
       WHERE ${where.sql}
       GROUP BY 1, 2, 3, 4, 5, 6, 7`;
  const advisorModel = "json_extract(a.value, '$.model')";
  const advisors = (
    where: Where,
  ) => `SELECT ${asBytes(by === 'model' ? advisorModel : KEY[by])} key, ${by === 'session' ? 's.source' : 'NULL'} source,
         ${asBytes(advisorModel)} model, e.cost IS NOT NULL recorded,
         ${bandOf(`${advisorCount('input')} + ${advisorCount('cacheRead')} + ${advisorCount('cacheWrite')}`)} band, NULL speed,
         e.inference_geo inferenceGeo, sum(${advisorCount('input')}) input, sum(${advisorCount('output')}) output,
         sum(${advisorCount('cacheRead')}) cacheRead, sum(${advisorCount('cacheWrite')}) cacheWrite,
         sum(${advisorCount('cacheWrite1h')}) cacheWrite1h, 0 reasoning, 0 webSearches, 0 cost, 0 messages
       FROM ${ADVISOR_ROWS}
       WHERE ${where.sql} AND e.advisors IS NOT NULL
       GROUP BY 1, 2, 3, 4, 5, 6, 7`;
  // each part's rows and its advisor requests' (parts of one key are added up below)
  const parts = countedParts(opts);
  const rows = (
    store.db
      .prepare(parts.map((w) => `${own(w)} UNION ALL ${advisors(w)}`).join(' UNION ALL '))
      .all(...parts.flatMap((w) => [...thresholds, ...w.args, ...thresholds, ...w.args])) as {
      key: Uint8Array;
      model: Uint8Array | null;
    }[]
  ).map((r) => {
    const key = textOfColumn(r.key) ?? '';
    return { ...r, key: zoned ? zoned(key) : key, model: textOfColumn(r.model) };
  }) as {
    key: string;
    source: string | null;
    model: string | null;
    recorded: number;
    band: number;
    speed: string | null;
    inferenceGeo: string | null;
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    cacheWrite1h: number;
    reasoning: number;
    webSearches: number;
    cost: number;
    messages: number;
  }[];
  const out = new Map<string, StatsRow>();
  for (const r of rows) {
    const id = `${r.key}\u0000${r.source ?? ''}`;
    let row = out.get(id);
    if (!row) {
      row = {
        key: r.key,
        ...(r.source !== null ? { source: r.source } : {}),
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
        cost: 0,
        messages: 0,
      };
      out.set(id, row);
    }
    row.inputTokens += r.input;
    row.outputTokens += r.output;
    row.cacheReadTokens += r.cacheRead;
    row.cacheWriteTokens += r.cacheWrite;
    row.reasoningTokens += r.reasoning;
    row.messages += r.messages;
    const price = r.recorded ? undefined : priceOf(prices, r.model);
    if (!r.recorded && !price && r.input + r.output + r.cacheRead + r.cacheWrite > 0) {
      const model = r.model ?? 'unknown';
      row.unpricedModels ??= [];
      if (!row.unpricedModels.includes(model)) row.unpricedModels.push(model);
    }
    const cost = r.recorded
      ? r.cost
      : costOf(
          price,
          {
            input: r.input,
            output: r.output,
            cacheRead: r.cacheRead,
            cacheWrite: r.cacheWrite,
            cacheWrite1h: r.cacheWrite1h,
            reasoning: r.reasoning,
            ...(r.webSearches ? { webSearches: r.webSearches } : {}),
            ...(r.speed === 'fast' ? { speed: 'fast' as const } : {}),
            ...(r.inferenceGeo !== null ? { inferenceGeo: r.inferenceGeo } : {}),
          },
          r.band === 0 ? 0 : (thresholds[r.band - 1] ?? 0) + 1,
        );
    row.cost += cost;
    if (opts.costByModel) {
      row.costByModel ??= {};
      row.costByModel[r.model ?? ''] = (row.costByModel[r.model ?? ''] ?? 0) + cost;
    }
  }
  const list = [...out.values()];
  for (const r of list) r.unpricedModels?.sort();
  const timeKey = by === 'day' || by === 'week' || by === 'month';
  list.sort((a, b) => (timeKey ? (a.key < b.key ? -1 : 1) : b.cost - a.cost || b.messages - a.messages));
  return list;
}
