/**
 * The HTTP API's `since`/`until` read a date or a time without an offset in the request's `tz` (an
 * IANA zone), UTC without one, as the CLI reads them in --tz: never in the server process's own zone,
 * which would make the answer depend on where the server runs. Run with the process in New York so a
 * reading in the server's zone shows. An unknown `tz` is a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProjectServer, serveProjectSessions } from '../helpers/project-server.js';

/** one session per time, named by its UTC hour: Berlin is UTC+1 then, so 23:30Z is 2026-11-26 there */
const TIMES = ['2026-11-25T12:30:00.000Z', '2026-11-25T13:30:00.000Z', '2026-11-25T14:30:00.000Z', '2026-11-25T23:30:00.000Z'];
const idOf = (t: string) => `s-${t.slice(11, 13)}${t.slice(14, 16)}`;

const savedTz = process.env.TZ;
let served: ProjectServer;

beforeAll(async () => {
  process.env.TZ = 'America/New_York';
  served = await serveProjectSessions(TIMES.map((t) => ({ id: idOf(t), at: t, text: 'hello zone' })));
});

afterAll(async () => {
  await served?.close();
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const get = (path: string, query: Record<string, string>) => served.get(path, query);

async function listed(query: Record<string, string>): Promise<string[]> {
  const { status, body } = await get('sessions', query);
  expect(status, JSON.stringify(body)).toBe(200);
  return (body as { data: { sessions: { id: string }[] } }).data.sessions.map((s) => s.id).sort();
}

async function found(query: Record<string, string>): Promise<string[]> {
  const { status, body } = await get('search', { q: 'hello', ...query });
  expect(status, JSON.stringify(body)).toBe(200);
  return [...new Set((body as { data: { hits: { sessionId: string }[] } }).data.hits.map((h) => h.sessionId))].sort();
}

describe("since/until of the HTTP API: read in tz, UTC without one, never in the server's zone", () => {
  it('the fixture: the sessions are at the times given', async () => {
    expect(await listed({})).toEqual(TIMES.map(idOf));
  });

  it('without tz a time and a date without an offset are UTC', async () => {
    expect(await listed({ since: '2026-11-25T14:00' })).toEqual(['s-1430', 's-2330']);
    expect(await listed({ until: '2026-11-25 13:30' })).toEqual(['s-1230', 's-1330']);
    expect(await listed({ since: '2026-11-25', until: '2026-11-25' })).toEqual(TIMES.map(idOf));
    expect(await found({ since: '2026-11-25T14:00' })).toEqual(['s-1430', 's-2330']);
  });

  it('with tz they are that zone: a time its wall clock, a date its day', async () => {
    const tz = 'Europe/Berlin';
    // 14:00 in Berlin is 13:00Z; a lower-case t reads the same
    expect(await listed({ since: '2026-11-25T14:00', tz })).toEqual(['s-1330', 's-1430', 's-2330']);
    expect(await listed({ since: '2026-11-25t14:00', tz })).toEqual(['s-1330', 's-1430', 's-2330']);
    // Berlin's 25th ends at 22:59:59.999Z: 23:30Z is its 26th
    expect(await listed({ until: '2026-11-25', tz })).toEqual(['s-1230', 's-1330', 's-1430']);
    expect(await listed({ since: '2026-11-26', tz })).toEqual(['s-2330']);
    expect(await found({ until: '2026-11-25', tz })).toEqual(['s-1230', 's-1330', 's-1430']);
    // a time with an offset names its instant whatever tz says
    expect(await listed({ since: '2026-11-25T14:00:00Z', tz })).toEqual(['s-1430', 's-2330']);
  });

  it('an unknown tz is a 400 naming it, on every route that takes since/until', async () => {
    for (const path of ['sessions', 'search', 'stats']) {
      const { status, body } = await get(path, { q: 'hello', since: '2026-11-25', tz: 'Mars/Olympus' });
      expect(status, path).toBe(400);
      expect((body as { msg: string }).msg).toContain('tz must be an IANA time zone');
    }
    // a bad time is still a 400 naming since, a tz or not
    const { status, body } = await get('sessions', { since: '2026-02-30', tz: 'UTC' });
    expect(status).toBe(400);
    expect((body as { msg: string }).msg).toContain('since must be an ISO date or time');
  });
});
