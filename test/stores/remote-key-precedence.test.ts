/** openStore('http://KEY@host'): the key in the URL is the one sent, over $THREADBASE_API_KEY (the default for a URL without one). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openStore } from '../../src/stores/open.js';

interface Running {
  url: string;
  close(): Promise<void>;
}

describe('a remote store key: the URL before $THREADBASE_API_KEY', () => {
  let server: Running;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    const mod = (await import('../../src/server/index.js')) as {
      startServer(o: { store: SessionDriver; tokens: unknown; port?: number; log?: (l: string) => void }): Promise<Running>;
      MemoryTokenStore: new () => { createToken(p: string): Promise<{ key: string }> };
    };
    const tokens = new mod.MemoryTokenStore();
    keyA = (await tokens.createToken('team-a')).key;
    keyB = (await tokens.createToken('team-b')).key;
    server = await mod.startServer({ store: new MemoryStore(), tokens, port: 0, log: () => {} });
    // one session in each project, written through its own key
    const host = new URL(server.url).host;
    for (const [key, id] of [
      [keyA, 'in-team-a'],
      [keyB, 'in-team-b'],
    ] as const) {
      const store = await openStore(`http://${key}@${host}`, { env: { home: '/nonexistent', env: {} } });
      await store.writeSession({
        info: { id, source: 'threadbase', createdAt: '2026-11-26T00:00:00.000Z', updatedAt: '2026-11-26T00:00:00.000Z' },
        entries: [
          {
            kind: 'message',
            id: 'u1',
            parentId: null,
            timestamp: '2026-11-26T00:00:00.000Z',
            message: { role: 'user', parts: [{ type: 'text', text: id }] },
          },
        ],
      } as never);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  const ids = async (url: string, env: Record<string, string>) => {
    const store = await openStore(url, { env: { home: '/nonexistent', env } });
    return (await store.listSessions({})).map((s) => s.title);
  };

  it("reads the project of the URL's key even when $THREADBASE_API_KEY names another", async () => {
    const host = new URL(server.url).host;
    expect(await ids(`http://${keyA}@${host}`, { THREADBASE_API_KEY: keyB })).toEqual(['in-team-a']);
  });

  it('takes $THREADBASE_API_KEY for a URL without a key', async () => {
    expect(await ids(server.url, { THREADBASE_API_KEY: keyB })).toEqual(['in-team-b']);
  });
});
