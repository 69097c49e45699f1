/**
 * API keys and the projects they belong to. A key is shown once when created and stored only as
 * its SHA-256 hash; requests are matched by hashing the presented key. Kept in the same database
 * as the sessions: PostgreSQL tables tb_projects/tb_tokens, or the same tables in the SQLite file.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type pg from 'pg';

export interface Project {
  id: string;
  name: string;
}

export interface CreatedToken {
  /** The key to hand to the client; not recoverable later. */
  key: string;
  project: Project;
}

export interface TokenStore {
  createToken(projectName: string, label?: string): Promise<CreatedToken>;
  /** The project a key belongs to; undefined for an unknown key. */
  projectForKey(key: string): Promise<Project | undefined>;
  close?(): Promise<void>;
}

export const KEY_PREFIX = 'tb_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function newKey(): string {
  return KEY_PREFIX + randomBytes(24).toString('base64url');
}

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
      await c.query('INSERT INTO tb_tokens (hash, project_id, label) VALUES ($1, $2, $3)', [hashKey(key), row.id, label ?? null]);
      await c.query('COMMIT');
      return { key, project: row };
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    await this.ready;
    const res = await this.pool.query<Project>(
      'SELECT p.id, p.name FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id WHERE t.hash = $1',
      [hashKey(key)],
    );
    return res.rows[0];
  }
}

/** Tokens in a SQLite file (the local index's file when the server runs over it). */
export class SqliteTokenStore implements TokenStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS tb_projects (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tb_tokens (
        hash TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES tb_projects(id) ON DELETE CASCADE,
        label TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS tb_tokens_project ON tb_tokens(project_id);
    `);
  }

  async createToken(projectName: string, label?: string): Promise<CreatedToken> {
    const now = new Date().toISOString();
    const create = this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO tb_projects (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING')
        .run(randomUUID(), projectName, now);
      const project = this.db.prepare('SELECT id, name FROM tb_projects WHERE name = ?').get(projectName) as Project;
      const key = newKey();
      this.db
        .prepare('INSERT INTO tb_tokens (hash, project_id, label, created_at) VALUES (?, ?, ?, ?)')
        .run(hashKey(key), project.id, label ?? null, now);
      return { key, project: { id: project.id, name: project.name } };
    });
    return create();
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    const row = this.db
      .prepare('SELECT p.id AS id, p.name AS name FROM tb_tokens t JOIN tb_projects p ON p.id = t.project_id WHERE t.hash = ?')
      .get(hashKey(key)) as Project | undefined;
    return row ? { id: row.id, name: row.name } : undefined;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

/** Tokens held in memory (tests, `--db memory:`). */
export class MemoryTokenStore implements TokenStore {
  private readonly projects = new Map<string, Project>();
  private readonly tokens = new Map<string, string>();

  async createToken(projectName: string): Promise<CreatedToken> {
    let project = this.projects.get(projectName);
    if (!project) {
      project = { id: randomUUID(), name: projectName };
      this.projects.set(projectName, project);
    }
    const key = newKey();
    this.tokens.set(hashKey(key), project.name);
    return { key, project };
  }

  async projectForKey(key: string): Promise<Project | undefined> {
    const name = this.tokens.get(hashKey(key));
    return name ? this.projects.get(name) : undefined;
  }
}
