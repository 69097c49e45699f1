/** A throwaway PostgreSQL schema per test file, so parallel files never see each other's rows. */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { expect } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore, SqliteTokenStore, type TokenStore } from '../../src/server/tokens.js';
import type { StatsBucket, StatsResult } from '../../src/server/web/data.js';
import { openPostgresStore, type PostgresStore } from '../../src/stores/postgres/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import type { StatsTotals } from '../helpers/cli.js';

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

/** A fresh PostgreSQL schema and a SQLite store file (in `dir`, a new temp directory), both holding `sessions` under their own ids. */
export async function storesHolding(
  prefix: string,
  sessions: readonly Session[],
): Promise<{ pg: TestSchema; sqlite: SqliteStore; dir: string; close(): Promise<void> }> {
  const pgSchema = await freshSchema(prefix);
  const dir = await mkdtemp(join(tmpdir(), `${prefix.replace(/_/g, '-')}-`));
  const sqlite = openSqliteStore(join(dir, 'store.db'));
  for (const s of sessions) {
    await pgSchema.store.writeSession(s, { keepId: true });
    await sqlite.writeSession(s, { keepId: true });
  }
  return {
    pg: pgSchema,
    sqlite,
    dir,
    close: async () => {
      await pgSchema.drop();
      sqlite.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A chart's buckets with their cost rounded (stores sum them in other orders), each list by key. */
export function roundedChart(r: StatsResult) {
  const round = (b: StatsBucket) => ({ ...b, cost: Math.round(b.cost * 1e9) / 1e9 });
  const sorted = (list: StatsBucket[]) => list.map(round).sort((a, b) => (a.key < b.key ? -1 : 1));
  return {
    totals: round(r.totals),
    byDay: sorted(r.byDay),
    byModel: sorted(r.byModel),
    byProject: sorted(r.byProject),
    bySource: sorted(r.bySource),
    sessions: r.sessions,
  };
}

export interface TeamServer {
  db: TestSchema;
  tokens: PostgresTokenStore;
  server: RunningServer;
  /** the key of one project (named by teamServer's `project`) */
  key: string;
  close(): Promise<void>;
}

/** A team server (`threadbase serve --db postgres://…`) over a fresh schema, with one project's key. */
export async function teamServer(prefix: string, project = 'team'): Promise<TeamServer> {
  const db = await freshSchema(prefix);
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  const key = (await tokens.createToken(project)).key;
  const server = await startServer({ store: db.store, tokens, port: 0, log: () => undefined });
  return {
    db,
    tokens,
    server,
    key,
    close: async () => {
      await server.close();
      await db.drop();
    },
  };
}

/** The team server's `/stats` over `query` (its PostgreSQL costSummary) as totals; expects a 200. */
export async function teamServerStats(team: TeamServer, query: Record<string, string> = {}): Promise<StatsTotals> {
  const res = await fetch(`${team.server.url}/api/v1/threadbase/stats?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${team.key}` },
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { cost: number; usage: { input: number; output: number; messages: number } } };
  return { cost: data.cost, input: data.usage.input, output: data.usage.output, messages: data.usage.messages };
}

/** What a server runs over: a store and its token store; `close` closes both and removes what was made. */
export interface ServerBackend {
  store: SessionDriver;
  tokens: TokenStore;
  close(): Promise<void>;
}

/** A fresh PostgreSQL schema (`prefix`_…) holding the sessions and the tokens. */
export async function postgresBackend(prefix: string): Promise<ServerBackend> {
  const db = await freshSchema(prefix);
  return { store: db.store, tokens: new PostgresTokenStore(db.store.pool, db.store.ready()), close: () => db.drop() };
}

/** One SQLite file (`file`) in a new temp folder (`prefix`…) holding the sessions and the tokens. */
export async function sqliteBackend(prefix: string): Promise<ServerBackend & { file: string }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const file = join(dir, 'server.db');
  const store = openSqliteStore(file);
  const tokens = new SqliteTokenStore(file);
  return {
    store,
    tokens,
    file,
    close: async () => {
      await tokens.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
