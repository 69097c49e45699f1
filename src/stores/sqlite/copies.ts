/**
 * A record copied into several sessions is one model response, counted once. Copies keep the entry
 * id, time and response id: a fork's (Claude Code's --fork-session and its older resumes, pi's
 * forks) and a conversion's into an agent that keeps ids (`threadbase convert` between Claude Code and pi).
 */
import type Database from 'better-sqlite3';
import { THREADBASE_SOURCE } from '../shared.js';

/**
 * What makes two counted records copies of one: the same entry id, time and response id (or none),
 * in any agent. (Not the response id alone: a proxy or a stand-in server may number its responses
 * anew in each session.)
 */
export interface CopyKey {
  id: string;
  timestamp: string;
  responseId: string | null;
}

/**
 * Which copy counts: the one in the session created first (a converted copy starts when it was
 * written, after its original). On a tie, the copy with a recorded cost, then one threadbase prices,
 * and last one that records cost 0 for its tokens (a converted copy: pi records what the copy spent,
 * which is nothing).
 */
const PREFERRED = `s.created_at,
  CASE WHEN e.cost IS NULL THEN 1 WHEN e.cost = 0 AND coalesce(e.input, 0) + coalesce(e.output, 0) > 0 THEN 2 ELSE 0 END,
  s.id`;

/**
 * Of the counted copies of one record the preferred one counts (`counted = 1`); the others are
 * copies (`counted = 2`), out of every total. Sessions threadbase wrote are left alone: its other
 * stores count each session on its own.
 */
export function settleCopies(db: Database.Database, key: CopyKey): void {
  const group = db
    .prepare(
      `SELECT e.rowid, e.counted FROM entries e JOIN sessions s ON s.id = e.session_id
        WHERE e.id = ? AND e.counted > 0 AND e.timestamp = ? AND e.response_id IS ? AND s.source <> ?
        ORDER BY ${PREFERRED}`,
    )
    .all(key.id, key.timestamp, key.responseId, THREADBASE_SOURCE) as { rowid: number; counted: number }[];
  const set = db.prepare('UPDATE entries SET counted = ? WHERE rowid = ?');
  group.forEach((r, i) => {
    const want = i === 0 ? 1 : 2;
    if (r.counted !== want) set.run(want, r.rowid);
  });
}
