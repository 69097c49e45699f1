/**
 * A store's identity: an id kept in its database, made once, that a server answers in a header so
 * that `push` can tell it serves the very store the push reads from (the local index pushed into
 * itself duplicated every session). The id alone would follow a copy of the database to another
 * machine, so what is answered adds where it lives: the SQLite file's device and inode, the
 * PostgreSQL cluster's system identifier (where readable).
 */
import { createHash, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { SessionDriver } from '../model/driver.js';
import { PostgresStore } from '../stores/postgres/index.js';
import { SqliteStore } from '../stores/sqlite/index.js';

export { STORE_ID_HEADER } from './push.js';

const SQLITE_KEY = 'store_id';

const hashed = (prefix: string, parts: readonly string[]) =>
  `${prefix}-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)}`;

function sqliteIdentity(store: SqliteStore): string | undefined {
  const read = () =>
    (store.db.prepare('SELECT value FROM index_meta WHERE key = ?').get(SQLITE_KEY) as { value: string } | undefined)?.value;
  let id: string | undefined;
  try {
    id = read();
    if (!id) {
      // OR IGNORE: two processes making it at once keep the first
      store.db.prepare('INSERT OR IGNORE INTO index_meta (key, value) VALUES (?, ?)').run(SQLITE_KEY, randomUUID());
      id = read();
    }
  } catch {
    // a read-only database that has none yet, or a busy one: no identity to compare
    return undefined;
  }
  if (!id) return undefined;
  let file = '';
  try {
    const st = statSync(store.path);
    file = `${st.dev}:${st.ino}`;
  } catch {
    // an in-memory database: its id alone
  }
  return hashed('sqlite', [id, file]);
}

/**
 * PostgreSQL: the cluster, the database, the schema and when its first migration ran (kept in
 * tb_migrations), so no table is added for it; hashed, so the header says nothing of their names.
 */
async function postgresIdentity(store: PostgresStore): Promise<string | undefined> {
  await store.ready();
  const r = await store.pool.query<{ db: string; schema: string; at: string | null }>(
    `SELECT current_database() AS db, current_schema() AS schema,
            (SELECT applied_at::text FROM tb_migrations WHERE version = (SELECT min(version) FROM tb_migrations)) AS at`,
  );
  const row = r.rows[0];
  if (!row?.at) return undefined;
  // readable by superusers and pg_monitor only: without it, a restored dump on another server shares the id
  const cluster = await store.pool
    .query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')
    .then((r) => r.rows[0]?.id ?? '')
    .catch(() => '');
  return hashed('pg', [cluster, row.db, row.schema, row.at]);
}

/** The store's identity, or undefined for a store that keeps none (memory:, an agent's own files). */
export async function storeIdentity(store: SessionDriver): Promise<string | undefined> {
  if (store instanceof SqliteStore) return sqliteIdentity(store);
  if (store instanceof PostgresStore) return postgresIdentity(store);
  return undefined;
}
