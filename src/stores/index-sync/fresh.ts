/**
 * The index as reading commands use it. `search` and `stats` answer only from it (synced first when
 * older than maxAgeMs, or when an agent wrote where agents wrote last); `sessions`, `show` and
 * `context` answer from it for each store it is fresh
 * for (synced, and nothing a listing sees changed since) and from the agent's files for the rest.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Sources } from '../../formats/registry.js';
import { makeDirectory } from '../../formats/shared/atomic.js';
import { matchesFilter, newestFirst, pickSession } from '../../formats/shared/base.js';
import type { DriverEnv, SessionDriver, SessionFilter } from '../../model/driver.js';
import { NotFoundError } from '../../model/errors.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { THREADBASE_SOURCE } from '../shared.js';
import { isBusyError, openSqliteStore, type SqliteStore } from '../sqlite/index.js';
import { IndexSync, indexPath, lastSync, markWritten, readerChanged, type SourceFreshness, writtenSinceSync } from './sync.js';

/**
 * `search` and `stats` sync first unless a sync changed the index this recently (a sync that finds
 * nothing changed records no time, so an idle index is checked, by a listing, every time) and no
 * agent has written since where agents were writing last (IndexSync.recentlyWritten).
 */
export const DEFAULT_MAX_AGE_MS = 30_000;

function indexedFormats(sources: Sources, formats?: readonly string[]): string[] {
  return (formats ?? sources.names()).filter((f) => f !== THREADBASE_SOURCE);
}

export async function openFreshIndex(
  env: DriverEnv,
  sources: Sources,
  opts: { maxAgeMs?: number; sync?: boolean; formats?: string[]; onWarning?: (w: ParseWarning) => void } = {},
): Promise<SqliteStore> {
  const path = indexPath(env);
  await makeDirectory(dirname(path));
  const store = openSqliteStore(path);
  // the oldest sync of the stores asked about (a `sync --source X` counts for X)
  const formats = indexedFormats(sources, opts.formats);
  const times = formats.map((f) => lastSync(store, f));
  // a store threadbase wrote into since its last sync (convert, fork, branch), or one read by an older
  // reader (after an upgrade), is synced whatever its age
  const age =
    times.some((t) => t === undefined) || formats.some((f) => writtenSinceSync(store, f) || readerChanged(store, sources, f))
      ? Number.POSITIVE_INFINITY
      : Math.max(0, ...times.map((t) => Date.now() - Date.parse(t as string)));
  const sync = new IndexSync(store);
  // inside the window, only where an agent was writing last (a few stats)
  if (opts.sync !== false && (age > (opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS) || (await sync.recentlyWritten(sources, formats)))) {
    // only the formats asked about (e.g. `stats --source claude` reads no other agent's store)
    await sync.sync(sources, {
      ...(opts.formats ? { formats: opts.formats } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    });
  }
  return store;
}

/**
 * Tells the index, if there is one, that threadbase has just written into an agent's store, so that
 * the next `search` or `stats` syncs that store first (their 30 s window counts only agents' own
 * writes). Creates no index. Never waits for another writer (the viewer's server runs on this thread):
 * while one holds the index the note is skipped, and the written file, among the agent's newest, is
 * found by the look where agents wrote last (IndexSync.recentlyWritten).
 */
export async function noteAgentWrite(env: DriverEnv, format: string): Promise<void> {
  if (format === THREADBASE_SOURCE) return;
  const path = indexPath(env);
  if (!existsSync(path)) return;
  const store = openSqliteStore(path);
  try {
    store.db.pragma('busy_timeout = 0');
    markWritten(store, format);
  } catch (err) {
    if (!isBusyError(err)) throw err;
  } finally {
    await store.close();
  }
}

/** The index with, per store, whether it answers for it (see IndexSync.freshness). */
export interface IndexView {
  store: SqliteStore;
  /** the stores the index answers for (threadbase's own always) */
  fresh: string[];
  /** the others, with the listing the check made when it was a full one */
  stale: SourceFreshness[];
}

/**
 * `sessions`, `show`, `context`, `export`, `convert`, `fork` and `branch` first sync a store synced
 * before whose listing shows at most this many new, changed or gone units (session files, rows), then
 * the index answers for it: reading a few changed sessions costs far less than what answering from
 * the files takes, listing every file of the store (≈ 1.3 s for 583 sessions, 200 MB). An agent at
 * work, or threadbase's own write, changes a few; a store that changed more is answered from its files.
 */
export const CATCH_UP_UNITS = 64;

export interface CatchUpOptions {
  /**
   * Sync first the stores synced before that show at most this many changed units (default 0: never
   * sync); those stay stale when a unit cannot be indexed now (another writer holds the index).
   */
  catchUpUnits?: number;
}

/**
 * The index and which stores (default every one) it is fresh for; undefined when there is no index
 * or it cannot be opened or checked. Never creates it. The caller closes the store.
 */
export async function openIndexView(
  env: DriverEnv,
  sources: Sources,
  formats?: readonly string[],
  opts: CatchUpOptions = {},
): Promise<IndexView | undefined> {
  const path = indexPath(env);
  if (!existsSync(path)) return undefined;
  let store: SqliteStore | undefined;
  try {
    store = openSqliteStore(path);
    const sync = new IndexSync(store);
    const checked = await sync.freshness(sources, indexedFormats(sources, formats));
    const limit = opts.catchUpUnits ?? 0;
    // (a store synced before that is not fresh has `changed` > 0)
    const behind = checked.filter((c) => !c.fresh && !c.error && c.changed !== undefined && c.changed <= limit);
    if (behind.length > 0) {
      // no wait for another writer (a running sync): the files answer at once instead; the check's
      // listings are not made again
      const report = await sync
        .sync(sources, { formats: behind.map((c) => c.format), busyTimeoutMs: 0, checked: behind })
        .catch(() => undefined);
      // a unit not indexed (a lock, a read error) leaves the index behind: the files answer for those stores
      if (report?.failed === 0) for (const c of behind) c.fresh = true;
    }
    // threadbase's own sessions live in this very database: it always answers for them
    const own = (formats ?? sources.names()).includes(THREADBASE_SOURCE) ? [THREADBASE_SOURCE] : [];
    return {
      store,
      fresh: [...own, ...checked.filter((c) => c.fresh).map((c) => c.format)],
      stale: checked.filter((c) => !c.fresh),
    };
  } catch {
    // an index that cannot be opened or checked answers for nothing
    await store?.close();
    return undefined;
  }
}

/**
 * The index, only when it is fresh for every store (default) or every one of `formats`.
 * Never syncs or creates it.
 */
export async function openIndexIfFresh(
  env: DriverEnv,
  sources: Sources,
  formats?: readonly string[],
): Promise<SqliteStore | undefined> {
  const view = await openIndexView(env, sources, formats);
  if (view && view.stale.length === 0) return view.store;
  await view?.store.close();
  return undefined;
}

export interface MixedListing {
  sessions: SessionInfo[];
  /** stores that could not be listed */
  errors: { source: string; error: Error }[];
  /** the stores answered from the index (the rest from their files) */
  fromIndex: string[];
}

/**
 * Sessions of every store (or filter.source) the way Sources.list gives them: from the index for
 * the stores it is fresh for (after catching up those that changed a little, see CATCH_UP_UNITS),
 * from the files for the rest, reusing the freshness check's listing. Undefined when there is no
 * usable index.
 */
export async function listThroughIndex(
  env: DriverEnv,
  sources: Sources,
  filter: SessionFilter = {},
  opts: CatchUpOptions = { catchUpUnits: CATCH_UP_UNITS },
): Promise<MixedListing | undefined> {
  const view = await openIndexView(env, sources, filter.source ? [filter.source] : undefined, opts);
  if (!view) return undefined;
  const { limit: _limit, ...unlimited } = filter;
  const sessions: SessionInfo[] = [];
  const errors: MixedListing['errors'] = [];
  try {
    for (const format of filter.source ? [filter.source] : sources.names()) {
      if (view.fresh.includes(format)) {
        sessions.push(...(await view.store.listSessions({ ...unlimited, source: format })));
        continue;
      }
      const stale = view.stale.find((s) => s.format === format);
      if (stale?.error) errors.push({ source: format, error: stale.error });
      else if (stale?.listed) sessions.push(...stale.listed.filter((s) => matchesFilter(s, unlimited)));
      else {
        try {
          sessions.push(...(await sources.driver(format).listSessions(filter)));
        } catch (error) {
          errors.push({ source: format, error: error as Error });
        }
      }
    }
  } finally {
    await view.store.close();
  }
  sessions.sort(newestFirst);
  return { sessions: filter.limit ? sessions.slice(0, filter.limit) : sessions, errors, fromIndex: view.fresh };
}

/** Sessions of these stores in the index whose id is idOrPrefix or starts with it. */
function prefixMatchesInIndex(store: SqliteStore, idOrPrefix: string, formats: readonly string[]): SessionInfo[] {
  const rows = store
    .stmt(
      // a range on the primary key: the ids that start with the prefix
      'SELECT info_json FROM sessions WHERE id >= ? AND id < ? LIMIT 50',
    )
    .all(idOrPrefix, `${idOrPrefix}\uffff`) as { info_json: string }[];
  return rows.map((r) => JSON.parse(r.info_json) as SessionInfo).filter((i) => formats.includes(i.source));
}

/** The session an id or unique id prefix names in the index (of these sources), if exactly one. */
export function resolveInIndex(
  store: SqliteStore,
  idOrPrefix: string,
  sources: readonly string[],
  source?: string,
): SessionInfo | undefined {
  try {
    return pickSession(
      prefixMatchesInIndex(store, idOrPrefix, source ? sources.filter((s) => s === source) : sources),
      idOrPrefix,
    );
  } catch {
    return undefined;
  }
}

export interface OpenedSession {
  info: SessionInfo;
  session: Session;
  driver: SessionDriver;
  /** the stores whose sessions were looked up in the index (the rest through their files) */
  fromIndex: string[];
}

/**
 * A session opened by id or prefix as Sources.open does, but with the index naming the candidates
 * of every store it is fresh for, after catching up those that changed a little (no listing of those
 * stores' files), and the files (the freshness
 * check's listing when it was a full one) for the rest; then the agent's own driver reads that one
 * session. Throws NotFoundError or AmbiguousIdError as Sources.open; undefined when there is no
 * usable index.
 */
export async function openThroughIndex(
  env: DriverEnv,
  sources: Sources,
  idOrPrefix: string,
  source?: string,
  opts: CatchUpOptions = { catchUpUnits: CATCH_UP_UNITS },
): Promise<OpenedSession | undefined> {
  const view = await openIndexView(env, sources, source ? [source] : undefined, opts);
  if (!view) return undefined;
  const candidates: SessionInfo[] = [];
  try {
    if (view.fresh.length) candidates.push(...prefixMatchesInIndex(view.store, idOrPrefix, view.fresh));
  } finally {
    await view.store.close();
  }
  for (const stale of view.stale) {
    if (stale.error) continue; // as Sources.resolve: a store that cannot be listed offers no candidates
    let listed = stale.listed;
    if (!listed) {
      try {
        listed = await sources.driver(stale.format).listSessions();
      } catch {
        continue;
      }
    }
    candidates.push(...listed.filter((s) => s.id.startsWith(idOrPrefix)));
  }
  const info = pickSession(candidates, idOrPrefix);
  const driver = sources.driver(info.source);
  const session = await driver.getSession(info.id);
  if (!session) throw new NotFoundError(`${info.source} session`, info.id);
  return { info, session, driver, fromIndex: view.fresh };
}

/**
 * A session opened through an index fresh for every store asked about: the index resolves the id or
 * prefix, then the agent's own driver reads that one session. Undefined when the index is not fresh
 * for all of them or does not know the id (see openThroughIndex for the per-store answer).
 */
export async function openViaIndex(
  env: DriverEnv,
  sources: Sources,
  idOrPrefix: string,
  source?: string,
): Promise<{ info: SessionInfo; session: Session; driver: SessionDriver } | undefined> {
  const store = await openIndexIfFresh(env, sources, source ? [source] : undefined);
  if (!store) return undefined;
  let info: SessionInfo | undefined;
  try {
    info = resolveInIndex(store, idOrPrefix, sources.names(), source);
  } finally {
    await store.close();
  }
  if (!info) return undefined;
  const driver = sources.driver(info.source);
  const session = await driver.getSession(info.id);
  return session ? { info, session, driver } : undefined;
}

/**
 * The sub-agent sessions of a session as childSessionsFrom (convert/session.ts) gives them — each
 * session whose parent it is, read by its agent's driver, that names the call that ran it — with the
 * sessions that have a parent listed from the index when it is fresh for the driver's store. The
 * agent's own listing reads every session it has (Claude Code's parses every transcript: `export
 * --format html` of a 220 KB session took 1.4 s of CPU on a 200 MB history, 0.2 s as JSON, which
 * lists none). Without a fresh index, the driver's listing, once for the whole tree.
 */
export function childSessionsThroughIndex(
  env: DriverEnv,
  sources: Sources,
  driver: SessionDriver,
): (sessionId: string) => Promise<Session[]> {
  let byParent: Promise<Map<string, SessionInfo[]>> | undefined;
  const listed = async (): Promise<SessionInfo[]> => {
    const format = driver.name;
    const view = sources.names().includes(format) ? await openIndexView(env, sources, [format]) : undefined;
    if (view) {
      try {
        if (view.fresh.includes(format))
          return (
            (
              view.store.db
                // sessions_parent: only the sessions that have a parent
                .prepare('SELECT info_json FROM sessions WHERE parent_id IS NOT NULL AND source = ?')
                .pluck()
                .all(format) as string[]
            ).map((j) => JSON.parse(j) as SessionInfo)
          );
      } finally {
        await view.store.close();
      }
    }
    return driver.listSessions();
  };
  return async (sessionId) => {
    byParent ??= listed().then((all) => {
      const map = new Map<string, SessionInfo[]>();
      for (const s of all) if (s.parentId) map.set(s.parentId, [...(map.get(s.parentId) ?? []), s]);
      return map;
    });
    const out: Session[] = [];
    for (const info of (await byParent).get(sessionId) ?? []) {
      if (info.id === sessionId) continue;
      const child = await driver.getSession(info.id);
      if (child?.parentToolCallId !== undefined) out.push(child);
    }
    return out;
  };
}
