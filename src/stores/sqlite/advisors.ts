/**
 * A response's requests to an advisor model (Usage.advisors) are kept as JSON on its counted record
 * (`entries.advisors`); few records have any, so they are read through a partial index of their own,
 * never by scanning every counted record.
 */

/** The partial index of the records with advisor requests (schema 11). */
export const ADVISORS_INDEX =
  'CREATE INDEX IF NOT EXISTS entries_advisors ON entries(counted, timestamp) WHERE advisors IS NOT NULL';

/**
 * The advisor requests as rows `a` (json_each) of their records `e` joined to their sessions `s`,
 * through ADVISORS_INDEX: a WHERE over it must say `e.advisors IS NOT NULL`.
 */
export const ADVISOR_ROWS =
  'entries e INDEXED BY entries_advisors JOIN sessions s ON s.id = e.session_id, json_each(e.advisors) a';

/** A count of an advisor request in ADVISOR_ROWS (input, output, cacheRead, cacheWrite, cacheWrite1h), 0 when absent. */
export const advisorCount = (name: 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'cacheWrite1h') =>
  `coalesce(json_extract(a.value, '$.${name}'), 0)`;
