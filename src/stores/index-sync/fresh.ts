/** The index, brought up to date (incrementally) when its last sync is older than maxAgeMs. */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Sources } from '../../formats/registry.js';
import type { DriverEnv, SessionDriver } from '../../model/driver.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { openSqliteStore, type SqliteStore } from '../sqlite/index.js';
import { IndexSync, indexPath, lastSync } from './sync.js';

export const DEFAULT_MAX_AGE_MS = 30_000;

export async function openFreshIndex(
  env: DriverEnv,
  sources: Sources,
  opts: { maxAgeMs?: number; sync?: boolean; formats?: string[]; onWarning?: (w: ParseWarning) => void } = {},
): Promise<SqliteStore> {
  const path = indexPath(env);
  await mkdir(dirname(path), { recursive: true });
  const store = openSqliteStore(path);
  const last = lastSync(store);
  const age = last ? Date.now() - Date.parse(last) : Number.POSITIVE_INFINITY;
  if (opts.sync !== false && age > (opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS)) {
    // only the formats asked about (e.g. `stats --source claude` reads no other agent's store)
    await new IndexSync(store).sync(sources, {
      ...(opts.formats ? { formats: opts.formats } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    });
  }
  return store;
}

/**
 * The index, only when it exists, has been synced, and nothing in the agents' stores changed since
 * (checked by listing: sizes, times, row versions; nothing is read). Never syncs or creates it.
 * Reading commands answer from it, else from the agents' files.
 */
export async function openIndexIfFresh(env: DriverEnv, sources: Sources): Promise<SqliteStore | undefined> {
  const path = indexPath(env);
  if (!existsSync(path)) return undefined;
  let store: SqliteStore | undefined;
  try {
    store = openSqliteStore(path);
    if (lastSync(store) && (await new IndexSync(store).pending(sources)) === 0) return store;
  } catch {
    // an index that cannot be opened or checked is not fresh
  }
  await store?.close();
  return undefined;
}

/** The session an id or unique id prefix names in the index (of these sources), if exactly one. */
export function resolveInIndex(
  store: SqliteStore,
  idOrPrefix: string,
  sources: readonly string[],
  source?: string,
): SessionInfo | undefined {
  const rows = store
    .stmt(
      // a range on the primary key: the ids that start with the prefix
      `SELECT id, info_json FROM sessions WHERE id >= ? AND id < ? ${source ? 'AND source = ?' : ''} LIMIT 50`,
    )
    .all(idOrPrefix, `${idOrPrefix}\uffff`, ...(source ? [source] : [])) as { id: string; info_json: string }[];
  const infos = rows.map((r) => JSON.parse(r.info_json) as SessionInfo).filter((i) => sources.includes(i.source));
  const exact = infos.filter((i) => i.id === idOrPrefix);
  const matches = exact.length ? exact : infos;
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * A session opened through a fresh index: the index resolves the id or prefix (no listing of every
 * agent's files), then the agent's own driver reads that one session. Undefined when the index is
 * not fresh or does not know the id; callers then resolve through the files.
 */
export async function openViaIndex(
  env: DriverEnv,
  sources: Sources,
  idOrPrefix: string,
  source?: string,
): Promise<{ info: SessionInfo; session: Session; driver: SessionDriver } | undefined> {
  const store = await openIndexIfFresh(env, sources);
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
