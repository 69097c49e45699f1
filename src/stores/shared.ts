/** What every threadbase-owned store (memory, SQLite, PostgreSQL, remote) shares: its source name, its capabilities, writing, forking. */
import { randomUUID } from 'node:crypto';
import type { DriverCapabilities, ForkOptions, WriteOptions } from '../model/driver.js';
import { SessionEntryError } from '../model/errors.js';
import { currentLeaf, pathToLeaf } from '../model/tree.js';
import type { Entry, MetadataEntry, Session, SessionInfo } from '../model/types.js';

/** The `source` of a session written by threadbase itself rather than imported from an agent. */
export const THREADBASE_SOURCE = 'threadbase';

/** A threadbase store can do everything the driver interface offers. */
export const STORE_CAPABILITIES: DriverCapabilities = Object.freeze({
  read: true,
  write: true,
  append: true,
  fork: true,
  branch: true,
  delete: true,
  title: true,
  search: true,
});

/** The meta a store keeps for a session written to it: its own, and where it came from when an agent wrote it. */
export function writtenMeta(session: Session): Session['meta'] {
  return session.source && session.source !== THREADBASE_SOURCE
    ? { ...(session.meta ?? {}), importedFrom: { source: session.source, id: session.id } }
    : session.meta;
}

/**
 * The agent that recorded a session: a session stored as threadbase's own from an agent's (pushed to a
 * team server, converted into a store) names it in meta.importedFrom.source; else its source. A team
 * server's sessions, all pushed, showed and filtered as "threadbase".
 */
export function agentOf(info: Pick<SessionInfo, 'source' | 'meta'>): string {
  const from = info.meta?.importedFrom;
  const source = typeof from === 'object' && from !== null ? (from as { source?: unknown }).source : undefined;
  return info.source === THREADBASE_SOURCE && typeof source === 'string' && source ? source : info.source;
}

/** A `source` filter: the session's own source or the agent it came from (as the PostgreSQL store's source filter reads it). */
export const ofAgent = (info: Pick<SessionInfo, 'source' | 'meta'>, source: string | undefined): boolean =>
  !source || info.source === source || agentOf(info) === source;

/**
 * Entry ids are unique within a session: a session to write that repeats one is refused before the
 * store picks its id, so the error names what the caller passed (its session id and the entry id),
 * not an id the caller never saw.
 */
export function checkWrittenEntryIds(session: Pick<Session, 'id'> & { entries: readonly Pick<Entry, 'id'>[] }): void {
  const ids = new Set<string>();
  for (const e of session.entries) {
    if (ids.has(e.id))
      throw new SessionEntryError(
        'duplicate_entry',
        session.id,
        e.id,
        (sid) => `entry id ${e.id} appears twice in the session written as ${sid ? sid : '(no id)'}`,
      );
    ids.add(e.id);
  }
}

/** A session as a store keeps it once written under `id`: its own source, times and leaf settled. */
export function writtenSession(session: Session, id: string): Session {
  const now = new Date().toISOString();
  const { warnings: _w, path: _p, meta: _m, ...rest } = session;
  const stored: Session = {
    ...rest,
    id,
    source: THREADBASE_SOURCE,
    createdAt: session.createdAt || session.entries[0]?.timestamp || now,
    updatedAt: session.updatedAt || now,
    leafId: session.leafId ?? currentLeaf(session)?.id ?? null,
  };
  const meta = writtenMeta(session);
  if (meta) stored.meta = meta;
  return stored;
}

/** The new session a fork of `source` at `opts.at` (default: its current leaf) becomes: the path to that entry, copied. */
export function forkedSession(source: Session, opts: ForkOptions = {}): Session {
  const path = pathToLeaf(source, opts.at);
  const at = path[path.length - 1];
  const now = new Date().toISOString();
  const fork: Session = {
    id: randomUUID(),
    source: THREADBASE_SOURCE,
    createdAt: now,
    updatedAt: now,
    messageCount: 0,
    parentId: source.id,
    entries: structuredClone(path),
    leafId: at?.id ?? null,
  };
  if (source.project !== undefined) fork.project = source.project;
  const title = opts.title ?? (source.title ? `${source.title} (fork)` : undefined);
  if (title !== undefined) fork.title = title;
  if (at) fork.parentEntryId = at.id;
  return fork;
}

/**
 * The id a session is written under: with keepId its own when `taken` says it is free, else
 * opts.idIfTaken when free, else a fresh one (a write never merges into a session).
 */
export function writtenIdOf(session: Session, opts: WriteOptions, taken: (id: string) => boolean): string {
  if (opts.keepId && session.id) {
    if (!taken(session.id)) return session.id;
    if (opts.idIfTaken && !taken(opts.idIfTaken)) return opts.idIfTaken;
  }
  return randomUUID();
}

/**
 * Stored entries' JSON by session (rows in the session's order) as metadataEntries answers: the
 * metadata entries of `type`, for the sessions that have any (the rows may hold others a coarse
 * text match let through).
 */
export function metadataBySession(rows: Iterable<[sessionId: string, json: string]>, type: string): Map<string, MetadataEntry[]> {
  const out = new Map<string, MetadataEntry[]>();
  for (const [sessionId, json] of rows) {
    const e = JSON.parse(json) as Entry;
    if (e.kind !== 'metadata' || e.type !== type) continue;
    const list = out.get(sessionId) ?? [];
    list.push(e);
    out.set(sessionId, list);
  }
  return out;
}

/** An entry as JSON text with every object's keys sorted: equal for entries a store keeps alike. */
function entryText(e: Entry): string {
  return JSON.stringify(e, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The entries of an append the session does not have yet, by the stores' one rule (see
 * SessionDriver.appendEntries): an entry equal to the stored one of its id (as JSON) is a re-send and
 * left out; one that differs is refused, naming the session and the entry.
 */
export function entriesNotStored(sessionId: string, entries: readonly Entry[], stored: ReadonlyMap<string, Entry>): Entry[] {
  return entries.filter((e) => {
    const had = stored.get(e.id);
    if (had === undefined) return true;
    if (entryText(had) !== entryText(e))
      throw new SessionEntryError(
        'duplicate_entry',
        sessionId,
        e.id,
        (sid) =>
          `entry id ${e.id} is already in session ${sid} with other content (an append may only repeat an entry as stored)`,
      );
    return false;
  });
}
