/** The index, brought up to date (incrementally) when its last sync is older than maxAgeMs. */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Sources } from '../../formats/registry.js';
import type { DriverEnv } from '../../model/driver.js';
import type { ParseWarning } from '../../model/types.js';
import { openSqliteStore, type SqliteStore } from '../sqlite/index.js';
import { IndexSync, indexPath, lastSync } from './sync.js';

export const DEFAULT_MAX_AGE_MS = 30_000;

export async function openFreshIndex(
  env: DriverEnv,
  sources: Sources,
  opts: { maxAgeMs?: number; sync?: boolean; onWarning?: (w: ParseWarning) => void } = {},
): Promise<SqliteStore> {
  const path = indexPath(env);
  await mkdir(dirname(path), { recursive: true });
  const store = openSqliteStore(path);
  const last = lastSync(store);
  const age = last ? Date.now() - Date.parse(last) : Number.POSITIVE_INFINITY;
  if (opts.sync !== false && age > (opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS)) {
    await new IndexSync(store).sync(sources, opts.onWarning ? { onWarning: opts.onWarning } : {});
  }
  return store;
}
