/**
 * A project filter over HTTP names a directory with or without its trailing separator, as the CLI's
 * --project does (it resolves the path): `?project=/w/app/` found no session of /w/app in the
 * threadbase API's list, search and stats, nor in the web viewer's.
 */
import { describe, expect, it } from 'vitest';
import { projectFilterOf } from '../../src/model/driver.js';
import { createApp } from '../../src/server/app.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';

const entry = {
  kind: 'message',
  id: 'u1',
  parentId: null,
  timestamp: '2026-11-20T10:00:00.000Z',
  message: { role: 'user', parts: [{ type: 'text', text: 'wombatsearchword here' }] },
};

describe('project filter', () => {
  it('drops trailing separators, keeps a root', () => {
    expect(projectFilterOf('/w/app/')).toBe('/w/app');
    expect(projectFilterOf('/w/app//')).toBe('/w/app');
    expect(projectFilterOf('/w/app')).toBe('/w/app');
    expect(projectFilterOf('/')).toBe('/');
    expect(projectFilterOf('C:\\w\\app\\')).toBe('C:\\w\\app');
    expect(projectFilterOf('C:\\')).toBe('C:\\');
    expect(projectFilterOf('')).toBeUndefined();
  });

  it('the threadbase API finds /w/app by /w/app/', async () => {
    const tokens = new MemoryTokenStore();
    const { key } = await tokens.createToken('a');
    const app = createApp({ store: new MemoryStore(), tokens });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(`/api/v1/threadbase${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as { data: Record<string, unknown[]> & { totals?: unknown } };
    };
    await call('PUT', '/sessions/s1', { session: { id: 's1', project: '/w/app' }, entries: [entry] });
    for (const project of ['/w/app', '/w/app/']) {
      const q = `project=${encodeURIComponent(project)}`;
      expect((await call('GET', `/sessions?${q}`)).data.sessions).toHaveLength(1);
      expect((await call('GET', `/search?q=wombatsearchword&${q}`)).data.hits).toHaveLength(1);
    }
    expect((await call('GET', `/sessions?project=${encodeURIComponent('/w/ap')}`)).data.sessions).toHaveLength(0);
  });

  it("the web viewer's list, search and stats find /w/app by /w/app/", async () => {
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 's1',
        source: 'claude',
        project: '/w/app',
        createdAt: entry.timestamp,
        updatedAt: entry.timestamp,
        entries: [entry],
      } as never,
      { keepId: true },
    );
    const app = createWebApp({ driver: store });
    const get = async (path: string) =>
      (await (await app.request(`http://localhost/api/v1/web${path}`)).json()) as Record<string, unknown>;
    const q = `project=${encodeURIComponent('/w/app/')}`;
    expect((await get(`/sessions?${q}`)).total).toBe(1);
    expect((await get(`/search?q=wombatsearchword&${q}`)).hits).toHaveLength(1);
    expect((await get(`/stats?${q}`)).sessions).toBe(1);
  });
});
