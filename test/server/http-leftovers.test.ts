/**
 * Gaps of the team server's HTTP surface, each checked over real HTTP against a server on a real
 * PostgreSQL schema: opt-in CORS, 405 with Allow for a wrong method, every route either in the
 * OpenAPI document or on its internal list, and a rename pushed without new entries.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsOriginsOption } from '../../src/cli/commands/serve.js';
import type { Session } from '../../src/model/types.js';
import { createApp } from '../../src/server/app.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { INTERNAL_ROUTES, openApiDocument } from '../../src/server/openapi.js';
import { pushSessions } from '../../src/server/push.js';
import { MemoryTokenStore, PostgresTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

const PAGE_ORIGIN = 'http://app.example.test:5173';

let db: TestSchema;
let plain: RunningServer;
let withCors: RunningServer;
let key: string;
let dir: string;

beforeAll(async () => {
  db = await freshSchema('tb_http');
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  key = (await tokens.createToken('alpha')).key;
  plain = await startServer({ store: db.store, tokens, port: 0, log: () => undefined });
  withCors = await startServer({
    store: db.store,
    tokens,
    port: 0,
    log: () => undefined,
    corsOrigins: [PAGE_ORIGIN, 'https://other.example.test'],
  });
  dir = await mkdtemp(join(tmpdir(), 'tb-http-'));
});
afterAll(async () => {
  await plain?.close();
  await withCors?.close();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const preflight = (server: RunningServer, path: string, origin: string) =>
  fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('CORS', () => {
  it('answers a preflight from a listed origin without a key, naming the methods and headers it allows', async () => {
    const res = await preflight(withCors, '/api/v1/threadbase/sessions/s1', PAGE_ORIGIN);
    expect(res.status).toBe(204);
    // no body, so no content-type (Node's server would otherwise add text/plain)
    expect(res.headers.get('content-type')).toBeNull();
    expect(res.headers.get('content-length')).toBeNull();
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')?.split(',')).toContain('PUT');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type']),
    );
  });

  it('lets a listed origin read answers, errors included, and gives another origin nothing', async () => {
    const ok = await fetch(`${withCors.url}/api/v1/threadbase/sessions`, {
      headers: { origin: PAGE_ORIGIN, authorization: `Bearer ${key}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    // a page must be able to read why it was refused
    const refused = await fetch(`${withCors.url}/api/v1/threadbase/sessions`, { headers: { origin: PAGE_ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    const second = await fetch(`${withCors.url}/api/v1/ping`, {
      headers: { origin: 'https://other.example.test', authorization: `Bearer ${key}` },
    });
    expect(second.headers.get('access-control-allow-origin')).toBe('https://other.example.test');
    const stranger = await fetch(`${withCors.url}/api/v1/ping`, {
      headers: { origin: 'https://evil.example.test', authorization: `Bearer ${key}` },
    });
    expect(stranger.status).toBe(200);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const strangerPreflight = await preflight(withCors, '/api/v1/ping', 'https://evil.example.test');
    expect(strangerPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('changes nothing without the option: a preflight wants a key, no answer names an origin', async () => {
    const res = await preflight(plain, '/api/v1/threadbase/sessions/s1', PAGE_ORIGIN);
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(`${plain.url}/api/v1/ping`, { headers: { origin: PAGE_ORIGIN, authorization: `Bearer ${key}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serve --cors takes comma-separated origins, repeated, and refuses what is not an origin', () => {
    expect(corsOriginsOption('https://a.example, http://localhost:5173/')).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(corsOriginsOption('https://b.example', ['https://a.example'])).toEqual(['https://a.example', 'https://b.example']);
    for (const bad of ['a.example', 'https://a.example/app', 'ftp://a.example', '*'])
      expect(() => corsOriginsOption(bad), bad).toThrow(InvalidArgumentError);
  });
});

describe('a wrong method on a known path', () => {
  const call = (method: string, path: string) =>
    fetch(`${plain.url}${path}`, { method, headers: { authorization: `Bearer ${key}` } });

  it('is a 405 whose Allow header lists the methods the path answers', async () => {
    const patch = await call('PATCH', '/api/v1/threadbase/sessions/some-id');
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    const body = (await patch.json()) as { code: number; msg: string };
    expect(body.code).toBe(405);
    expect(body.msg).toContain('PATCH');
    const ping = await call('POST', '/api/v1/ping');
    expect(ping.status).toBe(405);
    expect(ping.headers.get('allow')).toBe('GET, HEAD');
    const web = await call('DELETE', '/api/v1/web/sessions/x/convert');
    expect(web.status).toBe(405);
    expect(web.headers.get('allow')).toBe('POST');
  });

  it('leaves an unknown path a 404, and a request without a key a 401', async () => {
    expect((await call('GET', '/api/v1/no-such-route')).status).toBe(404);
    expect((await call('GET', '/api/v1/threadbase/sessions/a/b/c')).status).toBe(404);
    expect((await fetch(`${plain.url}/api/v1/ping`, { method: 'POST' })).status).toBe(401);
  });
});

describe('OpenAPI', () => {
  it('describes every route the app registers, or lists it as internal', () => {
    const app = createApp({ store: new MemoryStore(), tokens: new MemoryTokenStore(), log: () => undefined });
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const internal = (path: string) =>
      INTERNAL_ROUTES.some((r) => (r.path.endsWith('/*') ? path.startsWith(r.path.slice(0, -1)) : r.path === path));
    const missing: string[] = [];
    let described = 0;
    for (const r of app.routes) {
      if (r.method === 'ALL') continue; // middleware
      const documented = paths[r.path.replace(/:(\w+)/g, '{$1}')]?.[r.method.toLowerCase()];
      if (documented) described++;
      else if (!internal(r.path)) missing.push(`${r.method} ${r.path}`);
    }
    expect(missing).toEqual([]);
    expect(described).toBeGreaterThan(20);
    // the viewer's routes are there to be left out, and the document says so
    expect(app.routes.some((r) => r.path.startsWith('/api/v1/web/'))).toBe(true);
    expect(String((openApiDocument().info as { description: string }).description)).toContain('/api/v1/web/');
  });
});

describe('push', () => {
  it('pushes a rename that added no entry', async () => {
    const local = new MemoryStore();
    const session: Session = {
      id: 'rename-me',
      source: 'threadbase',
      title: 'first title',
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:00:01.000Z',
      messageCount: 1,
      entries: [
        {
          kind: 'message',
          id: 'm1',
          parentId: null,
          timestamp: '2026-11-20T10:00:01.000Z',
          message: { role: 'user', parts: [{ type: 'text', text: 'hello' }] },
        },
      ],
    };
    await local.writeSession(session, { keepId: true });
    const statePath = join(dir, 'push-state.json');
    const push = () => pushSessions({ from: local, to: plain.url, key, statePath });
    expect((await push()).created).toBe(1);
    await local.setTitle('rename-me', 'second title');
    const again = await push();
    expect(again).toMatchObject({ updated: 1, entriesSent: 0 });
    const remote = await fetch(`${plain.url}/api/v1/threadbase/sessions/rename-me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await remote.json()) as { data: Session };
    expect(body.data.title).toBe('second title');
    expect(body.data.entries.map((e) => e.id)).toEqual(['m1']);
    // nothing new since: nothing sent
    expect(await push()).toMatchObject({ unchanged: 1, requests: 0 });
    // state written before titles were kept: an unchanged session is still not sent again
    const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, Record<string, { title?: unknown }>>;
    for (const sessions of Object.values(state)) for (const pushed of Object.values(sessions)) delete pushed.title;
    await writeFile(statePath, JSON.stringify(state));
    expect(await push()).toMatchObject({ unchanged: 1, requests: 0 });
  });
});
