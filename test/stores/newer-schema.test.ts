/**
 * A store or index a newer threadbase migrated is refused, naming the file (or the PostgreSQL store) and
 * both versions: this one would not keep the newer tables up to date (search's copies, say).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadbaseError } from '../../src/model/errors.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { runCli } from '../helpers/cli.js';
import { freshSchema, PG_URL, type TestSchema } from '../server/pg-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-newer-schema-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function newerFile(name: string): string {
  const file = join(dir, name);
  openSqliteStore(file).close();
  const db = new Database(file);
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  return file;
}

describe('SQLite', () => {
  it('a store file of a newer schema is refused, read-only too, naming the file and both versions', () => {
    const file = newerFile('store.db');
    for (const readonly of [false, true]) {
      let err: unknown;
      try {
        openSqliteStore(file, { readonly }).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ThreadbaseError);
      expect((err as ThreadbaseError).code).toBe('newer_schema');
      expect((err as ThreadbaseError).file).toBe(file);
      expect((err as Error).message).toContain(`schema ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION}`);
    }
    // this version's own is opened as before
    expect(() => openSqliteStore(join(dir, 'own.db')).close()).not.toThrow();
  });

  it('threadbase search over a newer index says so and exits non-zero', async () => {
    const home = join(dir, 'home');
    const tbHome = join(home, '.threadbase');
    await import('node:fs/promises').then((fs) => fs.mkdir(tbHome, { recursive: true }));
    const file = join(tbHome, 'index.db');
    openSqliteStore(file).close();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const r = await runCli({ home, env: { HOME: home, THREADBASE_HOME: tbHome } }, ['search', 'anything']);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(file);
    expect(r.err).toContain('newer threadbase');
  });
});

describe('PostgreSQL', () => {
  let schema: TestSchema;
  beforeAll(async () => {
    schema = await freshSchema('tb_newer_schema');
  });
  afterAll(async () => {
    await schema?.drop();
  });

  it('a store a newer threadbase migrated is refused, naming both versions', async () => {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(`INSERT INTO "${schema.schema}".tb_migrations (version, name) VALUES (9999, 'from the future')`);
    } finally {
      await c.end();
    }
    const opened = openPostgresStore(schema.url);
    await expect(opened).rejects.toThrow(/migrated by a newer threadbase \(migration 9999; this one knows up to \d+\)/);
  });
});
