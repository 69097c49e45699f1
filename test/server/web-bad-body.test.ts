/**
 * "Continue in…" (POST /api/v1/web/sessions/:id/convert) sent a body that is no JSON answers 400
 * bad_request, as a body of the wrong shape does; the JSON parser's SyntaxError reached the error
 * handler as a 500 'internal' with the parser's words. On `threadbase ui` (the viewer's app alone) a
 * route the API does not have answers a 404 in JSON too, not Hono's text page.
 */
import { describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { oneMessageSession } from '../helpers/sessions.js';

describe('web data routes: a body that is no JSON', () => {
  it('answers a convert sent a body that is not JSON with a 400, not a 500', async () => {
    const store = new MemoryStore();
    await store.writeSession(oneMessageSession('s1'), { keepId: true });
    const app = createWebApp({ driver: store, handoff: ['pi'] });
    for (const body of ['{bad', '', 'null', '"pi"']) {
      const res = await app.request('http://localhost/api/v1/web/sessions/s1/convert', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as { error: string }).error, body).toBe('bad_request');
    }
    // a good body still gets its command
    const ok = await app.request('http://localhost/api/v1/web/sessions/s1/convert', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'pi' }),
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { command: string }).command).toMatch(
      /^threadbase handoff s1 --from http:\/\/localhost --to pi$/,
    );
  });
});

describe('web viewer app: a route it does not have', () => {
  it('answers an unknown API route with a 404 in JSON, as its other errors', async () => {
    const app = createWebApp({ driver: new MemoryStore() });
    for (const [method, path] of [
      ['GET', '/api/v1/web/nothing'],
      ['GET', '/api/v1/web/sessions/s1/nothing'],
      ['POST', '/api/v1/web/sessions'],
      ['GET', '/api/v1/sessions'],
    ] as const) {
      const res = await app.request(`http://localhost${path}`, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.json(), path).toEqual({ error: 'not_found', message: `no route ${method} ${path}` });
    }
    // a page that is no route stays a page
    expect((await app.request('http://localhost/nothing')).status).toBe(404);
  });
});
