/**
 * `threadbase serve` on loopback over a MemoryStore, with one project's key and one user message per
 * session written through that project's view (as a push writes them, so the project lists them);
 * or over a SQLite store file, with one project's key.
 */
import { appendMessage, createSession } from '../../src/model/build.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { projectStores } from '../../src/server/scope.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

export interface ProjectServer {
  server: RunningServer;
  /** GET /api/v1/threadbase/<path>?<query> with the project's key */
  get(path: string, query: Record<string, string>): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

/** Each session `{ id, at, text }`: created at `at`, its one user message `text` at `at`, in project `/p`. */
export async function serveProjectSessions(
  sessions: readonly { id: string; at: string; text: string }[],
): Promise<ProjectServer> {
  const tokens = new MemoryTokenStore();
  const created = await tokens.createToken('team');
  const store = new MemoryStore();
  const project = projectStores(store)(created.project.id);
  if (!project.writeSession) throw new Error('a project view of a MemoryStore writes sessions');
  for (const { id, at, text } of sessions) {
    const session = createSession({ id, createdAt: at, project: '/p' });
    appendMessage(session, { role: 'user', content: [{ type: 'text', text }] }, { timestamp: at });
    await project.writeSession(session, { keepId: true });
  }
  const server = await startServer({ store, tokens, port: 0, log: () => undefined });
  return {
    server,
    async get(path, query) {
      const res = await fetch(`${server.url}/api/v1/threadbase/${path}?${new URLSearchParams(query)}`, {
        headers: { authorization: `Bearer ${created.key}` },
      });
      return { status: res.status, body: await res.json() };
    },
    close: () => server.close(),
  };
}

export interface ServedStoreFile {
  server: RunningServer;
  /** the project's key */
  key: string;
  /** the server as a store to open, the key in it: `http://<key>@host:port` */
  url: string;
  close(): Promise<void>;
}

/** A team server on loopback over the SQLite store file `file` (made if missing), with one project's key. */
export async function serveStoreFile(file: string): Promise<ServedStoreFile> {
  const tokens = new MemoryTokenStore();
  const { key } = await tokens.createToken('team-a');
  const server = await startServer({ store: openSqliteStore(file), tokens, port: 0, log: () => {} });
  return { server, key, url: `http://${key}@${new URL(server.url).host}`, close: () => server.close() };
}
