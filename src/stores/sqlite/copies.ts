/**
 * A record copied into several sessions of one agent: a fork's copy of its parent's records (Claude
 * Code's --fork-session and its older resumes, pi's forks) keeps the entry id, time and response id,
 * and is one model response, counted once.
 */
import type Database from 'better-sqlite3';

/** What makes two counted records copies of one: the same entry id, time and response id (or none), in one agent. */
export interface CopyKey {
  id: string;
  timestamp: string;
  responseId: string | null;
  source: string;
}

/**
 * Of the counted copies of one record the one in the session created first counts (`counted = 1`);
 * the others are copies (`counted = 2`), out of every total.
 */
export function settleCopies(db: Database.Database, key: CopyKey): void {
  const group = db
    .prepare(
      `SELECT e.rowid, e.counted FROM entries e JOIN sessions s ON s.id = e.session_id
        WHERE e.id = ? AND e.counted > 0 AND e.timestamp = ? AND e.response_id IS ? AND s.source = ?
        ORDER BY s.created_at, s.id`,
    )
    .all(key.id, key.timestamp, key.responseId, key.source) as { rowid: number; counted: number }[];
  const set = db.prepare('UPDATE entries SET counted = ? WHERE rowid = ?');
  group.forEach((r, i) => {
    const want = i === 0 ? 1 : 2;
    if (r.counted !== want) set.run(want, r.rowid);
  });
}
