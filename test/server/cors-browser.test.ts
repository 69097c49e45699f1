/**
 * CORS as a browser applies it: a page served from one origin calls the team server (on PostgreSQL)
 * on another port with its key, through Debian's chromium. The server lists the page's origin
 * (http://127.0.0.1:<page port>); the same page reached as http://localhost:<page port> is another
 * origin, which the browser must refuse to let read the API.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore } from '../../src/server/tokens.js';
import { type Browser, launchBrowser, skipBrowser } from '../e2e/browser.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let db: TestSchema;
let api: RunningServer;
let pages: Server;
let pagePort: number;
let browser: Browser;
let key: string;

beforeAll(async () => {
  if (skipBrowser) return;
  pages = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>an app elsewhere</title><p>app</p>');
  });
  await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
  pagePort = (pages.address() as AddressInfo).port;
  db = await freshSchema('tb_cors');
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  key = (await tokens.createToken('browser-app')).key;
  api = await startServer({
    store: db.store,
    tokens,
    port: 0,
    log: () => undefined,
    corsOrigins: [`http://127.0.0.1:${pagePort}`],
  });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await db?.drop();
  await new Promise<void>((done) => (pages ? pages.close(() => done()) : done()));
});

/** In the page: a PUT with JSON and a key (preflighted), then a GET of what it stored. */
const callApi = ({ base, key }: { base: string; key: string }) =>
  (async () => {
    try {
      const put = await fetch(`${base}/api/v1/threadbase/sessions/from-browser`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          session: { id: 'from-browser', title: 'made in a page' },
          entries: [
            {
              kind: 'message',
              id: 'e1',
              parentId: null,
              timestamp: '2026-11-20T10:00:00.000Z',
              message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
            },
          ],
        }),
      });
      const get = await fetch(`${base}/api/v1/threadbase/sessions/from-browser`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const refused = await fetch(`${base}/api/v1/ping`);
      return {
        put: put.status,
        title: ((await get.json()) as { data: { title: string } }).data.title,
        refused: refused.status,
        refusedAuth: refused.headers.get('www-authenticate'),
      };
    } catch (error) {
      return { error: String(error) };
    }
  })();

describe.skipIf(skipBrowser)('CORS in chromium', () => {
  it('lets a page of a listed origin call the API with its key, and reads its refusals', async () => {
    await browser.page.goto(`http://127.0.0.1:${pagePort}/`);
    const result = await browser.page.evaluate(callApi, { base: api.url, key });
    expect(result).toEqual({ put: 201, title: 'made in a page', refused: 401, refusedAuth: 'Bearer' });
  });

  it('gives a page of another origin nothing', async () => {
    await browser.page.goto(`http://localhost:${pagePort}/`);
    const result = await browser.page.evaluate(callApi, { base: api.url, key });
    expect(result).toEqual({ error: expect.stringContaining('Failed to fetch') });
  });
});
