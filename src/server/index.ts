/**
 * Starting the team server: open the store named by --db (PostgreSQL URL, SQLite path, memory:,
 * or the local index) with the token store in the same database, and serve the Hono app.
 */
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { makeDirectorySync } from '../formats/shared/atomic.js';
import type { DriverEnv, SessionDriver } from '../model/driver.js';
import { openStore, sqliteFileOf, storeKindOf, threadbaseHome } from '../stores/open.js';
import { PostgresStore } from '../stores/postgres/index.js';
import { createApp, type ServerOptions } from './app.js';
import { MemoryTokenStore, PostgresTokenStore, SqliteTokenStore, type TokenStore } from './tokens.js';

export { createApp, type ServerOptions } from './app.js';
export { hashKey, MemoryTokenStore, PostgresTokenStore, SqliteTokenStore, type TokenStore } from './tokens.js';

export interface ServerStores {
  store: SessionDriver;
  tokens: TokenStore;
  close(): Promise<void>;
}

/** The SQLite file a --db value names (the local index when none). */
export function sqlitePathOf(db: string | undefined, env: DriverEnv): string {
  return !db ? join(threadbaseHome(env), 'index.db') : sqliteFileOf(db);
}

export async function openServerStores(
  db: string | undefined,
  env: DriverEnv,
  warn?: (m: string) => void,
): Promise<ServerStores> {
  // --db takes a bare file name too (serve --db team.db)
  const kind = db ? storeKindOf(db, { fileNames: true }) : 'sqlite';
  if (kind === 'postgres' && db) {
    const { openPostgresStore } = await import('../stores/postgres/index.js');
    const store = await openPostgresStore(db);
    return { store, tokens: new PostgresTokenStore(store.pool, store.ready()), close: () => store.close() };
  }
  if (kind === 'memory') {
    const store = await openStore('memory:', { env });
    return { store, tokens: new MemoryTokenStore(), close: async () => undefined };
  }
  const path = sqlitePathOf(db, env);
  const { dirname } = await import('node:path');
  makeDirectorySync(dirname(path));
  const store = await openStore(db ? `sqlite:${path}` : undefined, { env, warn });
  const tokens = new SqliteTokenStore(path);
  return {
    store,
    tokens,
    close: async () => {
      await tokens.close();
      await store.close?.();
    },
  };
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** createApp's options, and where and how the server listens. */
export interface StartServerOptions extends ServerOptions {
  port?: number;
  host?: string;
  /** A client that has not sent its whole request (headers and body) by then gets 408 (default 60 s). */
  requestTimeoutMs?: number;
}

/**
 * A 204 (a CORS preflight's answer) has no body, so no content-type. @hono/node-server gives one
 * (`text/plain`) to every answer without, except one it writes straight from its own Response made
 * with a body and headers as a plain record: so the 204 is made that way, its body an empty stream
 * (a string or bytes would add a content-length, which a 204 must not carry either).
 */
function withoutBodyType(res: Response): Response {
  if (res.status !== 204) return res;
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
  });
  const empty = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  return new Response(empty, { status: 204, statusText: res.statusText, headers });
}

export async function startServer(opts: StartServerOptions): Promise<RunningServer> {
  const app = createApp(opts);
  const fetch: typeof app.fetch = async (...args) => withoutBodyType(await app.fetch(...args));
  const host = opts.host ?? '127.0.0.1';
  // Slow clients (a trickled body) hold a socket only this long; Node's defaults are 5 min, checked every 30 s.
  const requestTimeout = opts.requestTimeoutMs ?? 60_000;
  const serverOptions = {
    requestTimeout,
    headersTimeout: Math.min(requestTimeout, 30_000),
    connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(requestTimeout / 4))),
  };
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: opts.port ?? 8029, hostname: host, serverOptions }, (info) => {
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${info.port}`;
      resolve({
        url,
        port: info.port,
        close: () =>
          new Promise<void>((res) => {
            server.close(() => res());
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      });
    });
    server.on('error', reject);
  });
}

export { PostgresStore };
