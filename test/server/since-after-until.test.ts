/**
 * A since after the until names a window with nothing in it. The CLI refused it (exit 2); the HTTP API
 * and the viewer's routes answered an empty page, as if nothing happened then. All three read the
 * window with one reader now (readTimeWindow) and refuse it, each in its own words: the HTTP API with
 * a 400 naming both values, the viewer's routes with a 400 issue on since. The zone decides which
 * instants the two name. Also: the CLI compares the instants, not their text (an until in the year
 * 10000 was taken for one before 2026), and refuses an unknown zone as a usage error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, zonedWindow } from '../../src/cli/options.js';
import { appendMessage, createSession } from '../../src/model/build.js';
import { ThreadbaseError } from '../../src/model/errors.js';
import { WebData } from '../../src/server/web/data.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type ProjectServer, serveProjectSessions } from '../helpers/project-server.js';

/** one session at 23:10Z on 2026-11-25 */
const AT = '2026-11-25T23:10:00.000Z';
/** 23:30 without an offset: after 23:00Z in UTC, before it in Berlin (22:30Z) */
const CROSSED_IN_UTC = { since: '2026-11-25T23:30', until: '2026-11-25T23:00:00Z' };

describe('the HTTP API refuses a since after the until with a 400 naming both', () => {
  let served: ProjectServer;
  beforeAll(async () => {
    served = await serveProjectSessions([{ id: 's-late', at: AT, text: 'hello window' }]);
  });
  afterAll(async () => {
    await served?.close();
  });
  const get = (path: string, query: Record<string, string>) =>
    served.get(path, query) as Promise<{ status: number; body: { msg?: string } }>;

  it('on every route that takes since/until, read in tz', async () => {
    for (const path of ['sessions', 'search', 'stats']) {
      const crossed = await get(path, { q: 'hello', since: '2026-11-26', until: '2026-11-25' });
      expect(crossed.status, path).toBe(400);
      expect(crossed.body.msg, path).toBe(
        'since must not be after until, got since "2026-11-26" (2026-11-26T00:00:00.000Z) and until "2026-11-25" ' +
          '(2026-11-25T23:59:59.999Z): no time lies between them',
      );
      expect((await get(path, { q: 'hello', ...CROSSED_IN_UTC })).status, path).toBe(400);
      expect((await get(path, { q: 'hello', ...CROSSED_IN_UTC, tz: 'Europe/Berlin' })).status, path).toBe(200);
    }
    // the same day as since and until is that day
    const day = await get('sessions', { since: '2026-11-25', until: '2026-11-25' });
    expect(day.status).toBe(200);
    // an empty parameter is still no filter, as before
    expect((await get('sessions', { since: '', until: '', tz: '' })).status).toBe(200);
  });
});

describe("the viewer's routes refuse a since after the until with a 400 issue on since", () => {
  let app: ReturnType<typeof createWebApp>;
  beforeAll(async () => {
    const store = new MemoryStore();
    const session = createSession({ id: 's-late', createdAt: AT, project: '/p' });
    appendMessage(session, { role: 'user', content: [{ type: 'text', text: 'hello window' }] }, { timestamp: AT });
    await store.writeSession(session, { keepId: true });
    app = createWebApp({ driver: store });
  });
  const get = async (path: string, query: Record<string, string>) => {
    const res = await app.request(`http://localhost/api/v1/web/${path}?${new URLSearchParams(query)}`);
    return { status: res.status, body: (await res.json()) as { message?: string; issues?: { path: string[] }[] } };
  };

  it('on /sessions and /stats, read in tz', async () => {
    for (const path of ['sessions', 'stats']) {
      const crossed = await get(path, { since: '2026-11-26', until: '2026-11-25' });
      expect(crossed.status, path).toBe(400);
      expect(
        crossed.body.issues?.map((i) => i.path),
        path,
      ).toEqual([['since']]);
      expect(crossed.body.message, path).toBe(
        'since: must not be after until (2026-11-26T00:00:00.000Z is after 2026-11-25T23:59:59.999Z: no time lies between them)',
      );
      expect((await get(path, CROSSED_IN_UTC)).status, path).toBe(400);
      expect((await get(path, { ...CROSSED_IN_UTC, tz: 'Europe/Berlin' })).status, path).toBe(200);
      // a bad value is its own issue, not a crossed window too
      const bad = await get(path, { since: 'garbage', until: '2026-11-25' });
      expect(
        bad.body.issues?.map((i) => i.path),
        path,
      ).toEqual([['since']]);
      expect(bad.body.message, path).toMatch(/^since: must be an ISO date or time/);
    }
  });

  it('WebData itself refuses a window the routes would, instead of comparing the text', async () => {
    const store = new MemoryStore();
    const data = new WebData(store);
    await expect(data.listSessions({ since: 'garbage' })).rejects.toThrow(ThreadbaseError);
    await expect(data.listSessions({ since: '2026-11-26', until: '2026-11-25' })).rejects.toThrow(/no time lies between them/);
    await expect(data.stats({ since: '2026-11-26', until: '2026-11-25' })).rejects.toThrow(/^since: must not be after until/);
    expect((await data.listSessions({ since: '', until: '2026-11-25' })).total).toBe(0);
  });
});

describe("the CLI's zonedWindow", () => {
  it('compares instants: an until in the year 10000 is after a since in 2026', () => {
    expect(zonedWindow({ since: '2026', until: '9999-12-31', tz: 'America/New_York' })).toEqual({
      since: '2026-01-01T05:00:00.000Z',
      until: '+010000-01-01T04:59:59.999Z',
    });
    expect(() => zonedWindow({ since: '2026-11-26', until: '2026-11-25', tz: 'UTC' })).toThrow(
      '--since 2026-11-26T00:00:00.000Z is after --until 2026-11-25T23:59:59.999Z: no time lies between them',
    );
  });

  it('refuses an unknown zone or a value naming no time as a usage error (the option parsers refuse them first)', () => {
    expect(() => zonedWindow({ since: '2026-11-25', tz: 'Mars/Olympus' })).toThrow(UsageError);
    expect(() => zonedWindow({ since: '2026-11-25', tz: 'Mars/Olympus' })).toThrow(/^--tz "Mars\/Olympus": Expected an IANA/);
    expect(() => zonedWindow({ until: '2026-02-30', tz: 'UTC' })).toThrow('--until "2026-02-30": Expected an ISO date or time');
  });
});
