/**
 * The times `--since` / `--until` and the server's `since` / `until` take: an ISO date (2026-11-25,
 * 2026-11, 2026) or an ISO date and time. windowStart/windowEnd read a date as a UTC day and a time
 * without an offset as this machine's local time (as Date reads it); zonedWindowStart/zonedWindowEnd
 * read both in a zone named (the CLI's --tz, the server's `tz`, UTC when a server is given none), and
 * readTimeWindow reads a since/until pair with them for the CLI, the HTTP API and the viewer alike.
 * Anything else is refused: Date alone took 2026-02-30 for March 2 and 2026/11/25 for local midnight,
 * which an until then did not count to the day's end.
 */

const DATE_ONLY = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
/** An ISO 8601 time: a date, then hours and minutes (seconds and their fraction optional) and an optional offset. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** The instant an ISO date or time names (a date alone: its start), or undefined when it names none on the calendar. */
function parseIsoTime(value: string): Date | undefined {
  const v = value.trim();
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00'] =
    DATE_ONLY.exec(v) ?? DATE_TIME.exec(v) ?? [];
  const d = new Date(v);
  const valid =
    year !== undefined &&
    !Number.isNaN(d.getTime()) &&
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    // the month's last day: day 0 of the next month
    Number(day) <= new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59;
  return valid ? d : undefined;
}

/** A window's start: the instant `value` names (a date alone: its start), as a UTC ISO string. */
export function windowStart(value: string): string | undefined {
  return parseIsoTime(value)?.toISOString();
}

/**
 * A window's end: the last instant `value` covers, as a UTC ISO string; a date alone covers its whole
 * day (month, year), so since 2026-11-25 until 2026-11-25 is that day.
 */
export function windowEnd(value: string): string | undefined {
  const start = parseIsoTime(value);
  if (!start) return undefined;
  const m = DATE_ONLY.exec(value.trim());
  if (!m) return start.toISOString();
  const end = new Date(start);
  if (m[3]) end.setUTCDate(end.getUTCDate() + 1);
  else if (m[2]) end.setUTCMonth(end.getUTCMonth() + 1);
  else end.setUTCFullYear(end.getUTCFullYear() + 1);
  return new Date(end.getTime() - 1).toISOString();
}

// ---------------------------------------------------------------------------------------------
// Wall clocks of a time zone (here, not in stores, so the server and the CLI read a zone alike)

/** This machine's time zone (TZ=... sets it): the days `stats` counts when no zone is given. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Whether `timeZone` is an IANA zone name this runtime knows (a bad one is the caller's mistake, not UTC). */
export function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();
/** `timeZone`'s wall clock at instant `t` (ms), as the UTC instant that reads the same. */
export function wallClockAt(timeZone: string, t: number): number {
  let format = wallFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallFormats.set(timeZone, format);
  }
  const n: Record<string, number> = {};
  for (const p of format.formatToParts(t)) if (p.type !== 'literal') n[p.type] = Number(p.value);
  const y = n.year ?? 1970;
  const wall = Date.UTC(y, (n.month ?? 1) - 1, n.day ?? 1, n.hour ?? 0, n.minute ?? 0, n.second ?? 0);
  // Date.UTC reads years 0-99 as 1900-1999
  return (y < 100 ? new Date(wall).setUTCFullYear(y) : wall) + (((t % 1000) + 1000) % 1000);
}

/** `timeZone`'s offset from UTC at instant `t`, in ms. */
export function zoneOffsetAt(timeZone: string, t: number): number {
  return wallClockAt(timeZone, t) - t;
}

/**
 * The first instant `timeZone`'s clock reads `wall` (a wall time written as the UTC instant that reads
 * the same): the earlier of a time the clock reads twice (an autumn hour), and for a time it skips (a
 * spring hour; a day that starts at 01:00) the instant the clock jumps past it.
 */
export function instantOfWallClock(timeZone: string, wall: number): number {
  const offsets = new Set([zoneOffsetAt(timeZone, wall - 86_400_000), zoneOffsetAt(timeZone, wall + 86_400_000)]);
  const fits = [...offsets].map((o) => wall - o).filter((t) => wallClockAt(timeZone, t) === wall);
  if (fits.length) return Math.min(...fits);
  // skipped: read with the offset before the jump, it lands as far past the jump as it lies past the gap's start
  return wall - Math.min(...offsets);
}

// ---------------------------------------------------------------------------------------------
// Windows read in a zone

/** A date and time without an offset: its wall-clock parts (a time with an offset names its instant). */
const ZONED_WALL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?$/i;

/**
 * The instant `value` names read in `timeZone` (a date alone: its first instant there; a time with an
 * offset: that instant), as a UTC ISO string; undefined when windowStart refuses it.
 */
export function zonedWindowStart(value: string, timeZone: string): string | undefined {
  const v = value.trim();
  if (windowStart(v) === undefined) return undefined;
  const parts = DATE_ONLY.exec(v) ?? ZONED_WALL.exec(v);
  if (!parts) return windowStart(v);
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', frac = ''] = parts;
  const ms = Number(`0.${frac || '0'}`) * 1000;
  return new Date(
    instantOfWallClock(timeZone, Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)),
  ).toISOString();
}

/**
 * The last instant `value` covers in `timeZone`: a date alone (month, year) through its end there
 * (the instant before the next one starts: a day of 23 or 25 hours where the clock changes); undefined
 * when windowEnd refuses it.
 */
export function zonedWindowEnd(value: string, timeZone: string): string | undefined {
  const v = value.trim();
  const date = DATE_ONLY.exec(v);
  if (!date || windowStart(v) === undefined) return zonedWindowStart(v, timeZone);
  const [, y, mo, d] = date;
  const next = new Date(Date.UTC(Number(y), Number(mo ?? 1) - 1, Number(d ?? 1)));
  if (d) next.setUTCDate(next.getUTCDate() + 1);
  else if (mo) next.setUTCMonth(next.getUTCMonth() + 1);
  else next.setUTCFullYear(next.getUTCFullYear() + 1);
  return new Date(instantOfWallClock(timeZone, next.getTime()) - 1).toISOString();
}

// ---------------------------------------------------------------------------------------------
// The one reader of a since/until window (the CLI, the HTTP API and the viewer's routes word its refusals)

/** A window's texts as given (undefined: not given); `timeZone` reads dates and times without an offset, UTC if not given. */
export interface TimeWindowInput {
  since?: string;
  until?: string;
  timeZone?: string;
}

/** A window read: its bounds as UTC ISO instants (a date alone for until: through its end), absent where not given. */
export interface TimeWindow {
  ok: true;
  since?: string;
  until?: string;
  /** the zone it was read in */
  timeZone: string;
}

/** Why a window was refused: the field and the text it was given, for the caller to word in its own style. */
export type TimeWindowRefusal =
  | { ok: false; reason: 'not-a-time'; field: 'since' | 'until'; value: string }
  | { ok: false; reason: 'unknown-zone'; field: 'tz'; value: string }
  | {
      ok: false;
      reason: 'since-after-until';
      field: 'since';
      value: string;
      untilValue: string;
      /** the instants the two name: nothing lies between them */
      since: string;
      until: string;
    };

/**
 * `since`/`until` read in `timeZone` (zonedWindowStart/zonedWindowEnd) as one window, or why not: the
 * zone first, then since, then until, then a since after the until (refused, as a window with nothing
 * in it reads as "nothing happened then"). The refusal is a value: each caller says it its own way.
 */
export function readTimeWindow(input: TimeWindowInput): TimeWindow | TimeWindowRefusal {
  const timeZone = input.timeZone ?? 'UTC';
  if (!knownTimeZone(timeZone)) return { ok: false, reason: 'unknown-zone', field: 'tz', value: timeZone };
  const { since: sinceText, until: untilText } = input;
  const since = sinceText === undefined ? undefined : zonedWindowStart(sinceText, timeZone);
  if (sinceText !== undefined && since === undefined)
    return { ok: false, reason: 'not-a-time', field: 'since', value: sinceText };
  const until = untilText === undefined ? undefined : zonedWindowEnd(untilText, timeZone);
  if (untilText !== undefined && until === undefined)
    return { ok: false, reason: 'not-a-time', field: 'until', value: untilText };
  if (sinceText !== undefined && untilText !== undefined && since && until && endsBeforeItStarts({ since, until }))
    return { ok: false, reason: 'since-after-until', field: 'since', value: sinceText, untilValue: untilText, since, until };
  return { ok: true, ...(since !== undefined ? { since } : {}), ...(until !== undefined ? { until } : {}), timeZone };
}

/**
 * Whether a window of UTC instants (as readTimeWindow gives them) ends before it starts, so nothing lies
 * in it. Compared as instants, not as text: a year past 9999 (9999-12-31 west of UTC ends in 10000) is
 * written +010000.
 */
export function endsBeforeItStarts(w: { since?: string; until?: string }): boolean {
  return w.since !== undefined && w.until !== undefined && Date.parse(w.since) > Date.parse(w.until);
}
