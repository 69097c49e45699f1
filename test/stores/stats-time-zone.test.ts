/**
 * Days in a time zone: SQLite (the index's stats SQL, costBuckets) and PostgreSQL (costBuckets, real
 * server) count each response on its day in the zone asked for, across a DST change (Los Angeles'
 * spring and autumn) and at a :45 offset (Kathmandu's midnight is 18:15 UTC), as a JS reference
 * (Intl) dates each response, and at Lord Howe's half-hour DST change; weeks start on the zone's
 * Monday, months are the zone's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostBucket } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { type StatsBy, stats } from '../../src/stores/index-sync/stats.js';
import type { SqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

/** Each response's time: a minute (a second) either side of a local midnight in one of the zones. */
const TIMES = [
  // Los Angeles: PST until 2026-03-08 10:00Z, PDT until 2026-11-01 09:00Z
  '2026-03-08T07:59:59.000Z',
  '2026-03-08T08:00:00.000Z',
  '2026-03-08T10:30:00.000Z',
  '2026-03-09T06:59:59.000Z',
  '2026-03-09T07:00:00.000Z',
  '2026-11-01T06:59:00.000Z',
  '2026-11-01T07:00:00.000Z',
  '2026-11-01T09:30:00.000Z',
  '2026-11-02T07:59:00.000Z',
  '2026-11-02T08:00:00.000Z',
  // Kathmandu: +05:45, midnight at 18:15Z (in the same UTC hour as 18:14)
  '2026-03-08T18:14:59.000Z',
  '2026-03-08T18:15:00.000Z',
  '2026-03-31T18:29:00.000Z',
  '2026-03-31T18:30:00.000Z',
  // Lord Howe: +11 until 2026-04-05 02:00 local, then +10:30 (a half-hour change): midnight at 13:30Z
  '2026-04-05T13:29:00.000Z',
  '2026-04-05T13:30:00.000Z',
  // a Sunday night and a Monday morning in Los Angeles, both Monday in Kathmandu
  '2026-03-16T06:00:00.000Z',
  '2026-03-16T08:00:00.000Z',
];
const ZONES = ['America/Los_Angeles', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'UTC'] as const;

/** One session of a prompt and a reply at each time, the i-th reply of i + 1 input tokens (each day's sum tells which replies it holds). */
function zoneSession(): Session {
  const entries: Entry[] = [messageEntry('u0', null, '2026-03-01T00:00:00.000Z', textMessage('user', 'count my days'))];
  for (const [i, at] of TIMES.entries())
    entries.push(
      messageEntry(
        `a${i}`,
        entries[entries.length - 1]?.id ?? null,
        at,
        textMessage('assistant', `reply ${i}`, {
          model: 'claude-sonnet-4-5',
          usage: { input: i + 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
        }),
      ),
    );
  return {
    id: 'zone-days',
    source: 'threadbase',
    project: '/tmp/zone-days',
    createdAt: '2026-03-01T00:00:00.000Z',
    updatedAt: TIMES[TIMES.length - 1] as string,
    messageCount: entries.length,
    entries,
  };
}

/** The reference: each time's calendar day in `zone`, as Intl writes it (en-CA: YYYY-MM-DD). */
const referenceDay = (zone: string, iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(iso));

/** The Monday on or before `day` (YYYY-MM-DD). */
const referenceMonday = (day: string) => {
  const d = new Date(`${day}T12:00:00Z`);
  while (d.getUTCDay() !== 1) d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
};

/** The reference rows by `by`: each key's responses and input tokens. */
function reference(zone: string, by: 'day' | 'week' | 'month'): { key: string; responses: number; input: number }[] {
  const rows = new Map<string, { key: string; responses: number; input: number }>();
  TIMES.forEach((at, i) => {
    const day = referenceDay(zone, at);
    const key = by === 'day' ? day : by === 'week' ? referenceMonday(day) : day.slice(0, 7);
    const row = rows.get(key) ?? { key, responses: 0, input: 0 };
    row.responses += 1;
    row.input += i + 1;
    rows.set(key, row);
  });
  return [...rows.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

const counts = (list: readonly CostBucket[]) => list.map((b) => ({ key: b.key, responses: b.responses, input: b.input }));

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ pg, sqlite, close } = await storesHolding('tb_zone_days', [zoneSession()]));
}, 60_000);

afterAll(async () => {
  await close?.();
});

describe.each(ZONES)('days in %s', (zone) => {
  it('SQLite and PostgreSQL count each response on its day there, as the reference dates it', async () => {
    const want = reference(zone, 'day');
    const fromSqlite = await sqlite.costBuckets('day', {}, PRICES, undefined, zone);
    const fromPg = await pg.store.costBuckets('day', {}, PRICES, undefined, zone);
    expect(counts(fromSqlite)).toEqual(want);
    expect(counts(fromPg)).toEqual(want);
    // the cost of each day agrees too (priced from the same tokens)
    expect(fromPg.map((b) => b.cost.toFixed(9))).toEqual(fromSqlite.map((b) => b.cost.toFixed(9)));
  });

  it.each(['day', 'week', 'month'] as const)("the index's stats by %s count that zone's", (by) => {
    const rows = stats(sqlite, PRICES, { by: by as StatsBy, timeZone: zone });
    expect(rows.map((r) => ({ key: r.key, responses: r.messages, input: r.inputTokens }))).toEqual(reference(zone, by));
  });
});

it("the zones' days differ from UTC's (the tests above could tell them apart)", () => {
  const keys = (zone: string) => reference(zone, 'day').map((r) => `${r.key}:${r.input}`);
  expect(keys('America/Los_Angeles')).not.toEqual(keys('UTC'));
  expect(keys('Asia/Kathmandu')).not.toEqual(keys('UTC'));
  // Kathmandu's week of 2026-03-16 starts on its Monday, Los Angeles' holds the Sunday before
  expect(reference('Asia/Kathmandu', 'week').map((r) => r.key)).toContain('2026-03-16');
  expect(reference('America/Los_Angeles', 'week').map((r) => r.key)).toContain('2026-03-09');
});

it('without a zone, costBuckets count UTC days as before', async () => {
  expect(counts(await sqlite.costBuckets('day', {}, PRICES))).toEqual(reference('UTC', 'day'));
  expect(counts(await pg.store.costBuckets('day', {}, PRICES))).toEqual(reference('UTC', 'day'));
});
