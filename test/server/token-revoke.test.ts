/**
 * API keys can be listed (never the key nor its hash) and revoked; a revoked key is refused on
 * every /api/v1 route from the next request on, by a server that keeps running, while the other
 * key of the same project still works. In memory, in a SQLite file and in a PostgreSQL schema;
 * the CLI (`token list`, `token revoke`) in-process and as a real process, with and without a terminal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { openServerStores, type RunningServer, type ServerStores, startServer } from '../../src/server/index.js';
import { hashKey, SqliteTokenStore, type TokenInfo } from '../../src/server/tokens.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { MIGRATIONS } from '../../src/stores/postgres/migrations.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { freshSchema, PG_URL, type TestSchema } from './pg-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
let dir: string;
let pgSchema: TestSchema;
/** Environment of the CLI, as a process and as the in-process runner takes it. */
const processEnv = () => ({ ...process.env, HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') });
const env = (): DriverEnv => ({ home: dir, env: processEnv() });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-token-revoke-'));
  pgSchema = await freshSchema('tb_revoke');
});
afterAll(async () => {
  await pgSchema?.drop();
  await rm(dir, { recursive: true, force: true });
});

const call = (server: RunningServer, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

/** Every kind of /api/v1 route: Acontext and threadbase's own, reads and writes. */
function routes(sessionId: string): [string, string, unknown?][] {
  return [
    ['GET', '/ping'],
    ['GET', '/session'],
    ['POST', '/session', {}],
    ['GET', `/session/${sessionId}/messages`],
    ['GET', `/session/${sessionId}/token_counts`],
    ['POST', `/session/${sessionId}/messages`, { blob: { role: 'user', content: 'hi' }, format: 'anthropic' }],
    ['GET', '/threadbase/sessions'],
    ['GET', `/threadbase/sessions/${sessionId}`],
    ['GET', '/threadbase/search?q=hi'],
    ['GET', '/threadbase/stats'],
    ['DELETE', `/session/${sessionId}`],
  ];
}

function expectNoSecrets(printed: string, keys: string[]): void {
  for (const key of keys) {
    expect(printed).not.toContain(key);
    expect(printed).not.toContain(hashKey(key));
  }
}

/**
 * The contract on one database. `db` is the --db value the CLI gets (undefined: only the API is
 * exercised, as memory: holds nothing across processes).
 */
async function revokeContract(stores: ServerStores, db: string | undefined): Promise<void> {
  const { tokens } = stores;
  const kept = await tokens.createToken('alpha', 'laptop');
  const doomed = await tokens.createToken('alpha', 'ci');
  const other = await tokens.createToken('beta');
  const keys = [kept.key, doomed.key, other.key];

  const listed = await tokens.listTokens('alpha');
  expect(listed.map((t) => t.id).sort()).toEqual([kept.id, doomed.id].sort());
  expect(listed.map((t) => t.label).sort()).toEqual(['ci', 'laptop']);
  for (const t of listed) {
    expect(t.project).toBe('alpha');
    expect(t.prefix).toMatch(/^tb_.{8}$/);
    expect(Number.isNaN(Date.parse(t.createdAt))).toBe(false);
    expect(t.revokedAt).toBeUndefined();
  }
  expect(listed.find((t) => t.id === doomed.id)?.prefix).toBe(doomed.key.slice(0, 11));
  expect((await tokens.listTokens()).map((t) => t.project).sort()).toEqual(['alpha', 'alpha', 'beta']);
  expect(await tokens.listTokens('nobody')).toEqual([]);
  expectNoSecrets(JSON.stringify(await tokens.listTokens()), keys);

  const server = await startServer({ store: stores.store, tokens, port: 0, log: () => undefined });
  try {
    const created = await call(server, kept.key, 'POST', '/session', {});
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as { data: { id: string } }).data.id;
    for (const key of [kept.key, doomed.key]) expect((await call(server, key, 'GET', '/session')).status).toBe(200);
    const used = await tokens.listTokens('alpha');
    expect(used.every((t) => t.lastUsedAt !== undefined)).toBe(true);

    // Revoked from another connection (the CLI) when there is a database, while the server runs on.
    let revoked: TokenInfo | undefined;
    if (db) {
      const out = await runCliOk(env(), ['token', 'revoke', doomed.id, '--db', db, '--yes', '--json']);
      revoked = JSON.parse(out) as TokenInfo;
      expectNoSecrets(out, keys);
    } else revoked = await tokens.revokeToken(doomed.id);
    expect(revoked?.id).toBe(doomed.id);
    expect(revoked?.revokedAt).toBeDefined();

    for (const [method, path, body] of routes(sessionId)) {
      const refused = await call(server, doomed.key, method, path, body);
      expect(refused.status, `${method} ${path} with the revoked key`).toBe(401);
    }
    // The other key of the project, and the other project, still work; the session was not touched.
    expect((await call(server, kept.key, 'GET', `/threadbase/sessions/${sessionId}`)).status).toBe(200);
    expect((await call(server, other.key, 'GET', '/session')).status).toBe(200);
    const afterRevoke = await call(server, kept.key, 'GET', '/session');
    expect(((await afterRevoke.json()) as { data: { items: { id: string }[] } }).data.items.map((s) => s.id)).toEqual([
      sessionId,
    ]);

    // Listed still, with its revocation; revoking again keeps the first time.
    const after = await tokens.listTokens('alpha');
    expect(after.find((t) => t.id === doomed.id)?.revokedAt).toBe(revoked?.revokedAt);
    expect(after.find((t) => t.id === kept.id)?.revokedAt).toBeUndefined();
    expect((await tokens.revokeToken(doomed.id))?.revokedAt).toBe(revoked?.revokedAt);
    expect(await tokens.projectForKey(doomed.key)).toBeUndefined();

    // By prefix, and by the key itself.
    const byPrefix = await tokens.revokeToken(other.key.slice(0, 11));
    expect(byPrefix?.id).toBe(other.id);
    expect((await call(server, other.key, 'GET', '/session')).status).toBe(401);
    expect((await tokens.revokeToken(kept.key))?.id).toBe(kept.id);
    expect((await call(server, kept.key, 'GET', '/session')).status).toBe(401);
    expect(await tokens.revokeToken('tok_000000000000')).toBeUndefined();
  } finally {
    await server.close();
  }
}

describe('listing and revoking keys', () => {
  it('memory', async () => {
    const stores = await openServerStores('memory:', env());
    try {
      await revokeContract(stores, undefined);
    } finally {
      await stores.close();
    }
  });

  it('SQLite file: revoked by the CLI while the server runs', async () => {
    const path = join(dir, 'team.db');
    const stores = await openServerStores(path, env());
    try {
      await revokeContract(stores, path);
    } finally {
      await stores.close();
    }
    // Only hashes in the file, and the revocation is in it.
    const raw = new Database(path, { readonly: true });
    const rows = raw.prepare('SELECT hash, prefix, revoked_at FROM tb_tokens').all() as {
      hash: string;
      revoked_at: string | null;
    }[];
    raw.close();
    expect(rows).toHaveLength(3);
    for (const r of rows) {
      expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.revoked_at).not.toBeNull();
    }
  });

  it('PostgreSQL: revoked by the CLI while the server runs', async () => {
    const stores = await openServerStores(pgSchema.url, env());
    try {
      await revokeContract(stores, pgSchema.url);
    } finally {
      await stores.close();
    }
  });
});

describe('last use', () => {
  it('SQLite: a key is accepted while another process holds the write lock; its use is noted later', async () => {
    const path = join(dir, 'busy.db');
    const tokens = new SqliteTokenStore(path);
    const { key, id } = await tokens.createToken('alpha');
    const writer = new Database(path);
    try {
      writer.exec('BEGIN IMMEDIATE'); // as a sync writing to the index does
      expect(await tokens.projectForKey(key)).toMatchObject({ name: 'alpha' });
      expect((await tokens.listTokens())[0]?.lastUsedAt).toBeUndefined();
      writer.exec('COMMIT');
      expect(await tokens.projectForKey(key)).toMatchObject({ name: 'alpha' });
      const [listed] = await tokens.listTokens();
      expect(listed?.id).toBe(id);
      expect(listed?.lastUsedAt).toBeDefined();
    } finally {
      writer.close();
      await tokens.close();
    }
  });
});

describe('revoking by prefix', () => {
  it('refuses a prefix two keys share, and revokes neither', async () => {
    const path = join(dir, 'shared-prefix.db');
    const tokens = new SqliteTokenStore(path);
    try {
      const a = await tokens.createToken('alpha');
      const b = await tokens.createToken('alpha');
      // 48 random bits rarely collide; make them.
      const raw = new Database(path);
      raw.prepare('UPDATE tb_tokens SET prefix = ? WHERE id = ?').run(a.key.slice(0, 11), b.id);
      raw.close();
      const refused = await tokens.revokeToken(a.key.slice(0, 11)).then(
        () => '',
        (e: Error) => e.message,
      );
      expect(refused).toContain('matches several keys');
      expect(refused).toContain(a.id);
      expect(refused).toContain(b.id);
      expect((await tokens.listTokens()).filter((t) => t.revokedAt)).toEqual([]);
      expect((await tokens.revokeToken(b.id))?.id).toBe(b.id);
      expect((await tokens.projectForKey(a.key))?.name).toBe('alpha');
    } finally {
      await tokens.close();
    }
  });
});

describe('keys made before ids existed', () => {
  it('SQLite: an old file gets ids without losing a key', async () => {
    const path = join(dir, 'old.db');
    const oldKey = 'tb_madeBeforeIdsExistedAAAAAAAAAAAAAAAAA';
    const raw = new Database(path);
    // The tables as the first SqliteTokenStore made them.
    raw.exec(`
      CREATE TABLE tb_projects (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE tb_tokens (hash TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES tb_projects(id) ON DELETE CASCADE,
        label TEXT, created_at TEXT NOT NULL);
      CREATE INDEX tb_tokens_project ON tb_tokens(project_id);`);
    raw.prepare("INSERT INTO tb_projects VALUES ('p1', 'legacy', '2026-01-01T00:00:00.000Z')").run();
    raw.prepare("INSERT INTO tb_tokens VALUES (?, 'p1', 'old', '2026-01-02T00:00:00.000Z')").run(hashKey(oldKey));
    raw.close();

    const tokens = new SqliteTokenStore(path);
    try {
      expect(await tokens.projectForKey(oldKey)).toEqual({ id: 'p1', name: 'legacy' });
      const [old] = await tokens.listTokens();
      expect(old).toMatchObject({ project: 'legacy', label: 'old', createdAt: '2026-01-02T00:00:00.000Z' });
      expect(old?.id).toMatch(/^tok_[0-9a-f]{12}$/);
      expect(old?.prefix).toBeUndefined();
      // a reopened file is not migrated twice: the id stays
      const again = new SqliteTokenStore(path);
      expect((await again.listTokens())[0]?.id).toBe(old?.id);
      await again.close();
      expect((await tokens.revokeToken(old?.id ?? ''))?.revokedAt).toBeDefined();
      expect(await tokens.projectForKey(oldKey)).toBeUndefined();
    } finally {
      await tokens.close();
    }
  });

  it('PostgreSQL: migration 2 gives old keys ids and keeps them working', async () => {
    const schema = `tb_revoke_old_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const oldKey = 'tb_madeBeforeIdsExistedBBBBBBBBBBBBBBBBB';
    try {
      // A schema at version 1, with a key in it.
      await admin.query(`CREATE SCHEMA "${schema}"`);
      await admin.query(`SET search_path = "${schema}"`);
      await admin.query(
        'CREATE TABLE tb_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await admin.query(MIGRATIONS[0]?.sql ?? '');
      await admin.query('INSERT INTO tb_migrations (version, name) VALUES (1, $1)', [MIGRATIONS[0]?.name]);
      await admin.query("INSERT INTO tb_projects (id, name) VALUES ('p1', 'legacy')");
      await admin.query("INSERT INTO tb_tokens (hash, project_id, label) VALUES ($1, 'p1', 'old')", [hashKey(oldKey)]);

      const store = await openPostgresStore(`${PG_URL}?schema=${schema}`);
      const { PostgresTokenStore } = await import('../../src/server/tokens.js');
      const tokens = new PostgresTokenStore(store.pool, store.ready());
      try {
        const versions = (await store.pool.query<{ version: number }>('SELECT version FROM tb_migrations ORDER BY version')).rows;
        expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
        expect(await tokens.projectForKey(oldKey)).toEqual({ id: 'p1', name: 'legacy' });
        const [old] = await tokens.listTokens('legacy');
        expect(old).toMatchObject({ project: 'legacy', label: 'old' });
        expect(old?.id).toMatch(/^tok_[0-9a-f]{12}$/);
        expect(old?.prefix).toBeUndefined();
        expect(old?.lastUsedAt).toBeDefined();
        expect((await tokens.revokeToken(old?.id ?? ''))?.revokedAt).toBeDefined();
        expect(await tokens.projectForKey(oldKey)).toBeUndefined();
      } finally {
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});

/** The CLI as a real process; `viaTerminal` runs it under `script`, so it has a pseudo-terminal. */
function runProcess(args: string[], opts: { input?: string; viaTerminal?: boolean } = {}) {
  return new Promise<{ code: number; out: string; err: string }>((resolve, reject) => {
    const cli = [process.execPath, '--import', 'tsx', 'src/cli/run.ts', ...args];
    const quoted = cli.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
    const p: ChildProcess = opts.viaTerminal
      ? spawn('script', ['-qefc', quoted, '/dev/null'], { cwd: ROOT, env: processEnv() })
      : spawn(cli[0] as string, cli.slice(1), { cwd: ROOT, env: processEnv() });
    let out = '';
    let err = '';
    p.stdout?.on('data', (d) => (out += d));
    p.stderr?.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, out, err }));
    // Written at once: the terminal (or pipe) holds the answer until the prompt reads it.
    if (opts.input !== undefined) p.stdin?.write(opts.input);
    else p.stdin?.end();
  });
}

describe('token list / token revoke (CLI)', () => {
  it('lists without secrets, refuses to revoke without a terminal or --yes, and asks on a terminal', async () => {
    const path = join(dir, 'cli.db');
    const a = JSON.parse(await runCliOk(env(), ['token', 'create', '--project', 'alpha', '--db', path, '--json'])) as {
      key: string;
      id: string;
    };
    const b = JSON.parse(
      await runCliOk(env(), ['token', 'create', '--project', 'alpha', '--label', 'ci box', '--db', path, '--json']),
    ) as { key: string; id: string };
    await runCliOk(env(), ['token', 'create', '--project', 'beta', '--db', path]);

    const table = await runCliOk(env(), ['token', 'list', '--db', path]);
    expect(table.split('\n')[0]).toMatch(/^ID\s+PREFIX\s+PROJECT\s+LABEL\s+CREATED\s+LAST USED\s+REVOKED$/);
    expect(table).toContain(a.id);
    expect(table).toContain('ci box');
    expectNoSecrets(table, [a.key, b.key]);
    const alpha = JSON.parse(
      await runCliOk(env(), ['token', 'list', '--project', 'alpha', '--db', path, '--json']),
    ) as TokenInfo[];
    expect(alpha.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expectNoSecrets(JSON.stringify(alpha), [a.key, b.key]);

    // No terminal, no --yes: refused with exit 2, nothing revoked (a real process with a pipe for stdin).
    const refused = await runProcess(['token', 'revoke', b.id, '--db', path]);
    expect(refused.code, refused.err).toBe(2);
    expect(refused.err).toMatch(/no terminal to confirm on; pass --yes/);
    const stillThere = new SqliteTokenStore(path);
    try {
      expect((await stillThere.projectForKey(b.key))?.name).toBe('alpha');

      // On a terminal it asks: "n" keeps the key, "y" revokes it.
      const declined = await runProcess(['token', 'revoke', b.id, '--db', path], { input: 'n\n', viaTerminal: true });
      expect(declined.out).toContain(`Revoke key ${b.id} (project alpha`);
      expect(declined.out).toContain('not confirmed');
      expect(declined.code).toBe(1);
      expect((await stillThere.projectForKey(b.key))?.name).toBe('alpha');

      const accepted = await runProcess(['token', 'revoke', b.id, '--db', path], { input: 'y\n', viaTerminal: true });
      expect(accepted.code, accepted.out).toBe(0);
      expect(accepted.out).toContain(`revoked ${b.id}`);
      expect(await stillThere.projectForKey(b.key)).toBeUndefined();
      expect((await stillThere.projectForKey(a.key))?.name).toBe('alpha');
    } finally {
      await stillThere.close();
    }

    const unknown = await runCli(env(), ['token', 'revoke', 'tok_ffffffffffff', '--db', path, '--yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no key with id or prefix tok_ffffffffffff');
    const listed = JSON.parse(await runCliOk(env(), ['token', 'list', '--db', path, '--json'])) as TokenInfo[];
    expect(listed.find((t) => t.id === b.id)?.revokedAt).toBeDefined();
    expect(listed.find((t) => t.id === a.id)?.revokedAt).toBeUndefined();
  }, 90_000);
});
