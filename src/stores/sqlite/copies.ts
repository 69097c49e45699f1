/**
 * A record copied into several sessions is one model response, counted once. Copies are made by a
 * fork (Claude Code's --fork-session and its older resumes, pi's forks) and by a conversion into
 * another agent (`threadbase convert` keeps each response's id and time in every agent it writes).
 * An entry repeated in another session is one search hit (ENTRY_COPIES, searchedOnce).
 */
import type Database from 'better-sqlite3';
import { Where } from './where.js';

/**
 * What makes two counted records copies of one, in any agent: the same response id and time (a
 * provider's id of one API response, billed once; the time too, because a proxy or a stand-in server
 * may number its responses anew in each session), or, for records without a response id, the same
 * entry id and time. A record without a time (an empty one, as Codex CLI keeps a rollout line's) is
 * a copy of none: its id alone says nothing (Codex numbers id-less items by line, L2, L3, ... in every
 * rollout), as copyKeyOf in src/model/copies.ts keys it.
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
  "SELECT 1 FROM entries WHERE coalesce(response_id, id) = ? AND timestamp = ? AND timestamp <> '' AND counted > 0 AND rowid <> ? LIMIT 1";

export function copyProbeArgs(key: CopyKey, except: number | bigint = -1): [string, string, number | bigint] {
  return [key.responseId ?? key.id, key.timestamp, except];
}

/**
 * Which copy counts, as an SQL ORDER BY (the preferred copy first), over a query whose sessions are
 * `s` and whose response has the columns `c`: the one in the session created first (a converted copy
 * into pi or Codex starts when it was written, after its original). On a tie (a fork, or a copy into
 * Claude Code, OpenCode, Cline, Gemini, ..., whose start is its original's), the copy in a session
 * its agent wrote over one in a session threadbase wrote (`written_by`, SessionInfo.writtenBy, as
 * the session records it); then the copy with a recorded cost,
 * then one threadbase prices, and last one that records cost 0 for its tokens (a converted copy: pi
 * and OpenCode record what the copy spent, which is nothing); then one in a session that is no fork;
 * then by session id. The SQL twin of preferredCopy (src/model/copies.ts); PostgreSQL orders its
 * copies by it too.
 */
export function preferredCopyOrder(c: { cost: string; input: string; output: string }, s = 's'): string {
  return `${s}.created_at,
  ${s}.written_by IS NOT NULL,
  CASE WHEN ${c.cost} IS NULL THEN 1 WHEN ${c.cost} = 0 AND coalesce(${c.input}, 0) + coalesce(${c.output}, 0) > 0 THEN 2 ELSE 0 END,
  ${s}.parent_id IS NOT NULL,
  ${s}.id`;
}

const PREFERRED = preferredCopyOrder({ cost: 'e.cost', input: 'e.input', output: 'e.output' });

/**
 * Of the counted copies of one record the preferred one counts (`counted = 1`); the others are
 * copies (`counted = 2`), out of every total. In every session, threadbase's own (a conversion into
 * its store, a server's pushed sessions) too: PostgreSQL and the TypeScript rule count those once as
 * well, so `stats` is the same whatever holds the sessions.
 */
export function settleCopies(db: Database.Database, key: CopyKey): void {
  if (!key.timestamp) return; // a record without a time is a copy of none (see CopyKey)
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

/**
 * An entry repeated in another session (a fork's copy of its parent's entries, a GitHub Copilot CLI
 * sub-agent run, whose events are its session's too) has the same entry id and time there. `search`
 * shows each such entry once: ENTRY_COPIES lists the rowids of the copies that are not preferred (by
 * PREFERRED, the order `stats` counts a copied response in), kept by settleEntryCopies; the trigger
 * drops a row with its entry.
 */
export const ENTRY_COPIES = `
  CREATE INDEX IF NOT EXISTS entries_entry_key ON entries(timestamp, id);
  CREATE TABLE IF NOT EXISTS entry_copies (rowid INTEGER PRIMARY KEY);
  CREATE TRIGGER IF NOT EXISTS entry_copies_gone AFTER DELETE ON entries
    BEGIN DELETE FROM entry_copies WHERE rowid = old.rowid; END;`;

/**
 * Whether an entry other than rowid ?3 has entry id ?1 and time ?2: one probe of entries_entry_key.
 * An entry without a time is a copy of none (see CopyKey).
 */
export const ENTRY_COPY_PROBE = "SELECT 1 FROM entries WHERE id = ? AND timestamp = ? AND timestamp <> '' AND rowid <> ? LIMIT 1";

/**
 * The entries of session ?1 that others repeat and that are the preferred copy (not in ENTRY_COPIES):
 * when they leave, one of their copies is preferred instead (settleEntryCopies again). Only asked
 * when ENTRY_COPIES has any row (a group of copies always has one there).
 */
export const PREFERRED_ENTRY_COPIES = `SELECT e.id, e.timestamp FROM entries e
  WHERE e.session_id = ? AND e.timestamp <> '' AND e.rowid NOT IN (SELECT rowid FROM entry_copies)
    AND EXISTS (SELECT 1 FROM entries o WHERE o.id = e.id AND o.timestamp = e.timestamp AND o.rowid <> e.rowid)`;

/** Every group of counted copies the index holds, settled (settleCopies). */
export function settleStoredCopies(db: Database.Database): void {
  const groups = db
    .prepare(
      `SELECT min(id) id, timestamp, response_id responseId FROM entries WHERE counted > 0 AND timestamp <> ''
        GROUP BY coalesce(response_id, id), timestamp, response_id IS NULL HAVING count(*) > 1`,
    )
    .all() as CopyKey[];
  for (const g of groups) settleCopies(db, g);
}

/** Prepares a statement (a store's statement cache, SqliteStore.stmt, or the database itself). */
export type Prepare = (sql: string) => Database.Statement;

const ENTRY_COPY_GROUP = `SELECT e.rowid FROM entries e JOIN sessions s ON s.id = e.session_id
  WHERE e.id = ? AND e.timestamp = ? ORDER BY ${PREFERRED}`;

/** The copies of the entry `id` at `timestamp`: the preferred one out of ENTRY_COPIES, the others in it. */
export function settleEntryCopies(prepare: Prepare, id: string, timestamp: string): void {
  if (!timestamp) return; // an entry without a time is a copy of none (see CopyKey)
  const group = prepare(ENTRY_COPY_GROUP).pluck().all(id, timestamp) as number[];
  const out = prepare('DELETE FROM entry_copies WHERE rowid = ?');
  const copy = prepare('INSERT OR IGNORE INTO entry_copies (rowid) VALUES (?)');
  group.forEach((rowid, i) => {
    if (i === 0) out.run(rowid);
    else copy.run(rowid);
  });
}

/** Every group of entry copies the store holds, settled (the migration that adds ENTRY_COPIES). */
export function settleStoredEntryCopies(db: Database.Database): void {
  const groups = db
    .prepare("SELECT id, timestamp FROM entries WHERE timestamp <> '' GROUP BY timestamp, id HAVING count(*) > 1")
    .all() as {
    id: string;
    timestamp: string;
  }[];
  const prepared = new Map<string, Database.Statement>();
  const prepare: Prepare = (sql) => {
    let st = prepared.get(sql);
    if (!st) {
      st = db.prepare(sql);
      prepared.set(sql, st);
    }
    return st;
  };
  for (const g of groups) settleEntryCopies(prepare, g.id, g.timestamp);
}

/**
 * The term of a search over entries `e` of sessions `s` that keeps each copied entry once: without a
 * filter on the sessions, the preferred copy; with one (`among`, terms over `s`), the copy preferred
 * among the sessions it selects, so that a copy whose preferred entry is outside them (another
 * agent's, a sub-agent run's parent) is found. Without a filter the term reads no entry row (the
 * full-text table's rowid is the entry's; ENTRY_COPIES is searched by rowid), with one it looks up
 * the other copies (entries_entry_key) only of an entry that is a copy.
 */
export function searchedOnce(among: Where): Where {
  if (!among.terms.length) return new Where().add('entries_fts.rowid NOT IN (SELECT rowid FROM entry_copies)');
  const os = new Where();
  // the filter again, over the other copy's session `os`
  for (const t of among.terms) os.add(t.replace(/\bs\./g, 'os.'));
  const cols = (e: string) => ({ cost: `${e}.cost`, input: `${e}.input`, output: `${e}.output` });
  return new Where().add(
    `(e.rowid NOT IN (SELECT rowid FROM entry_copies) OR NOT EXISTS (
       SELECT 1 FROM entries o JOIN sessions os ON os.id = o.session_id
        WHERE o.id = e.id AND o.timestamp = e.timestamp AND o.rowid <> e.rowid AND ${os.sql}
          AND (${preferredCopyOrder(cols('o'), 'os')}) < (${preferredCopyOrder(cols('e'))})))`,
    ...among.args,
  );
}
