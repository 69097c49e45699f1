/**
 * Acontext's session list by space (`space_id`, `not_connected`) reads what it needs of each
 * session's history from the store's metadata entries (a space connected after creation is one),
 * not each session whole: the same pages, far fewer reads. Over real HTTP on a real PostgreSQL
 * schema and a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

type Setup = ServerBackend;

const backends: [string, () => Promise<Setup>][] = [
  ['PostgreSQL', () => postgresBackend('tb_acontext_space')],
  ['SQLite', () => sqliteBackend('tb-acontext-space-')],
];

/** what each backend answered, to compare them */
const answers = new Map<string, unknown>();

describe.each(backends)('Acontext sessions by space (%s)', (name, setUp) => {
  let setup: Setup;
  let server: RunningServer;
  let key: string;
  const ids: Record<'created' | 'connected' | 'none' | 'pushed', string[]> = { created: [], connected: [], none: [], pushed: [] };

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.status).toBeLessThan(300);
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
    return ((await res.json()) as { data: any }).data;
  };
  const listed = async (query: string): Promise<string[]> => {
    const data = await call('GET', `/api/v1/session?limit=200&${query}`);
    return (data.items as { id: string }[]).map((s) => s.id).sort();
  };

  beforeAll(async () => {
    setup = await setUp();
    key = (await setup.tokens.createToken('team')).key;
    server = await startServer({ store: setup.store, tokens: setup.tokens, port: 0, log: () => undefined });
    for (let i = 0; i < 4; i++) ids.created.push((await call('POST', '/api/v1/session', { space_id: 'space-a' })).id);
    for (let i = 0; i < 4; i++) {
      const s = await call('POST', '/api/v1/session', {});
      if (i % 2) ids.none.push(s.id);
      else {
        // connected after creation: a metadata entry of the session, the listing's meta unchanged
        await call('POST', `/api/v1/session/${s.id}/messages`, { blob: { role: 'user', content: 'hi' }, format: 'openai' });
        await call('POST', `/api/v1/session/${s.id}/connect_to_space`, { space_id: 'space-a' });
        ids.connected.push(s.id);
      }
    }
    // one created in space-a, moved to space-b
    await call('POST', `/api/v1/session/${ids.created[3]}/connect_to_space`, { space_id: 'space-b' });
    for (let i = 0; i < 8; i++) {
      const id = `pushed-${i}`;
      await call('PUT', `/api/v1/threadbase/sessions/${id}`, {
        session: { id },
        entries: [
          {
            kind: 'message',
            id: `m${i}`,
            parentId: null,
            timestamp: '2026-11-20T10:00:00.000Z',
            message: { role: 'user', parts: [{ type: 'text', text: 'pushed' }] },
          },
        ],
      });
      ids.pushed.push(id);
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await setup?.close();
  });

  it('lists by space from the metadata entries, reading no session whole', async () => {
    const reads = vi.spyOn(Object.getPrototypeOf(setup.store) as Required<Pick<SessionDriver, 'getSession'>>, 'getSession');
    try {
      const inA = await listed('space_id=space-a');
      const inB = await listed('space_id=space-b');
      const notConnected = await listed('not_connected=true');
      const everything = await listed('');
      expect(inA).toEqual([...ids.created.slice(0, 3), ...ids.connected].sort());
      expect(inB).toEqual([ids.created[3]]);
      expect(notConnected).toEqual([...ids.none, ...ids.pushed].sort());
      expect(everything).toHaveLength(16);
      expect(reads).not.toHaveBeenCalled();
      answers.set(name, { inA: inA.length, inB: inB.length, notConnected: notConnected.length });
    } finally {
      reads.mockRestore();
    }
    // each item as its own session route answers it
    const page = await call('GET', '/api/v1/session?limit=200&space_id=space-a');
    for (const item of page.items as { id: string; space_id: string }[])
      expect(item.space_id).toBe((await call('GET', `/api/v1/session/${item.id}/configs`)).space_id);
    if (answers.size === backends.length) expect(answers.get('SQLite')).toEqual(answers.get('PostgreSQL'));
  });
});
