/**
 * The viewer's data routes take since/until as the CLI's --since/--until and the API's /stats take
 * them: a date alone is its whole day and a time without an offset its wall clock, in `tz` if given
 * (else UTC, never the server's own zone), a time with an offset is that instant, and a value that
 * names no time is a 400 naming the parameter. They were compared as text: /stats?until=<a day> left
 * that day's sessions out (since=until=<a day> counted nothing), an offset time missed what it named,
 * and since=yesterday or 2026-02-30 answered 200 with an empty or full page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';

function session(id: string, day: string): Session {
  return {
    id,
    source: 'threadbase',
    title: `on ${day}`,
    createdAt: `${day}T10:00:00.000Z`,
    updatedAt: `${day}T10:00:01.000Z`,
    messageCount: 2,
    entries: [
      {
        id: `${id}-u`,
        parentId: null,
        timestamp: `${day}T10:00:00.000Z`,
        kind: 'message',
        message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      },
      {
        id: `${id}-a`,
        parentId: `${id}-u`,
        timestamp: `${day}T10:00:01.000Z`,
        kind: 'message',
        message: {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
          parts: [{ type: 'text', text: 'hello' }],
        },
      },
    ],
  };
}

describe('web data routes: since and until', () => {
  let app: ReturnType<typeof createWebApp>;
  beforeAll(async () => {
    const store = new MemoryStore();
    await store.writeSession(session('day-20', '2026-11-20'), { keepId: true });
    await store.writeSession(session('day-21', '2026-11-21'), { keepId: true });
    app = createWebApp({ driver: store });
  });
  const get = async (path: string) => {
    const res = await app.request(`http://localhost/api/v1/web${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const statsOf = async (query: string) => {
    const { status, body } = await get(`/stats?${query}`);
    expect(status).toBe(200);
    return { sessions: body.sessions, responses: (body.totals as { responses: number }).responses };
  };
  const listed = async (query: string) => {
    const { status, body } = await get(`/sessions?${query}`);
    expect(status).toBe(200);
    return (body.sessions as { id: string }[]).map((s) => s.id).sort();
  };

  it('counts the whole day an until date names in the stats', async () => {
    expect(await statsOf('until=2026-11-20')).toEqual({ sessions: 1, responses: 1 });
    expect(await statsOf('since=2026-11-20&until=2026-11-20')).toEqual({ sessions: 1, responses: 1 });
    expect(await statsOf('since=2026-11-21')).toEqual({ sessions: 1, responses: 1 });
    expect(await statsOf('')).toEqual({ sessions: 2, responses: 2 });
  });

  it('reads a time with an offset as the instant it names', async () => {
    // 12:00 at +02:00 is 10:00Z: the session of the 20th was updated a second after
    expect(await listed(`since=${encodeURIComponent('2026-11-20T12:00:00+02:00')}`)).toEqual(['day-20', 'day-21']);
    expect(await listed('until=2026-11-20')).toEqual(['day-20']);
    expect(await statsOf(`until=${encodeURIComponent('2026-11-20T12:00:00+02:00')}`)).toEqual({
      sessions: 1,
      responses: 0,
    });
  });

  it("reads a date or a time without an offset in the tz asked for, else UTC, never the server's own zone", async () => {
    const saved = process.env.TZ;
    // the server process in New York: 07:00 read there would be 12:00Z
    process.env.TZ = 'America/New_York';
    try {
      const seven = encodeURIComponent('2026-11-20T07:00');
      // UTC: 07:00Z is before the 20th's session (updated 10:00:01Z)
      expect(await listed(`since=${seven}`)).toEqual(['day-20', 'day-21']);
      expect(await listed(`until=${seven}`)).toEqual([]);
      expect(await statsOf(`until=${seven}`)).toEqual({ sessions: 0, responses: 0 });
      // Tokyo (UTC+9): 18:00 there is 09:00Z, before it too; read as UTC, 18:00Z is after it
      const six = encodeURIComponent('2026-11-20T18:00');
      expect(await listed(`since=${six}&tz=Asia/Tokyo`)).toEqual(['day-20', 'day-21']);
      expect(await listed(`since=${six}`)).toEqual(['day-21']);
      // a date alone is the asked zone's day: the 20th in Kiritimati (UTC+14) ends at 09:59:59.999Z
      expect(await listed('until=2026-11-20&tz=Pacific/Kiritimati')).toEqual([]);
      expect(await statsOf('since=2026-11-21&tz=Pacific/Kiritimati')).toEqual({ sessions: 2, responses: 2 });
      expect(await listed('until=2026-11-20')).toEqual(['day-20']);
      const bad = await get('/sessions?since=2026-11-20&tz=Mars/Olympus');
      expect(bad.status).toBe(400);
      expect((bad.body.issues as { path: string[] }[])[0]?.path).toEqual(['tz']);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('answers a since or until that names no time with a 400 naming it', async () => {
    for (const path of [
      '/sessions?since=yesterday',
      '/sessions?until=2026-02-30',
      '/stats?since=garbage',
      '/stats?until=2026%2F11%2F25',
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(400);
      expect(body.error, path).toBe('bad_request');
      const param = path.includes('since') ? 'since' : 'until';
      expect((body.issues as { path: string[] }[])[0]?.path, path).toEqual([param]);
      // the words the viewer shows for a failed page
      expect(body.message, path).toMatch(new RegExp(`^${param}: must be an ISO date or time`));
    }
  });
});
