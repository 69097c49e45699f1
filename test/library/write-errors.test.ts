/**
 * A session a caller writes with a repeated entry id is refused by every threadbase store (memory,
 * SQLite, PostgreSQL, a remote server) with an error naming what the caller passed: its session id and
 * the repeated entry id, never an id the store made up for the write; and nothing is written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import { ThreadbaseError } from '../../src/model/errors.js';
import type { Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { freshSchema } from '../server/pg-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-write-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Opened {
  store: SessionDriver & Required<Pick<SessionDriver, 'writeSession'>>;
  close(): Promise<void>;
}

const stores: Record<string, () => Promise<Opened>> = {
  memory: async () => ({ store: new MemoryStore(), close: async () => {} }),
  sqlite: async () => {
    const store = openSqliteStore(join(dir, `${Math.random().toString(36).slice(2)}.db`));
    return { store, close: () => store.close() };
  },
  postgres: async () => {
    const db = await freshSchema('tb_write_err');
    return { store: db.store, close: () => db.drop() };
  },
  remote: async () => {
    const { startServer } = await import('../../src/server/index.js');
    const { MemoryTokenStore } = await import('../../src/server/tokens.js');
    const tokens = new MemoryTokenStore();
    const { key } = await tokens.createToken('team');
    const server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => {} });
    return { store: new RemoteStore(server.url, { key }), close: () => server.close() };
  },
};

const message = (id: string, parentId: string | null, text: string) => ({
  kind: 'message' as const,
  id,
  parentId,
  timestamp: '2025-01-01T00:00:00.000Z',
  message: { role: 'user' as const, parts: [{ type: 'text' as const, text }] },
});

function repeated(id: string): Session {
  return {
    id,
    source: 'threadbase',
    createdAt: '',
    updatedAt: '',
    messageCount: 0,
    entries: [message('e1', null, 'one'), message('e2', 'e1', 'two'), message('e1', 'e2', 'one again')],
  };
}

describe.each(Object.keys(stores))('writing a session with a repeated entry id: %s store', (name) => {
  const open = stores[name] as () => Promise<Opened>;

  it.each([
    ['without keepId', { keepId: false }],
    ['with keepId, the id free', { keepId: true }],
  ])('%s: names the session and entry ids the caller passed, writes nothing', async (_, opts) => {
    const { store, close } = await open();
    try {
      const err = await store.writeSession(repeated('caller-session-7'), opts).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ThreadbaseError);
      expect((err as ThreadbaseError).code).toBe('duplicate_entry');
      expect((err as Error).message).toMatch(/\be1\b/);
      expect((err as Error).message).toContain('caller-session-7');
      // no other session id (a UUID the store picked) in the message
      expect((err as Error).message).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect(await store.listSessions()).toEqual([]);
    } finally {
      await close();
    }
  });

  it('with keepId and the id taken: still the caller’s id, and the existing session is untouched', async () => {
    const { store, close } = await open();
    try {
      const first = await store.writeSession(
        { ...repeated('taken-id'), entries: [message('a', null, 'kept')] },
        { keepId: true },
      );
      expect(first.id).toBe('taken-id');
      await expect(store.writeSession(repeated('taken-id'), { keepId: true })).rejects.toThrow(
        /entry id e1\b.*taken-id|taken-id.*entry id e1\b/,
      );
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['taken-id']);
      expect((await store.getSession('taken-id'))?.entries.map((e) => e.id)).toEqual(['a']);
    } finally {
      await close();
    }
  });
});
