/**
 * The per-day chart counts the reader's days: /stats?tz=<IANA zone> puts a response at 22:30 in New
 * York (03:30 UTC the next day) on the New York day, as the page's From and To are the reader's days;
 * it was always on its UTC date. Without tz the days stay UTC (as `stats --by day`), a zone the server
 * does not know is a 400, and the answer says whose days it counted (dayZone).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { WebData } from '../../src/server/web/data.js';
import { createWebApp } from '../../src/server/web/index.js';
import { dayIn } from '../../src/stores/index-sync/stats.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { answeredAt } from '../helpers/sessions.js';

const store = new MemoryStore();
beforeAll(async () => {
  await store.writeSession(answeredAt('late-evening', '2026-11-20T03:30:00.000Z', { input: 100, model: 'claude-sonnet-4' }), {
    keepId: true,
  }); // 22:30 on the 19th in New York
  await store.writeSession(answeredAt('next-morning', '2026-11-20T15:00:00.000Z', { input: 1000, model: 'claude-sonnet-4' }), {
    keepId: true,
  }); // 10:00 on the 20th
});

const days = (byDay: { key: string; input: number }[]) => byDay.map((b) => [b.key, b.input]);

describe.each([
  ['per message', 1000],
  ["from each session's totals", 0],
])('the per-day chart, %s', (_how, statsSessionLimit) => {
  it("counts the reader's days when given their zone", async () => {
    const stats = await new WebData(store, { statsSessionLimit }).stats({ timeZone: 'America/New_York' });
    expect(days(stats.byDay)).toEqual([
      ['2026-11-19', 100],
      ['2026-11-20', 1000],
    ]);
    expect(stats.dayZone).toBe('America/New_York');
    // east of UTC the UTC evening is the next morning
    expect(days((await new WebData(store, { statsSessionLimit }).stats({ timeZone: 'Asia/Tokyo' })).byDay)).toEqual([
      ['2026-11-20', 100],
      ['2026-11-21', 1000],
    ]);
  });

  it('counts UTC days without one, as stats --by day', async () => {
    const stats = await new WebData(store, { statsSessionLimit }).stats({});
    expect(days(stats.byDay)).toEqual([['2026-11-20', 1100]]);
    expect(stats.dayZone).toBe('UTC');
  });
});

describe('/api/v1/web/stats?tz=', () => {
  const app = createWebApp({ driver: store });
  const stats = (q: string) => app.fetch(new Request(`http://127.0.0.1/api/v1/web/stats?${q}`));

  it("takes the reader's zone", async () => {
    const res = await stats('tz=America/New_York');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { dayZone: string; byDay: { key: string; input: number }[] };
    expect(body.dayZone).toBe('America/New_York');
    expect(days(body.byDay)).toEqual([
      ['2026-11-19', 100],
      ['2026-11-20', 1000],
    ]);
  });

  it('refuses a zone it does not know', async () => {
    const res = await stats('tz=Mars/Olympus_Mons');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^tz: must be an IANA time zone/);
  });
});

describe('dayIn', () => {
  it('names the day of a time in a zone, the UTC date without one, and a time it cannot read by its first ten characters', () => {
    expect(dayIn('Europe/Berlin')('2026-03-28T23:30:00.000Z')).toBe('2026-03-29');
    expect(dayIn('America/Los_Angeles')('2026-01-01T07:59:59.000Z')).toBe('2025-12-31');
    expect(dayIn(undefined)('2026-01-01T07:59:59.000Z')).toBe('2026-01-01');
    expect(dayIn('Europe/Berlin')('not a time')).toBe('not a time');
  });
});
