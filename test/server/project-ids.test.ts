/**
 * A PUT of a session id another project holds answers exactly as for an id nobody holds: the
 * project gets its own session under the id it asked for, and uses it by that id everywhere, while
 * the other project's session is untouched. Over real HTTP on a real PostgreSQL schema (ids are the
 * primary key of tb_sessions) and on a real SQLite file (the server's per-project wrapper).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { projectStores } from '../../src/server/scope.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  json: any;
}

const message = (id: string, parentId: string | null, text: string) => ({
  kind: 'message',
  id,
  parentId,
  timestamp: '2026-11-20T10:00:00.000Z',
  message: { role: 'user', parts: [{ type: 'text', text }] },
});

type Setup = ServerBackend;

const backends: [string, () => Promise<Setup>][] = [
  ['PostgreSQL', () => postgresBackend('tb_ids')],
  ['SQLite', () => sqliteBackend('tb-ids-')],
];

describe.each(backends)('session ids per project (%s)', (_name, setUp) => {
  let setup: Setup;
  let server: RunningServer;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    setup = await setUp();
    keyA = (await setup.tokens.createToken('alpha')).key;
    keyB = (await setup.tokens.createToken('beta')).key;
    server = await startServer({ store: setup.store, tokens: setup.tokens, port: 0, log: () => undefined });
  });
  afterAll(async () => {
    await server?.close();
    await setup?.close();
  });

  async function call(method: string, path: string, key: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  }
  const put = (key: string, id: string, entries: unknown[], title?: string) =>
    call('PUT', `/api/v1/threadbase/sessions/${id}`, key, { session: { id, title }, entries });

  it('answers a held id as an id nobody holds, and the project uses it by that id', async () => {
    expect(await put(keyA, 'held-1', [message('a1', null, 'alpha text')], 'alpha')).toEqual({
      status: 201,
      json: { code: 0, data: { id: 'held-1', created: true, added: 1 }, msg: 'ok' },
    });
    const nobody = await put(keyB, 'free-1', [message('b1', null, 'beta text')]);
    const held = await put(keyB, 'held-1', [message('b1', null, 'beta text')], 'beta');
    expect(held.status).toBe(nobody.status);
    expect(held.json).toEqual({ ...nobody.json, data: { ...nobody.json.data, id: 'held-1' } });

    // B's own session, by the id it asked for, in every route
    const got = await call('GET', '/api/v1/threadbase/sessions/held-1', keyB);
    expect(got.json.data).toMatchObject({ id: 'held-1', title: 'beta' });
    expect(got.json.data.entries.map((e: { id: string }) => e.id)).toEqual(['b1']);
    const listed = await call('GET', '/api/v1/threadbase/sessions', keyB);
    expect(listed.json.data.sessions.map((s: { id: string }) => s.id).sort()).toEqual(['free-1', 'held-1']);
    const again = await put(keyB, 'held-1', [message('b1', null, 'beta text'), message('b2', 'b1', 'more beta')]);
    expect(again.json.data).toEqual({ id: 'held-1', created: false, added: 1 });
    const hits = await call('GET', '/api/v1/threadbase/search?q=beta', keyB);
    expect(new Set(hits.json.data.hits.map((h: { sessionId: string }) => h.sessionId))).toEqual(new Set(['held-1', 'free-1']));
    const acontext = await call('POST', '/api/v1/session/held-1/messages', keyB, {
      blob: { role: 'assistant', content: 'stored by acontext' },
      format: 'anthropic',
    });
    expect(acontext.json.data).toMatchObject({ session_id: 'held-1', parent_id: 'b2' });
    const fork = await call('POST', '/api/v1/threadbase/sessions/held-1/fork', keyB, { at: 'b1' });
    expect(fork.status).toBe(201);
    expect(fork.json.data.parentId).toBe('held-1');
    const forked = await call('GET', `/api/v1/threadbase/sessions/${fork.json.data.id}`, keyB);
    expect(forked.json.data.parentId).toBe('held-1');
    // a sub-agent pushed with its parent's id, and the fork made here, are both its children
    const child = await call('PUT', '/api/v1/threadbase/sessions/child-1', keyB, {
      session: { id: 'child-1', parentId: 'held-1' },
      entries: [message('c1', null, 'sub-agent')],
    });
    expect(child.status).toBe(201);
    const children = await call('GET', '/api/v1/threadbase/sessions?parent=held-1', keyB);
    expect(children.json.data.sessions.map((x: { id: string }) => x.id).sort()).toEqual(['child-1', fork.json.data.id].sort());
    const context = await call('GET', '/api/v1/threadbase/sessions/held-1/context?format=anthropic', keyB);
    expect(JSON.stringify(context.json.data.context)).toContain('stored by acontext');

    // A's session is as A left it
    const a = await call('GET', '/api/v1/threadbase/sessions/held-1', keyA);
    expect(a.json.data).toMatchObject({ id: 'held-1', title: 'alpha' });
    expect(a.json.data.entries.map((e: { id: string }) => e.id)).toEqual(['a1']);

    // B deletes its own; A's stays
    expect((await call('DELETE', '/api/v1/threadbase/sessions/held-1', keyB)).status).toBe(200);
    expect((await call('GET', '/api/v1/threadbase/sessions/held-1', keyB)).status).toBe(404);
    expect((await call('GET', '/api/v1/threadbase/sessions/held-1', keyA)).json.data.entries).toHaveLength(1);
  });

  it('writes a held id under its alias at once: no session under another id first, nothing deleted', async () => {
    await put(keyA, 'held-2', [message('a1', null, 'alpha')]);
    // the store's methods watched before the new project's view of it is made (its first request)
    const proto = Object.getPrototypeOf(setup.store) as Required<Pick<SessionDriver, 'writeSession' | 'deleteSession'>>;
    const writes = vi.spyOn(proto, 'writeSession');
    const deletes = vi.spyOn(proto, 'deleteSession');
    const keyC = (await setup.tokens.createToken('gamma')).key;
    try {
      expect((await put(keyC, 'held-2', [message('b1', null, 'gamma')])).status).toBe(201);
      // the one write, under B's alias of the id
      expect(writes).toHaveBeenCalledTimes(1);
      const stored = await (writes.mock.results[0]?.value as Promise<{ id: string }>);
      expect(stored.id).toMatch(/^held-2~[0-9a-f]{16}$/);
      expect(deletes).not.toHaveBeenCalled();
    } finally {
      writes.mockRestore();
      deletes.mockRestore();
    }
    expect((await call('GET', '/api/v1/threadbase/sessions/held-2', keyC)).json.data.entries).toHaveLength(1);
    expect((await call('GET', '/api/v1/threadbase/sessions/held-2', keyA)).json.data.entries[0].id).toBe('a1');
  });

  it('a write that keeps an id the project holds under its alias gets a fresh id, as for any id it holds', async () => {
    await put(keyA, 'twice-1', [message('t1', null, 'x')]);
    await put(keyB, 'twice-1', [message('t1', null, 'y')]);
    const b = projectStores(setup.store)((await setup.tokens.projectForKey(keyB))?.id ?? '');
    const copy = await b.getSession('twice-1');
    if (!copy) throw new Error('B has no twice-1');
    const written = await b.writeSession?.({ ...copy, title: 'copy' }, { keepId: true });
    expect(written?.id).toBeTruthy();
    expect(written?.id).not.toBe('twice-1');
    expect((await b.getSession('twice-1'))?.entries[0]).toMatchObject({ id: 't1' });
    expect((await b.listSessions()).filter((s) => s.id === 'twice-1')).toHaveLength(1);
  });
});
