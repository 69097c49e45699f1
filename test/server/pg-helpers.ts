/** A throwaway PostgreSQL schema per test file, so parallel files never see each other's rows. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore, type PostgresStore } from '../../src/stores/postgres/index.js';

export const PG_URL = process.env.THREADBASE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  schema: string;
  /** postgres:// URL that puts the store in this schema */
  url: string;
  store: PostgresStore;
  drop(): Promise<void>;
}

export async function freshSchema(prefix = 'tb_test'): Promise<TestSchema> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const url = `${PG_URL}?schema=${schema}`;
  const store = await openPostgresStore(url);
  return {
    schema,
    url,
    store,
    drop: async () => {
      await store.close();
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}
