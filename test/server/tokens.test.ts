/** API keys: shown once, stored as a hash, matched per project, in SQLite and PostgreSQL alike. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey, PostgresTokenStore, SqliteTokenStore, type TokenStore } from '../../src/server/tokens.js';
import { openStore } from '../../src/stores/open.js';
import { PostgresStore } from '../../src/stores/postgres/index.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let dir: string;
let db: TestSchema;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-tokens-'));
  db = await freshSchema('tb_tokens');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await db?.drop();
});

async function contract(tokens: TokenStore): Promise<string[]> {
  const a1 = await tokens.createToken('alpha', 'laptop');
  const a2 = await tokens.createToken('alpha');
  const b = await tokens.createToken('beta');
  expect(a1.key).not.toBe(a2.key);
  expect(a1.project.id).toBe(a2.project.id);
  expect(b.project.id).not.toBe(a1.project.id);
  expect(await tokens.projectForKey(a1.key)).toEqual({ id: a1.project.id, name: 'alpha' });
  expect(await tokens.projectForKey(a2.key)).toEqual({ id: a1.project.id, name: 'alpha' });
  expect((await tokens.projectForKey(b.key))?.name).toBe('beta');
  expect(await tokens.projectForKey(`${a1.key}x`)).toBeUndefined();
  expect(await tokens.projectForKey('')).toBeUndefined();
  return [a1.key, a2.key, b.key];
}

describe('token stores', () => {
  it('SQLite: keys resolve to their project and only hashes are stored', async () => {
    const path = join(dir, 'index.db');
    const tokens = new SqliteTokenStore(path);
    const keys = await contract(tokens);
    await tokens.close();
    const raw = new Database(path, { readonly: true });
    const hashes = (raw.prepare('SELECT hash FROM tb_tokens').all() as { hash: string }[]).map((r) => r.hash);
    raw.close();
    expect(hashes.sort()).toEqual(keys.map(hashKey).sort());
    // a reopened store still knows them
    const again = new SqliteTokenStore(path);
    expect((await again.projectForKey(keys[0] ?? ''))?.name).toBe('alpha');
    await again.close();
  });

  it('PostgreSQL: the same contract, in the store database', async () => {
    const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
    const keys = await contract(tokens);
    const rows = (await db.store.pool.query<{ hash: string }>('SELECT hash FROM tb_tokens')).rows.map((r) => r.hash);
    expect(rows.sort()).toEqual(keys.map(hashKey).sort());
  });

  it('openStore opens the PostgreSQL store from a URL', async () => {
    const store = await openStore(db.url);
    expect(store).toBeInstanceOf(PostgresStore);
    expect(store.name).toBe('postgres');
    await store.close?.();
  });
});
