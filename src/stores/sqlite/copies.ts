/**
 * A record copied into several sessions is one model response, counted once. Copies are made by a
 * fork (Claude Code's --fork-session and its older resumes, pi's forks) and by a conversion into
 * another agent (`threadbase convert` keeps each response's id and time in every agent it writes).
 */
import type Database from 'better-sqlite3';
import { Where } from './where.js';

/**
 * What makes two counted records copies of one, in any agent: the same response id and time (a
 * provider's id of one API response, billed once; the time too, because a proxy or a stand-in server
 * may number its responses anew in each session), or, for records without a response id, the same
 * entry id and time.
 */
export interface CopyKey {
  id: string;
  timestamp: string;
  responseId: string | null;
}

/** The partial index COPY_PROBE and settleCopies use: counted records by their copy key. */
export const COPY_INDEX =
  'CREATE INDEX IF NOT EXISTS entries_copy_key ON entries(coalesce(response_id, id), timestamp) WHERE counted > 0';

/** The records that are copies, by session (preferredAmong finds those of the selected sessions by it). */
export const COPIED_INDEX = 'CREATE INDEX IF NOT EXISTS entries_copied ON entries(session_id) WHERE counted = 2';

/**
 * Whether another counted record (not rowid ?3, or -1) has the copy key (?1 the response id, else
 * the entry id; ?2 the time): one probe of COPY_INDEX, through the store's statement cache.
 */
export const COPY_PROBE =
  'SELECT 1 FROM entries WHERE coalesce(response_id, id) = ? AND timestamp = ? AND counted > 0 AND rowid <> ? LIMIT 1';

export function copyProbeArgs(key: CopyKey, except: number | bigint = -1): [string, string, number | bigint] {
  return [key.responseId ?? key.id, key.timestamp, except];
}

/**
 * Which copy counts, as an SQL ORDER BY (the preferred copy first), over a query whose sessions are
 * `s` and whose response has the columns `c`: the one in the session created first (a converted copy
 * into pi or Codex starts when it was written, after its original). On a tie (a fork, or a copy into
 * Claude Code or OpenCode, whose start is their first record's time), the copy with a recorded cost,
 * then one threadbase prices, and last one that records cost 0 for its tokens (a converted copy: pi
 * and OpenCode record what the copy spent, which is nothing); then one in a session that is no fork;
 * then by session id. The SQL twin of preferredCopy (src/model/copies.ts); PostgreSQL orders its
 * copies by it too.
 */
export function preferredCopyOrder(c: { cost: string; input: string; output: string }): string {
  return `s.created_at,
  CASE WHEN ${c.cost} IS NULL THEN 1 WHEN ${c.cost} = 0 AND coalesce(${c.input}, 0) + coalesce(${c.output}, 0) > 0 THEN 2 ELSE 0 END,
  s.parent_id IS NOT NULL,
  s.id`;
}

const PREFERRED = preferredCopyOrder({ cost: 'e.cost', input: 'e.input', output: 'e.output' });

/**
 * Of the counted copies of one record the preferred one counts (`counted = 1`); the others are
 * copies (`counted = 2`), out of every total. In every session, threadbase's own (a conversion into
 * its store, a server's pushed sessions) too: PostgreSQL and the TypeScript rule count those once as
 * well, so `stats` is the same whatever holds the sessions.
 */
export function settleCopies(db: Database.Database, key: CopyKey): void {
  const group = db
    .prepare(
      `SELECT e.rowid, e.counted FROM entries e JOIN sessions s ON s.id = e.session_id
        WHERE coalesce(e.response_id, e.id) = ? AND e.timestamp = ? AND e.counted > 0
          AND (e.response_id IS NULL) = ?
        ORDER BY ${PREFERRED}`,
    )
    .all(key.responseId ?? key.id, key.timestamp, key.responseId === null ? 1 : 0) as {
    rowid: number;
    counted: number;
  }[];
  const set = db.prepare('UPDATE entries SET counted = ? WHERE rowid = ?');
  group.forEach((r, i) => {
    const want = i === 0 ? 1 : 2;
    if (r.counted !== want) set.run(want, r.rowid);
  });
}

/**
 * The counted records of the sessions `among` selects (terms over `s`, the sessions), a copied
 * response once among them: in the copy PREFERRED picks there, whichever copy the whole store counts
 * (`counted = 1` may be in a session outside them, e.g. another server project's, or another agent's
 * for `stats --source`). What PostgreSQL and ResponseCounter count over a set of sessions. One term
 * over `e`, the entries.
 */
export function preferredAmong(among: Where): Where {
  // every session: the copy the whole store counts (settleCopies orders by PREFERRED too)
  if (!among.terms.length) return new Where().add('e.counted = 1');
  // The copy the whole store counts is the preferred one among any sessions that hold it, so only
  // the responses of a selected copy that does not count (COPIED_INDEX: few) are ranked again, their
  // copies found by COPY_INDEX; a sort of every selected record would cost a `stats --source` on a
  // large index several times the sum itself. (`e.counted > 0` lets a partial index of counted
  // records, as the advisors', be searched.)
  return new Where().add(
    `e.counted > 0 AND ((e.counted = 1 AND ${among.sql}) OR e.rowid IN (SELECT rowid FROM (
       SELECT e.rowid rowid, e.counted counted, row_number() OVER (
           PARTITION BY c.k, c.t, e.response_id IS NULL ORDER BY ${PREFERRED}) n
         FROM (SELECT DISTINCT coalesce(e.response_id, e.id) k, e.timestamp t
                 FROM entries e JOIN sessions s ON s.id = e.session_id WHERE e.counted = 2 AND ${among.sql}) c
         JOIN entries e INDEXED BY entries_copy_key ON coalesce(e.response_id, e.id) = c.k AND e.timestamp = c.t AND e.counted > 0
         JOIN sessions s ON s.id = e.session_id
        WHERE ${among.sql})
     WHERE n = 1 AND counted = 2))`,
    ...among.args,
    ...among.args,
    ...among.args,
  );
}
