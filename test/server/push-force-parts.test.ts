/**
 * `push --force` of a session larger than one request, against a real server over loopback on SQLite
 * and on PostgreSQL: the parts go to the server, which holds them (out of the store and its listings)
 * until the last, then swaps the copy in one step of the store. Before, the first request replaced
 * the copy and the others appended, so a push stopped after it left the server a prefix of the
 * session, its old copy gone. And a replace of a session the server does not have is a 404 (it made
 * the session again), which push --force answers by making it as a first push does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { type RunningServer, type StartServerOptions, startServer } from '../../src/server/index.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { pushSessions } from '../../src/server/push.js';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { first, holding } from './changed-session.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

/** Twelve entries of ~350 bytes: with requests of at most 1000 bytes, four or more requests. */
const long = (id: string, text: string, updatedAt = '2026-03-01T00:00:01.000Z'): Session => ({
  ...first,
  id,
  title: `${text} talk`,
  updatedAt,
  entries: Array.from({ length: 12 }, (_, i) =>
    messageEntry(
      `e${i}`,
      i ? `e${i - 1}` : null,
      i,
      textMessage(i % 2 ? 'assistant' : 'user', `${text} ${i} ${'x'.repeat(300)}`),
    ),
  ),
});
const SMALL = 1000;

/** Each entry as the server should hold it: the local one, whole. */
const entriesOf = async (s: Session) => (await (await holding(s)).getSession(s.id))?.entries;

describe.each([
  ['SQLite', () => sqliteBackend('tb-push-parts-')],
  ['PostgreSQL', () => postgresBackend('tb_push_parts')],
])('push --force in parts, to a server on %s', (_name, backendOf) => {
  let backend: ServerBackend;
  let key: string;
  let dir: string;
  const running: RunningServer[] = [];

  beforeAll(async () => {
    backend = await backendOf();
    key = (await backend.tokens.createToken('team')).key;
    dir = await mkdtemp(join(tmpdir(), 'tb-push-parts-'));
  }, 60_000);
  afterAll(async () => {
    for (const s of running) await s.close();
    await backend?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const serve = async (more: Partial<StartServerOptions> = {}) => {
    const s = await startServer({ store: backend.store, tokens: backend.tokens, port: 0, log: () => undefined, ...more });
    running.push(s);
    return s;
  };
  const stored = (server: RunningServer, id: string) => new RemoteStore(server.url, { key }).getSession(id);
  /** The session as the server lists it: title and time, once. */
  const listed = async (server: RunningServer, id: string) =>
    (await new RemoteStore(server.url, { key }).listSessions()).filter((s) => s.id === id).map((s) => [s.title, s.updatedAt]);
  const push = async (
    server: RunningServer,
    s: Session,
    statePath: string,
    more: Partial<Parameters<typeof pushSessions>[0]> = {},
  ) => pushSessions({ from: await holding(s), to: server.url, key, statePath, maxBodyBytes: SMALL, ...more });

  /** A fetch that fails (as a connection does) at the `n`th session upload, after `before` runs. */
  const failingAt = (n: number, before: () => Promise<void> = async () => undefined): typeof fetch => {
    let puts = 0;
    return async (input, init) => {
      if (init?.method === 'PUT' && ++puts === n) {
        await before();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' }) });
      }
      return fetch(input, init);
    };
  };

  it.each([2, 3])(
    'a push failing at request %i leaves the old copy whole, unlisted parts and all; a retry replaces it',
    async (n) => {
      const server = await serve();
      const id = `fails-at-${n}`;
      const statePath = join(dir, `${id}.json`);
      const before = long(id, 'before');
      expect(await push(server, before, statePath)).toMatchObject({ created: 1, failed: [] });
      const after = long(id, 'after', '2026-03-01T00:00:30.000Z');

      const failed = await push(server, after, statePath, { force: true, fetchImpl: failingAt(n) });
      expect(failed.failed).toEqual([{ id, error: expect.stringMatching(/ECONNRESET/) }]);
      expect(failed.replaced).toBe(0);
      expect((await stored(server, id))?.entries).toEqual(await entriesOf(before));
      expect(await listed(server, id)).toEqual([['before talk', before.updatedAt]]);

      const retried = await push(server, after, statePath, { force: true });
      expect(retried).toMatchObject({ replaced: 1, updated: 1, failed: [] });
      expect(retried.requests).toBeGreaterThanOrEqual(3);
      expect((await stored(server, id))?.entries).toEqual(await entriesOf(after));
      expect(await listed(server, id)).toEqual([['after talk', after.updatedAt]]);
    },
  );

  it('the server stopped after two parts: restarted, it holds the old copy; the push again replaces it', async () => {
    const server = await serve();
    const { port } = server;
    const id = 'server-stops';
    const statePath = join(dir, `${id}.json`);
    const before = long(id, 'before');
    await push(server, before, statePath);
    const after = long(id, 'after', '2026-03-01T00:00:30.000Z');
    // the third upload finds the server gone: stopped for real (its kept-alive socket closed, or the connection refused)
    let puts = 0;
    const stopping: typeof fetch = async (input, init) => {
      if (init?.method === 'PUT' && ++puts === 3) await server.close();
      return fetch(input, init);
    };
    const failed = await push(server, after, statePath, { force: true, fetchImpl: stopping });
    expect(failed.failed).toEqual([
      { id, error: expect.stringMatching(/^cannot reach http:\/\/127\.0\.0\.1:\d+: (UND_ERR_SOCKET|ECONNREFUSED)/) },
    ]);
    running.splice(running.indexOf(server), 1);

    const again = await serve({ port });
    expect((await stored(again, id))?.entries).toEqual(await entriesOf(before));
    expect(await push(again, after, statePath, { force: true })).toMatchObject({ replaced: 1, failed: [] });
    expect((await stored(again, id))?.entries).toEqual(await entriesOf(after));
  });

  it('a replace of a session the server does not have is 404 not_found, made by nothing; push --force then makes it anew', async () => {
    const server = await serve();
    const put = (path: string, body: unknown) =>
      fetch(`${server.url}/api/v1/threadbase/sessions/${path}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const body = { session: { id: 'nowhere' }, entries: [] };
    for (const path of ['nowhere?replace=true', 'nowhere/replace/u1/1']) {
      const res = await put(path, body);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ reason: 'not_found', msg: 'session not found: nowhere' });
    }
    expect(await stored(server, 'nowhere')).toBeUndefined();
    await expect(
      new RemoteStore(server.url, { key }).replaceSession('nowhere', { ...first, id: 'nowhere' }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await stored(server, 'nowhere')).toBeUndefined();

    // pushed, changed, then deleted on the server: --force makes it again whole (in one request, and in parts)
    for (const [id, max] of [
      ['lost-one', undefined],
      ['lost-parts', SMALL],
    ] as const) {
      const statePath = join(dir, `${id}.json`);
      await push(server, long(id, 'before'), statePath, { maxBodyBytes: max });
      await new RemoteStore(server.url, { key }).deleteSession(id);
      const after = long(id, 'after', '2026-03-01T00:00:30.000Z');
      expect(await push(server, after, statePath, { force: true, maxBodyBytes: max })).toMatchObject({
        created: 1,
        replaced: 0,
        failed: [],
      });
      expect((await stored(server, id))?.entries).toEqual(await entriesOf(after));
    }
  });

  it('RemoteStore.replaceSession racing a delete never makes the session again', async () => {
    const server = await serve();
    const remote = new RemoteStore(server.url, { key });
    await remote.writeSession({ ...first, id: 'racing' }, { keepId: true });
    // another client deletes it right after this store's first request about it is answered: a replace
    // sent before that delete may land, one after it must not make the session again
    const realFetch = globalThis.fetch;
    let deleted = false;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const res = await realFetch(input, init);
      if (!deleted && /\/sessions\/racing(\?|$)/.test(String(input))) {
        deleted = true;
        await realFetch(`${server.url}/api/v1/threadbase/sessions/racing`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${key}` },
        });
      }
      return res;
    });
    try {
      await remote.replaceSession('racing', { ...first, id: 'racing', title: 'again' }).catch((error: unknown) => {
        expect(error).toMatchObject({ code: 'not_found' });
      });
    } finally {
      spy.mockRestore();
    }
    expect(deleted).toBe(true);
    expect(await remote.getSession('racing')).toBeUndefined();
  });

  it('parts: held until the last, never listed; a gap, an expired upload or the byte bound replace nothing', async () => {
    const server = await serve({ maxStagedBytes: 5000, stagedTtlMs: 300 });
    const id = 'by-hand';
    await push(server, long(id, 'before'), join(dir, `${id}.json`));
    const after = long(id, 'after', '2026-03-01T00:00:30.000Z');
    const head = { id, title: 'after talk', updatedAt: after.updatedAt };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}/api/v1/threadbase/sessions/${id}/${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const part = (upload: string, n: number, from: number, to: number, last = false) =>
      call('PUT', `replace/${upload}/${n}${last ? '?last=true' : ''}`, { session: head, entries: after.entries.slice(from, to) });
    const unchanged = async () => {
      expect((await stored(server, id))?.entries.map((e) => e.id)).toHaveLength(12);
      expect(await listed(server, id)).toEqual([['before talk', '2026-03-01T00:00:01.000Z']]);
    };

    // held, not stored: the session reads and lists as before
    expect((await part('a', 1, 0, 4)).status).toBe(200);
    expect((await part('a', 2, 4, 8)).status).toBe(200);
    await unchanged();
    // a gap: part 3 missing when part 4 comes last
    const gap = await part('a', 4, 8, 12, true);
    expect(gap.status).toBe(409);
    expect(await gap.json()).toMatchObject({
      reason: 'upload_incomplete',
      msg: expect.stringMatching(/upload a of session by-hand/),
    });
    await unchanged();
    // expired: the server forgets an upload untouched for stagedTtlMs
    expect((await part('b', 1, 0, 6)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect(await (await part('b', 2, 6, 12, true)).json()).toMatchObject({ reason: 'upload_incomplete' });
    await unchanged();
    // beyond the bytes the server holds: 503 staging_full, the upload dropped
    expect((await part('c', 1, 0, 6)).status).toBe(200);
    const full = await part('c', 2, 6, 12);
    expect(full.status).toBe(503);
    expect(await full.json()).toMatchObject({ reason: 'staging_full', msg: expect.stringMatching(/at most 5000/) });
    expect(await (await part('c', 3, 0, 0, true)).json()).toMatchObject({ reason: 'upload_incomplete' });
    await unchanged();
    // dropped by its pusher
    expect((await part('d', 1, 0, 4)).status).toBe(200);
    expect(await (await call('DELETE', 'replace/d')).json()).toMatchObject({ data: { dropped: true } });
    expect(await (await part('d', 2, 4, 12, true)).json()).toMatchObject({ reason: 'upload_incomplete' });
    // complete, a part sent twice counting once: swapped in at once, header and entries
    for (const [n, from, to] of [
      [1, 0, 3],
      [2, 3, 6],
      [2, 3, 6],
      [3, 6, 9],
    ] as const)
      expect((await part('e', n, from, to)).status).toBe(200);
    const done = await part('e', 4, 9, 12, true);
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ data: { id, created: false, added: 12 } });
    expect((await stored(server, id))?.entries).toEqual(await entriesOf(after));
    expect(await listed(server, id)).toEqual([['after talk', after.updatedAt]]);
    // an upload id or part out of form
    expect(await (await call('PUT', 'replace/no%20way/1', { session: head, entries: [] })).json()).toMatchObject({
      reason: 'invalid_parameter',
    });
    expect(await (await call('PUT', 'replace/f/0', { session: head, entries: [] })).json()).toMatchObject({
      reason: 'invalid_parameter',
    });
  });
});

describe('the OpenAPI document', () => {
  it('describes the replace in parts: its path parameters, last, and its 409 and 503 answers', () => {
    type Op = { parameters: { name: string; in: string; schema: Record<string, unknown> }[]; responses: Record<string, unknown> };
    const paths = openApiDocument().paths as Record<string, Record<string, Op>>;
    const put = paths['/api/v1/threadbase/sessions/{id}/replace/{upload}/{part}']?.put;
    expect(put?.parameters.map((p) => [p.name, p.in, p.schema.type])).toEqual([
      ['id', 'path', 'string'],
      ['upload', 'path', 'string'],
      ['part', 'path', 'integer'],
      ['last', 'query', 'boolean'],
    ]);
    expect(Object.keys(put?.responses ?? {})).toEqual(expect.arrayContaining(['200', '404', '409', '503']));
    expect(paths['/api/v1/threadbase/sessions/{id}/replace/{upload}']?.delete).toBeDefined();
    const reasons = (openApiDocument().components as { schemas: { Error: { properties: { reason: { enum: string[] } } } } })
      .schemas.Error.properties.reason.enum;
    expect(reasons).toEqual(expect.arrayContaining(['upload_incomplete', 'staging_full']));
  });
});
