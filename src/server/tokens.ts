/**
 * API keys and the projects they belong to. A key is shown once when created and stored only as
 * its SHA-256 hash; requests are matched by hashing the presented key. Kept in the same database
 * as the sessions: PostgreSQL tables tb_projects/tb_tokens, or the same tables in the SQLite file.
 * Each key also has a public id and keeps its first characters (prefix) so it can be listed and
 * revoked without ever showing it again; a revoked key stays listed and matches nothing.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { openDatabase } from '../formats/shared/sqlite.js';

export interface Project {
  id: string;
  name: string;
}

export interface CreatedToken {
  /** The key to hand to the client; not recoverable later. */
  key: string;
  /** The key's public id (what `token list` shows and `token revoke` takes). */
  id: string;
  project: Project;
}

/** What may be shown of a key: never the key nor its hash. */
export interface TokenInfo {
  id: string;
  /** The project's name. */
  project: string;
  /** The key's first characters; absent for keys made before prefixes were kept. */
  prefix?: string;
  label?: string;
  createdAt: string;
  /** Last request made with the key (recorded at most once a minute). */
  lastUsedAt?: string;
  revokedAt?: string;
}

export interface TokenStore {
  createToken(projectName: string, label?: string): Promise<CreatedToken>;
  /** The project a key belongs to; undefined for an unknown or revoked key. */
  projectForKey(key: string): Promise<Project | undefined>;
  /** Keys of one project, or of all, oldest first (revoked ones included). */
  listTokens(projectName?: string): Promise<TokenInfo[]>;
  /**
   * Revokes the key with this id, prefix, or the key itself; undefined when none matches. Revoking
   * a revoked key keeps its first revocation time. Throws when a prefix matches several keys.
   */
  revokeToken(idOrPrefix: string): Promise<TokenInfo | undefined>;
  close?(): Promise<void>;
}

export const KEY_PREFIX = 'tb_';
/** Characters of a key kept in clear: `tb_` and 8 of its 32 random ones (48 of 192 bits). */
const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 8;
/** lastUsedAt is written at most this often per key, so requests stay reads. */
const LAST_USED_EVERY_MS = 60_000;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function newKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

function newTokenId(): string {
  return `tok_${randomBytes(6).toString('hex')}`;
}

const prefixOf = (key: string) => key.slice(0, SHOWN_PREFIX_LENGTH);

class AmbiguousTokenError extends Error {
  constructor(idOrPrefix: string, ids: string[]) {
    super(`${idOrPrefix} matches several keys (${ids.join(', ')}); give the id`);
  }
}

/** The columns every backend reads a token's public part from. */
interface TokenRow {
  id: string;
  project: string;
  prefix: string | null;
  label: string | null;
  created_at: string | Date;
  last_used_at: string | Date | null;
  revoked_at: string | Date | null;
}

const iso = (t: string | Date) => (t instanceof Date ? t.toISOString() : t);

function tokenInfoOf(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    project: row.project,
    ...(row.prefix ? { prefix: row.prefix } : {}),
    ...(row.label !== null ? { label: row.label } : {}),
    createdAt: iso(row.created_at),
    ...(row.last_used_at ? { lastUsedAt: iso(row.last_used_at) } : {}),
    ...(row.revoked_at ? { revokedAt: iso(row.revoked_at) } : {}),
  };
}

const TOKEN_COLUMNS =
  't.id AS id, p.name AS project, t.prefix AS prefix, t.label AS label, t.created_at AS created_at, t.last_used_at AS last_used_at, t.revoked_at AS revoked_at';

export class PostgresTokenStore implements TokenStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly ready: Promise<void> = Promise.resolve(),
  ) {}

  async createToken(projectName: string, label?: string): Promise<CreatedToken> {
    await this.ready;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('INSERT INTO tb_projects (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
        randomUUID(),
        projectName,
      ]);
      const row = (await c.query<Project>('SELECT id, name FROM tb_projects WHERE name = $1', [projectName])).rows[0];
      if (!row) throw new Error(`project ${projectName} could not be created`);
      const key = newKey();
      const id = newTokenId();
      await c.query('INSERT INTO tb_tokens (hash, id, prefix, project_id, label) VALUES ($1, $2, $3, $4, $5)', [
        hashKey(key),
        id,
        prefixOf(key),
        row.id,
        label ?? null,
      ]);
      await c.query('COMMIT');
      return { key, id, project: row };
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    await this.ready;
    const hash = hashKey(key);
    const res = await this.pool.query<Project & { stale: boolean }>(
      `SELECT p.id, p.name, (t.last_used_at IS NULL OR t.last_used_at < now() - make_interval(secs => $2)) AS stale
       FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id WHERE t.hash = $1 AND t.revoked_at IS NULL`,
      [hash, LAST_USED_EVERY_MS / 1000],
    );
    const row = res.rows[0];
    if (!row) return undefined;
    // Best effort: a failed note of the last use never refuses a valid key.
    if (row.stale)
      await this.pool.query('UPDATE tb_tokens SET last_used_at = now() WHERE hash = $1', [hash]).catch(() => undefined);
    return { id: row.id, name: row.name };
  }

  async listTokens(projectName?: string): Promise<TokenInfo[]> {
    await this.ready;
    const res = await this.pool.query<TokenRow>(
      `SELECT ${TOKEN_COLUMNS} FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id
       WHERE $1::text IS NULL OR p.name = $1 ORDER BY t.created_at, t.id`,
      [projectName ?? null],
    );
    return res.rows.map(tokenInfoOf);
  }

  async revokeToken(idOrPrefix: string): Promise<TokenInfo | undefined> {
    await this.ready;
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const matches = (
        await c.query<{ id: string }>('SELECT id FROM tb_tokens WHERE id = $1 OR prefix = $1 OR hash = $2 FOR UPDATE', [
          idOrPrefix,
          hashKey(idOrPrefix),
        ])
      ).rows;
      if (matches.length > 1)
        throw new AmbiguousTokenError(
          idOrPrefix,
          matches.map((m) => m.id),
        );
      const id = matches[0]?.id;
      if (id === undefined) {
        await c.query('ROLLBACK');
        return undefined;
      }
      await c.query('UPDATE tb_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1', [id]);
      const row = (
        await c.query<TokenRow>(
          `SELECT ${TOKEN_COLUMNS} FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id WHERE t.id = $1`,
          [id],
        )
      ).rows[0];
      await c.query('COMMIT');
      return row ? tokenInfoOf(row) : undefined;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }
}

/**
 * Versioned schema of the token tables in a SQLite file. They share the file with the session
 * index, whose own migrations use PRAGMA user_version, so these steps are recorded apart.
 */
const SQLITE_TOKEN_MIGRATIONS: readonly { version: number; name: string; apply(db: Database.Database): void }[] = [
  {
    version: 1,
    name: 'projects, tokens',
    // IF NOT EXISTS: files made before this table of steps existed already have these tables.
    apply: (db) =>
      db.exec(`
      CREATE TABLE IF NOT EXISTS tb_projects (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tb_tokens (
        hash TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES tb_projects(id) ON DELETE CASCADE,
        label TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS tb_tokens_project ON tb_tokens(project_id);`),
  },
  {
    version: 2,
    name: 'tokens: public id and prefix, last use, revocation',
    apply: (db) => {
      db.exec(`
      ALTER TABLE tb_tokens ADD COLUMN id TEXT;
      ALTER TABLE tb_tokens ADD COLUMN prefix TEXT;
      ALTER TABLE tb_tokens ADD COLUMN last_used_at TEXT;
      ALTER TABLE tb_tokens ADD COLUMN revoked_at TEXT;`);
      // Keys made before keep working: a random id each, no prefix (the key is not known).
      const setId = db.prepare('UPDATE tb_tokens SET id = ? WHERE hash = ?');
      for (const { hash } of db.prepare('SELECT hash FROM tb_tokens WHERE id IS NULL').all() as { hash: string }[])
        setId.run(newTokenId(), hash);
      db.exec(`
      CREATE UNIQUE INDEX tb_tokens_id ON tb_tokens(id);
      CREATE INDEX tb_tokens_prefix ON tb_tokens(prefix);`);
    },
  },
];

function migrateSqliteTokens(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS tb_token_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  // IMMEDIATE: two processes opening the file at once apply each step once.
  db.transaction(() => {
    const done = new Set(
      (db.prepare('SELECT version FROM tb_token_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    for (const m of SQLITE_TOKEN_MIGRATIONS) {
      if (done.has(m.version)) continue;
      m.apply(db);
      db.prepare('INSERT INTO tb_token_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        new Date().toISOString(),
      );
    }
  }).immediate();
}

/** Tokens in a SQLite file (the local index's file when the server runs over it). */
export class SqliteTokenStore implements TokenStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = openDatabase(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    migrateSqliteTokens(this.db);
  }

  async createToken(projectName: string, label?: string): Promise<CreatedToken> {
    const now = new Date().toISOString();
    const create = this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO tb_projects (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
        .run(randomUUID(), projectName, now);
      const project = this.db.prepare('SELECT id, name FROM tb_projects WHERE name = ?').get(projectName) as Project;
      const key = newKey();
      const id = newTokenId();
      this.db
        .prepare('INSERT INTO tb_tokens (hash, id, prefix, project_id, label, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(hashKey(key), id, prefixOf(key), project.id, label ?? null, now);
      return { key, id, project: { id: project.id, name: project.name } };
    });
    return create();
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    const hash = hashKey(key);
    const row = this.db
      .prepare(
        `SELECT p.id AS id, p.name AS name, t.last_used_at AS lastUsedAt FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id
         WHERE t.hash = ? AND t.revoked_at IS NULL`,
      )
      .get(hash) as (Project & { lastUsedAt: string | null }) | undefined;
    if (!row) return undefined;
    const now = Date.now();
    if (!row.lastUsedAt || Date.parse(row.lastUsedAt) < now - LAST_USED_EVERY_MS) this.noteUse(hash, now);
    return { id: row.id, name: row.name };
  }

  /**
   * Best effort and without waiting: while another process (a sync) holds the file's write lock the
   * note is skipped, and made by a later request, rather than holding this request (and the server's
   * one thread) for the busy timeout.
   */
  private noteUse(hash: string, now: number): void {
    this.db.pragma('busy_timeout = 0');
    try {
      this.db.prepare('UPDATE tb_tokens SET last_used_at = ? WHERE hash = ?').run(new Date(now).toISOString(), hash);
    } catch {
      // SQLITE_BUSY or a read-only file: the key is still valid
    } finally {
      this.db.pragma('busy_timeout = 5000');
    }
  }

  async listTokens(projectName?: string): Promise<TokenInfo[]> {
    const rows = this.db
      .prepare(
        `SELECT ${TOKEN_COLUMNS} FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id
         WHERE ? IS NULL OR p.name = ? ORDER BY t.created_at, t.id`,
      )
      .all(projectName ?? null, projectName ?? null) as TokenRow[];
    return rows.map(tokenInfoOf);
  }

  async revokeToken(idOrPrefix: string): Promise<TokenInfo | undefined> {
    const revoke = this.db.transaction(() => {
      const matches = this.db
        .prepare('SELECT id FROM tb_tokens WHERE id = ? OR prefix = ? OR hash = ?')
        .all(idOrPrefix, idOrPrefix, hashKey(idOrPrefix)) as { id: string }[];
      if (matches.length > 1)
        throw new AmbiguousTokenError(
          idOrPrefix,
          matches.map((m) => m.id),
        );
      const id = matches[0]?.id;
      if (id === undefined) return undefined;
      this.db.prepare('UPDATE tb_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(new Date().toISOString(), id);
      const row = this.db
        .prepare(`SELECT ${TOKEN_COLUMNS} FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id WHERE t.id = ?`)
        .get(id) as TokenRow | undefined;
      return row ? tokenInfoOf(row) : undefined;
    });
    return revoke.immediate();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

interface MemoryToken {
  info: TokenInfo;
  hash: string;
}

/** Tokens held in memory (tests, `--db memory:`). */
export class MemoryTokenStore implements TokenStore {
  private readonly projects = new Map<string, Project>();
  private readonly tokens: MemoryToken[] = [];

  async createToken(projectName: string, label?: string): Promise<CreatedToken> {
    let project = this.projects.get(projectName);
    if (!project) {
      project = { id: randomUUID(), name: projectName };
      this.projects.set(projectName, project);
    }
    const key = newKey();
    const id = newTokenId();
    this.tokens.push({
      hash: hashKey(key),
      info: {
        id,
        project: project.name,
        prefix: prefixOf(key),
        ...(label !== undefined ? { label } : {}),
        createdAt: new Date().toISOString(),
      },
    });
    return { key, id, project };
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    const hash = hashKey(key);
    const token = this.tokens.find((t) => t.hash === hash && !t.info.revokedAt);
    if (!token) return undefined;
    token.info.lastUsedAt = new Date().toISOString();
    return this.projects.get(token.info.project);
  }

  async listTokens(projectName?: string): Promise<TokenInfo[]> {
    return this.tokens.filter((t) => projectName === undefined || t.info.project === projectName).map((t) => ({ ...t.info }));
  }

  async revokeToken(idOrPrefix: string): Promise<TokenInfo | undefined> {
    const hash = hashKey(idOrPrefix);
    const matches = this.tokens.filter((t) => t.info.id === idOrPrefix || t.info.prefix === idOrPrefix || t.hash === hash);
    if (matches.length > 1)
      throw new AmbiguousTokenError(
        idOrPrefix,
        matches.map((m) => m.info.id),
      );
    const token = matches[0];
    if (!token) return undefined;
    token.info.revokedAt ??= new Date().toISOString();
    return { ...token.info };
  }
}
