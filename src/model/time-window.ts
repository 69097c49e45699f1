/**
 * The times `--since` / `--until` and the server's `since` / `until` take: an ISO date (2026-11-25,
 * 2026-11, 2026: that UTC day, month or year, as `stats --by day` counts days) or an ISO date and time
 * (without an offset: this machine's local time, as Date reads it). Anything else is refused: Date
 * alone took 2026-02-30 for March 2 and 2026/11/25 for local midnight, which an until then did not
 * count to the day's end.
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
