/**
 * An audit of the team server's HTTP API as a team uses it: a real server over a real PostgreSQL
 * schema, real HTTP, two projects' keys. Each case is something the audit found wrong.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '../../src/model/types.js';
import { createApp } from '../../src/server/app.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { pushSessions } from '../../src/server/push.js';
import { PostgresTokenStore, SqliteTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { openRemoteStore } from '../../src/stores/remote/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let keyA: string;
let keyB: string;
let tokens: PostgresTokenStore;
/** A key of a project of its own, made when a test needs one that holds nothing yet. */
let projects = 0;
const tokensForC = async () => (await tokens.createToken(`project-${++projects}`)).key;

beforeAll(async () => {
  db = await freshSchema('tb_audit');
  tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  keyA = (await tokens.createToken('alpha')).key;
  keyB = (await tokens.createToken('beta')).key;
  server = await startServer({ store: db.store, tokens, port: 0, log: () => undefined });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
  json: any;
}

/** Every answer this file gets, to check against the OpenAPI document at the end. */
const answers: { method: string; path: string; status: number; json: unknown }[] = [];

async function call(method: string, path: string, body?: unknown, key: string | null = keyA): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {}
  answers.push({ method, path, status: res.status, json });
  return { status: res.status, headers: res.headers, json };
}

const message = (id: string, parentId: string | null, timestamp: string, text: string, role = 'user') => ({
  kind: 'message',
  id,
  parentId,
  timestamp,
  message: { role, parts: [{ type: 'text', text }] },
});

describe('times', () => {
  it('stores a pushed session and its entries with UTC times, and refuses a header time that names no instant', async () => {
    const put = await call('PUT', '/api/v1/threadbase/sessions/utc-1', {
      session: { id: 'utc-1', createdAt: '2026-11-20T10:00:00+02:00', updatedAt: '2026-11-20T10:05:00+02:00' },
      entries: [message('u1', null, '2026-11-20T10:00:00+02:00', 'Grüße 🌍')],
    });
    expect(put.status).toBe(201);
    const got = await call('GET', '/api/v1/threadbase/sessions/utc-1');
    expect(got.json.data.createdAt).toBe('2026-11-20T08:00:00.000Z');
    expect(got.json.data.updatedAt).toBe('2026-11-20T08:05:00.000Z');
    expect(got.json.data.entries[0].timestamp).toBe('2026-11-20T08:00:00.000Z');
    expect(got.json.data.entries[0].message.parts[0].text).toBe('Grüße 🌍');

    // a UTC time finer than milliseconds is kept as the agent wrote it
    await call('PUT', '/api/v1/threadbase/sessions/utc-1', {
      session: { id: 'utc-1' },
      entries: [message('u2', 'u1', '2026-11-20T08:00:01.123456Z', 'fine')],
    });
    expect((await call('GET', '/api/v1/threadbase/sessions/utc-1')).json.data.entries[1].timestamp).toBe(
      '2026-11-20T08:00:01.123456Z',
    );

    const bad = await call('PUT', '/api/v1/threadbase/sessions/utc-2', {
      session: { id: 'utc-2', updatedAt: 'yesterday' },
      entries: [],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.msg).toContain('session.updatedAt');
    expect((await call('GET', '/api/v1/threadbase/sessions/utc-2')).status).toBe(404);
  });

  it('reads since/until as the CLI does: offsets, a date alone for until is its whole day; garbage is a 400', async () => {
    await call('PUT', '/api/v1/threadbase/sessions/day-1', {
      session: { id: 'day-1', createdAt: '2026-10-03T12:00:00Z', updatedAt: '2026-10-03T12:00:00Z' },
      entries: [message('d1', null, '2026-10-03T12:00:00Z', 'on the third')],
    });
    const ids = async (query: string) =>
      ((await call('GET', `/api/v1/threadbase/sessions?${query}`)).json.data.sessions as { id: string }[]).map((s) => s.id);
    expect(await ids('since=2026-10-03&until=2026-10-03')).toEqual(['day-1']);
    expect(await ids('until=2026-10')).toEqual(['day-1']);
    // 13:30 at +02:00 is 11:30 UTC, before the session's 12:00 UTC
    expect(await ids(`since=${encodeURIComponent('2026-10-03T13:30:00+02:00')}&until=2026-10-04`)).toEqual(['day-1']);
    expect(await ids('since=2026-10-04&until=2026-10-31')).toEqual([]);

    for (const path of [
      '/api/v1/threadbase/sessions?since=7d',
      '/api/v1/threadbase/sessions?until=garbage',
      '/api/v1/threadbase/search?q=third&since=last-week',
      '/api/v1/threadbase/stats?until=soon',
    ]) {
      const r = await call('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.json.msg, path).toMatch(/^(since|until) must be an ISO date or time/);
    }
    const stats = await call('GET', '/api/v1/threadbase/stats?since=2026-10-03&until=2026-10-03');
    expect(stats.json.data.sessions).toBe(1);
    const search = await call('GET', '/api/v1/threadbase/search?q=third&since=2026-10-03');
    expect(search.json.data.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual(['day-1']);
  });
});

describe('answers that said the wrong thing', () => {
  it('POST entries counts only the entries it added (ids already there are skipped)', async () => {
    await call('PUT', '/api/v1/threadbase/sessions/add-1', {
      session: { id: 'add-1' },
      entries: [message('a1', null, '2026-11-01T00:00:00Z', 'one')],
    });
    const again = await call('POST', '/api/v1/threadbase/sessions/add-1/entries', {
      entries: [
        message('a1', null, '2026-11-01T00:00:00Z', 'one'),
        message('a2', 'a1', '2026-11-01T00:00:01Z', 'two', 'assistant'),
      ],
    });
    expect(again.status).toBe(201);
    expect(again.json.data).toEqual({ added: 1 });
    const got = await call('GET', '/api/v1/threadbase/sessions/add-1');
    expect(got.json.data.entries.map((e: { id: string }) => e.id)).toEqual(['a1', 'a2']);
  });

  it('a search by a role that does not exist is a 400 naming the roles, not an empty list', async () => {
    const r = await call('GET', '/api/v1/threadbase/search?q=one&role=assistent');
    expect(r.status).toBe(400);
    expect(r.json.msg).toContain('role must be one of user, assistant, tool, system');
    expect((await call('GET', '/api/v1/threadbase/search?q=two&role=assistant')).json.data.hits).toHaveLength(1);
  });

  it('a flag that is neither true nor false (time_desc=yes) is a 400 naming it, not read as false', async () => {
    const sid = (await call('POST', '/api/v1/session', {})).json.data.id as string;
    for (const path of [
      '/api/v1/session?time_desc=yes',
      `/api/v1/session/${sid}/messages?time_desc=desc`,
      '/api/v1/session?not_connected=maybe',
    ]) {
      const r = await call('GET', path);
      expect(r.status, path).toBe(400);
      expect(r.json.msg, path).toMatch(/^(time_desc|not_connected) must be true or false, got "/);
    }
    for (const v of ['true', 'false', '1', '0']) expect((await call('GET', `/api/v1/session?time_desc=${v}`)).status).toBe(200);
  });

  it('a 401 says which scheme it wants (WWW-Authenticate), with and without a key', async () => {
    const none = await call('GET', '/api/v1/ping', undefined, null);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await call('GET', '/api/v1/ping', undefined, 'tb_not-a-key');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('the OpenAPI document', () => {
  type Doc = {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    components: { schemas: Record<string, { required: string[] }> };
  };
  const doc = openApiDocument() as unknown as Doc;

  /** The document's path template a concrete path matches. */
  const templateOf = (path: string) => {
    const bare = path.split('?')[0] ?? path;
    return Object.keys(doc.paths).find((t) =>
      new RegExp(`^${t.replace(/\{id\}/g, '[^/]+')}$`).test(bare.replace(/^\/api\/v1\/threadbase/, '/api/v1/threadbase')),
    );
  };

  it('declares the status codes the routes answer (201 for creations, 409 for entry conflicts)', async () => {
    const created = await call('POST', '/api/v1/session', {});
    expect(created.status).toBe(201);
    const sid = created.json.data.id as string;
    expect((await call('POST', `/api/v1/session/${sid}/messages`, { blob: { role: 'user', content: 'hi' } })).status).toBe(201);
    expect((await call('POST', '/api/v1/threadbase/sessions/add-1/fork', {})).status).toBe(201);
    const dup = await call('PUT', '/api/v1/threadbase/sessions/dup-1', {
      session: { id: 'dup-1' },
      entries: [message('x', null, '2026-11-01T00:00:00Z', 'x'), message('x', null, '2026-11-01T00:00:00Z', 'x')],
    });
    expect(dup.status).toBe(409);
    expect(dup.json.msg).toContain('x');
    expect(doc.paths['/api/v1/threadbase/sessions/{id}']?.put?.responses).toHaveProperty('200');
    expect(doc.paths['/api/v1/threadbase/sessions/{id}']?.put?.responses).toHaveProperty('201');
    expect(doc.paths['/api/v1/threadbase/sessions/{id}/export']?.get?.responses['200']?.content).toHaveProperty('text/markdown');
  });

  it('describes each request body by the schema its route checks (required fields, entry kinds, enums, defaults)', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: JSON Schema walked by hand
    type Json = Record<string, any>;
    const body = (path: string, method: string) =>
      (doc.paths[path]?.[method] as unknown as { requestBody: { required: boolean; content: Json } } | undefined)
        ?.requestBody ?? {
        required: false,
        content: {},
      };
    const put = body('/api/v1/threadbase/sessions/{id}', 'put');
    expect(put.required).toBe(true);
    const putSchema = put.content['application/json'].schema;
    expect(putSchema.required).toEqual(['session', 'entries']);
    expect(putSchema.properties.session.required).toEqual(['id']);
    const kinds = (putSchema.properties.entries.items.oneOf as Json[]).map((k) => k.properties.kind.const);
    expect(kinds.sort()).toEqual(['branch_summary', 'compaction', 'label', 'message', 'metadata', 'model_change']);
    const create = body('/api/v1/session', 'post');
    expect(create.required).toBe(false); // an empty body is {}
    expect(create.content['application/json'].schema.additionalProperties).toBe(false);
    // …and the route does refuse what the schema leaves out
    expect((await call('POST', '/api/v1/session', { spaceid: 'x' })).status).toBe(400);
    const store = body('/api/v1/session/{id}/messages', 'post').content['application/json'].schema;
    expect(store.properties.format).toMatchObject({ enum: ['anthropic', 'openai'], default: 'openai' });
    const branch = body('/api/v1/threadbase/sessions/{id}/branch', 'post').content['application/json'].schema;
    expect(branch.properties.format).toMatchObject({ default: 'anthropic' });
    expect(branch.required).toContain('at');
  });

  it("every answer in this file has a status its route declares and the declared body's required fields", () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const a of answers) {
      const template = templateOf(a.path);
      expect(template, a.path).toBeDefined();
      const op = doc.paths[template as string]?.[a.method.toLowerCase()];
      expect(op, `${a.method} ${a.path}`).toBeDefined();
      const declared = op?.responses[String(a.status)];
      expect(declared, `${a.method} ${a.path} answered ${a.status}`).toBeDefined();
      const ref = (declared?.content?.['application/json'] as { schema?: { $ref?: string } } | undefined)?.schema?.$ref;
      if (!ref) continue;
      const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
      for (const field of schema?.required ?? []) expect(a.json, `${a.method} ${a.path}: ${field}`).toHaveProperty(field);
    }
  });
});

/** A loopback port nothing listens on (fetch refuses "bad ports" such as 1 or 9 before connecting). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('push', () => {
  /** A local store with two sessions, as push reads them. */
  async function localStore(): Promise<MemoryStore> {
    const local = new MemoryStore();
    for (const id of ['push-s1', 'push-s2'])
      await local.writeSession(
        {
          id,
          source: 'threadbase',
          createdAt: '2026-11-02T00:00:00Z',
          updatedAt: '2026-11-02T00:00:01Z',
          messageCount: 1,
          entries: [message(`${id}-e1`, null, '2026-11-02T00:00:00Z', `hello from ${id}`) as Entry],
        },
        { keepId: true },
      );
    return local;
  }

  it("a second project's key on the same server pushes everything (the state is per key, not per server)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-push-'));
    try {
      const local = await localStore();
      const statePath = join(dir, 'push-state.json');
      const first = await pushSessions({ from: local, to: server.url, key: keyA, statePath });
      expect(first).toMatchObject({ created: 2, failed: [] });
      // (the API's own URL, as the Acontext SDK's baseUrl names it, is the same server)
      const second = await pushSessions({ from: local, to: `${server.url}/api/v1/`, key: keyB, statePath });
      expect(second).toMatchObject({ created: 2, unchanged: 0, failed: [] });
      const theirs = await call('GET', '/api/v1/threadbase/sessions?text=hello', undefined, keyB);
      expect(theirs.json.data.sessions).toHaveLength(2);
      // and each key's state says "unchanged" the next time
      expect(await pushSessions({ from: local, to: server.url, key: keyB, statePath })).toMatchObject({ unchanged: 2 });
      expect(await readFile(statePath, 'utf8')).not.toContain(keyB);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("state kept per server alone (older threadbase) is taken by the key whose project has those sessions, not another's", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-push-'));
    try {
      const local = await localStore();
      const statePath = join(dir, 'push-state.json');
      await pushSessions({ from: local, to: server.url, key: keyA, statePath });
      // rewrite as the older format: the same sessions under the server's URL alone
      const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, unknown>;
      const legacy = { [server.url]: Object.values(state)[0] };
      await writeFile(statePath, JSON.stringify(legacy));
      const c = await tokensForC();
      const forC = await pushSessions({ from: local, to: server.url, key: c, statePath });
      expect(forC).toMatchObject({ created: 2, failed: [] });
      const forA = await pushSessions({ from: local, to: server.url, key: keyA, statePath });
      expect(forA).toMatchObject({ unchanged: 2, requests: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a wrong key or an unreachable server is one error naming the server, before anything is sent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-push-'));
    try {
      const local = await localStore();
      const statePath = join(dir, 'push-state.json');
      await expect(pushSessions({ from: local, to: server.url, key: 'tb_wrong', statePath })).rejects.toThrow(
        `${server.url} refused the push: 401 invalid API key`,
      );
      const closed = await closedPort();
      await expect(pushSessions({ from: local, to: `http://127.0.0.1:${closed}`, key: keyA, statePath })).rejects.toThrow(
        `cannot reach http://127.0.0.1:${closed}: ECONNREFUSED`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('two server processes on one database', () => {
  it('pushing the same new session through both at once makes one session with every entry, no 500', async () => {
    // a second store on the same schema stands for a second server process (the in-process queue does not span them)
    const other = await openPostgresStore(db.url);
    try {
      const tokens2 = new PostgresTokenStore(other.pool, other.ready());
      const app1 = createApp({ store: db.store, tokens, log: () => undefined });
      const app2 = createApp({ store: other, tokens: tokens2, log: () => undefined });
      for (let round = 0; round < 8; round++) {
        const id = `race-${round}`;
        const put = (app: typeof app1, entries: unknown[]) =>
          app.request(`/api/v1/threadbase/sessions/${id}`, {
            method: 'PUT',
            headers: { authorization: `Bearer ${keyA}`, 'content-type': 'application/json' },
            body: JSON.stringify({ session: { id }, entries }),
          });
        const first = message(`${id}-a`, null, '2026-11-03T00:00:00Z', 'a');
        const second = message(`${id}-b`, `${id}-a`, '2026-11-03T00:00:01Z', 'b', 'assistant');
        const answers = await Promise.all([put(app1, [first]), put(app2, [first, second])]);
        expect(answers.map((r) => r.status).sort(), id).toEqual([200, 201]);
        const bodies = (await Promise.all(answers.map((r) => r.json()))) as { data: { id: string } }[];
        expect(
          bodies.map((b) => b.data.id),
          id,
        ).toEqual([id, id]);
        const got = await call('GET', `/api/v1/threadbase/sessions/${id}`);
        expect(got.json.data.entries.map((e: { id: string }) => e.id)).toEqual([`${id}-a`, `${id}-b`]);
      }
      const all = await call('GET', '/api/v1/threadbase/sessions');
      expect(all.json.data.sessions.filter((s: { title?: string }) => s.title === 'a')).toHaveLength(8);
    } finally {
      await other.close();
    }
  });
});

describe('pagination of /session', () => {
  it('goes on after a page whose last session was deleted meanwhile, both ways, and takes older id cursors', async () => {
    const key = await tokensForC();
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      made.push((await call('POST', '/api/v1/session', {}, key)).json.data.id);
      await new Promise((r) => setTimeout(r, 3)); // distinct creation times
    }
    for (const desc of [false, true]) {
      const order = desc ? [...made].reverse() : made;
      const first = await call('GET', `/api/v1/session?limit=2&time_desc=${desc}`, undefined, key);
      expect(first.json.data.items.map((s: { id: string }) => s.id)).toEqual(order.slice(0, 2));
      expect(first.json.data.has_more).toBe(true);
      // the page's last session goes away before the next page is asked for
      const gone = order[1] as string;
      expect((await call('DELETE', `/api/v1/session/${gone}`, undefined, key)).status).toBe(200);
      const next = await call(
        'GET',
        `/api/v1/session?limit=2&time_desc=${desc}&cursor=${first.json.data.next_cursor}`,
        undefined,
        key,
      );
      expect(next.status, JSON.stringify(next.json)).toBe(200);
      expect(next.json.data.items.map((s: { id: string }) => s.id)).toEqual(order.slice(2, 4));
      expect(next.json.data).toMatchObject({ has_more: false, next_cursor: null });
      made.splice(made.indexOf(gone), 1);
    }
    // a cursor as older servers made it (the id alone) still reads on from that session
    const oldCursor = Buffer.from(made[0] as string, 'utf8').toString('base64url');
    const rest = await call('GET', `/api/v1/session?cursor=${oldCursor}`, undefined, key);
    expect(rest.json.data.items.map((s: { id: string }) => s.id)).toEqual(made.slice(1));
    const bad = await call('GET', '/api/v1/session?cursor=bm9wZQ', undefined, key);
    expect(bad.status).toBe(400);
    expect(bad.json.msg).toContain('bm9wZQ');
  });
});

describe('search until', () => {
  it('GET /search and the remote store (search --from http://…) keep only hits up to until', async () => {
    const key = await tokensForC();
    await call(
      'PUT',
      '/api/v1/threadbase/sessions/until-1',
      {
        session: { id: 'until-1' },
        entries: [
          message('early', null, '2026-09-01T10:00:00Z', 'kumquat early'),
          message('late', 'early', '2026-09-20T10:00:00Z', 'kumquat late', 'assistant'),
        ],
      },
      key,
    );
    const hits = await call('GET', '/api/v1/threadbase/search?q=kumquat&until=2026-09-10', undefined, key);
    expect(hits.json.data.hits.map((h: { entryId: string }) => h.entryId)).toEqual(['early']);
    const remote = openRemoteStore(server.url, { key });
    expect((await remote.search('kumquat', { until: '2026-09-10T23:59:59.999Z' })).map((h) => h.entryId)).toEqual(['early']);
  });
});

describe('source of pushed sessions', () => {
  it('?source=AGENT finds the sessions pushed from that agent (stored as threadbase, importedFrom the agent) in list, stats and search', async () => {
    const key = await tokensForC();
    for (const [id, source] of [
      ['src-claude', 'claude'],
      ['src-pi', 'pi'],
    ] as const)
      await call(
        'PUT',
        `/api/v1/threadbase/sessions/${id}`,
        { session: { id, source }, entries: [message(`${id}-e`, null, '2026-11-04T00:00:00Z', `persimmon from ${source}`)] },
        key,
      );
    const listed = await call('GET', '/api/v1/threadbase/sessions?source=claude', undefined, key);
    expect(listed.json.data.sessions.map((s: { id: string }) => s.id)).toEqual(['src-claude']);
    expect((await call('GET', '/api/v1/threadbase/stats?source=pi', undefined, key)).json.data.sessions).toBe(1);
    const hits = await call('GET', '/api/v1/threadbase/search?q=persimmon&source=claude', undefined, key);
    expect(hits.json.data.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual(['src-claude']);
    // threadbase's own name still lists every session the store wrote
    expect((await call('GET', '/api/v1/threadbase/sessions?source=threadbase', undefined, key)).json.data.sessions).toHaveLength(
      2,
    );
    expect((await call('GET', '/api/v1/threadbase/sessions?source=codex', undefined, key)).json.data.sessions).toEqual([]);
  });
});

describe('push to a server with a small --max-body', () => {
  it('sends again in smaller requests on 413, and names the one entry too large for it', async () => {
    const small = await startServer({ store: db.store, tokens, port: 0, maxBodyBytes: 6000, log: () => undefined });
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-push-'));
    try {
      const key = await tokensForC();
      const local = new MemoryStore();
      const entries = Array.from({ length: 10 }, (_, i) =>
        message(`big-${i}`, i ? `big-${i - 1}` : null, `2026-11-05T00:00:0${i}Z`, `${i} ${'x'.repeat(1500)}`),
      ) as Entry[];
      const session = {
        source: 'threadbase',
        createdAt: '2026-11-05T00:00:00Z',
        updatedAt: '2026-11-05T00:00:09Z',
        messageCount: 10,
      };
      await local.writeSession({ ...session, id: 'many-1', entries }, { keepId: true });
      await local.writeSession(
        { ...session, id: 'huge-1', entries: [message('huge-e', null, '2026-11-05T00:00:00Z', 'y'.repeat(9000)) as Entry] },
        { keepId: true },
      );
      const report = await pushSessions({ from: local, to: small.url, key, statePath: join(dir, 'state.json') });
      expect(report.created).toBe(1);
      expect(report.failed).toHaveLength(1);
      expect(report.failed[0]?.id).toBe('huge-1');
      expect(report.failed[0]?.error).toMatch(/entry huge-e \(\d+ bytes\) is larger than the server accepts \(413/);
      // the 413 names the server's limit
      expect(report.failed[0]?.error).toContain('at most 6000 bytes');
      const got = await call('GET', '/api/v1/threadbase/sessions/many-1', undefined, key);
      expect(got.json.data.entries.map((e: { id: string }) => e.id)).toEqual(entries.map((e) => e.id));
    } finally {
      await small.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Acontext messages through two server processes', () => {
  it('stay one chain when requests alternate between the processes, and when they come at once', async () => {
    const other = await openPostgresStore(db.url);
    try {
      const apps = [
        createApp({ store: db.store, tokens, log: () => undefined }),
        createApp({ store: other, tokens: new PostgresTokenStore(other.pool, other.ready()), log: () => undefined }),
      ] as const;
      const headers = { authorization: `Bearer ${keyA}`, 'content-type': 'application/json' };
      const sid = (
        (await (await apps[0].request('/api/v1/session', { method: 'POST', headers, body: '{}' })).json()) as {
          data: { id: string };
        }
      ).data.id;
      const store = (n: number, app: (typeof apps)[number]) =>
        app.request(`/api/v1/session/${sid}/messages`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ blob: { role: n % 2 ? 'assistant' : 'user', content: `m${n}` }, format: 'openai' }),
        });
      // one client, its requests spread over both processes (a load balancer): 0 1 1 0 1 0 ...
      for (const n of [0, 1, 2, 3, 4, 5]) expect((await store(n, apps[[0, 1, 1, 0, 1, 0][n] as 0 | 1])).status).toBe(201);
      // then many at once through both
      const at = await Promise.all(Array.from({ length: 10 }, (_, i) => store(6 + i, apps[i % 2] as (typeof apps)[number])));
      expect(at.map((r) => r.status)).toEqual(Array(10).fill(201));
      const listed = await call('GET', `/api/v1/session/${sid}/messages?format=acontext`);
      const items = listed.json.data.items as { id: string; parent_id: string | null }[];
      expect(items).toHaveLength(16);
      expect(items.map((m) => m.parent_id)).toEqual([null, ...items.slice(0, -1).map((m) => m.id)]);
      const ctx = await call('GET', `/api/v1/threadbase/sessions/${sid}/context?format=openai`);
      expect(ctx.json.data.context.messages.slice(0, 6).map((m: { content: string }) => m.content)).toEqual([
        'm0',
        'm1',
        'm2',
        'm3',
        'm4',
        'm5',
      ]);
      expect(ctx.json.data.context.messages).toHaveLength(16);
      expect((await call('POST', '/api/v1/session/no-such/messages', { blob: { role: 'user', content: 'x' } })).json.msg).toBe(
        'session not found: no-such',
      );
    } finally {
      await other.close();
    }
  });
});

describe('pagination of /threadbase/sessions', () => {
  it('pages with limit and next_cursor through every session once, ties on updatedAt included', async () => {
    const key = await tokensForC();
    const times = [
      '2026-08-01T00:00:00Z',
      '2026-08-02T00:00:00Z',
      '2026-08-02T00:00:00Z',
      '2026-08-02T00:00:00Z',
      '2026-08-03T00:00:00Z',
    ];
    for (const [i, t] of times.entries())
      await call(
        'PUT',
        `/api/v1/threadbase/sessions/page-${i}`,
        { session: { id: `page-${i}`, createdAt: t, updatedAt: t }, entries: [] },
        key,
      );
    const all = (await call('GET', '/api/v1/threadbase/sessions', undefined, key)).json.data;
    expect(all.next_cursor).toBeNull();
    const order = (all.sessions as { id: string }[]).map((s) => s.id);
    expect(order).toEqual(['page-4', 'page-1', 'page-2', 'page-3', 'page-0']);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n++) {
      const r = await call('GET', `/api/v1/threadbase/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`, undefined, key);
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      seen.push(...(r.json.data.sessions as { id: string }[]).map((s) => s.id));
      cursor = r.json.data.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(order);
    // filters hold on later pages too
    const first = await call('GET', '/api/v1/threadbase/sessions?limit=1&since=2026-08-02', undefined, key);
    const rest = await call(
      'GET',
      `/api/v1/threadbase/sessions?since=2026-08-02&cursor=${first.json.data.next_cursor}`,
      undefined,
      key,
    );
    expect(rest.json.data.sessions.map((s: { id: string }) => s.id)).toEqual(['page-1', 'page-2', 'page-3']);
    expect((await call('GET', '/api/v1/threadbase/sessions?cursor=bm9wZQ', undefined, key)).status).toBe(400);
  });
});

describe('source of pushed sessions on a server over SQLite', () => {
  it('?source=AGENT finds them there too (the project-scoped wrapper reads importedFrom as PostgreSQL does)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-sqlite-'));
    const path = join(dir, 'team.db');
    const store = openSqliteStore(path);
    const sqliteTokens = new SqliteTokenStore(path);
    try {
      const key = (await sqliteTokens.createToken('lite')).key;
      const app = createApp({ store, tokens: sqliteTokens, log: () => undefined });
      const req = async (method: string, p: string, body?: unknown) => {
        const r = await app.request(p, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: r.status, json: (await r.json()) as { data: Record<string, unknown[]> & { sessions: unknown } } };
      };
      for (const [id, source] of [
        ['lite-claude', 'claude'],
        ['lite-pi', 'pi'],
      ] as const)
        expect(
          (
            await req('PUT', `/api/v1/threadbase/sessions/${id}`, {
              session: { id, source },
              entries: [message(`${id}-e`, null, '2026-11-04T00:00:00Z', `quince from ${source}`)],
            })
          ).status,
        ).toBe(201);
      const listed = await req('GET', '/api/v1/threadbase/sessions?source=claude');
      expect((listed.json.data.sessions as { id: string }[]).map((s) => s.id)).toEqual(['lite-claude']);
      expect((await req('GET', '/api/v1/threadbase/stats?source=pi')).json.data.sessions).toBe(1);
      const hits = await req('GET', '/api/v1/threadbase/search?q=quince&source=claude');
      expect((hits.json.data.hits as { sessionId: string }[]).map((h) => h.sessionId)).toEqual(['lite-claude']);
    } finally {
      await sqliteTokens.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a pushed session renamed later', () => {
  it('takes the title a later push carries', async () => {
    const e = message('t1', null, '2026-11-06T00:00:00Z', 'first words');
    await call('PUT', '/api/v1/threadbase/sessions/title-1', { session: { id: 'title-1' }, entries: [e] });
    const again = await call('PUT', '/api/v1/threadbase/sessions/title-1', {
      session: { id: 'title-1', title: 'Fix the flaky build' },
      entries: [message('t2', 't1', '2026-11-06T00:00:01Z', 'ok', 'assistant')],
    });
    expect(again.json.data).toEqual({ id: 'title-1', created: false, added: 1 });
    expect((await call('GET', '/api/v1/threadbase/sessions/title-1')).json.data.title).toBe('Fix the flaky build');
  });
});

describe('push after the session was deleted on the server', () => {
  it('sends the whole session again, not only the entries added since (which made a session missing its beginning)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-audit-push-'));
    try {
      const key = await tokensForC();
      const statePath = join(dir, 'state.json');
      const local = new MemoryStore();
      const base = {
        source: 'threadbase',
        createdAt: '2026-11-07T00:00:00Z',
        updatedAt: '2026-11-07T00:00:01Z',
        messageCount: 2,
      };
      await local.writeSession(
        {
          ...base,
          id: 'gone-1',
          entries: [
            message('g1', null, '2026-11-07T00:00:00Z', 'one') as Entry,
            message('g2', 'g1', '2026-11-07T00:00:01Z', 'two', 'assistant') as Entry,
          ],
        },
        { keepId: true },
      );
      expect(await pushSessions({ from: local, to: server.url, key, statePath })).toMatchObject({ created: 1 });
      expect((await call('DELETE', '/api/v1/threadbase/sessions/gone-1', undefined, key)).status).toBe(200);
      await local.appendEntries('gone-1', [message('g3', 'g2', '2026-11-07T00:00:05Z', 'three') as Entry]);
      expect(await pushSessions({ from: local, to: server.url, key, statePath })).toMatchObject({ created: 1, failed: [] });
      const got = await call('GET', '/api/v1/threadbase/sessions/gone-1', undefined, key);
      expect(got.json.data.entries.map((e: { id: string }) => e.id).sort()).toEqual(['g1', 'g2', 'g3']);
      const ctx = await call('GET', '/api/v1/threadbase/sessions/gone-1/context?format=openai', undefined, key);
      expect(ctx.json.data.context.messages.map((m: { content: string }) => m.content)).toEqual(['one', 'two', 'three']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
