/**
 * `--since`/`--until` take ISO dates and times only: a day the calendar lacks, or a form Date reads in
 * its own way (2026/11/25: local midnight, which `--until` did not count to the day's end), is refused
 * (exit 2) instead of naming another time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { zonedTimeOption, zonedWindow } from '../../src/cli/options.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-time-values-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

it.each([
  '2026-02-30',
  '2026-02-29',
  '2026-04-31',
  '2026-00',
  '2026/11/25',
  '2026-1-5',
  '2026 nov 25',
  '2026-11-25z',
  '2026-11-25 (bar)',
  '2026-11-25T24:00',
  '2026-11-25T14:60',
])('%s is refused with exit 2', async (value) => {
  for (const args of [
    ['stats', '--since', value, '--no-sync'],
    ['stats', '--until', value, '--no-sync'],
    ['sessions', '--since', value],
  ]) {
    const r = await runCli(env, args);
    expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
    expect(r.err).toMatch(/invalid.*ISO date/);
  }
});

/** `--since T` / `--until T` as sessions, search and push take them: zonedTimeOption, then zonedWindow. */
const since = (value: string, tz?: string) => zonedWindow({ since: zonedTimeOption(value), ...(tz ? { tz } : {}) }).since;
const until = (value: string, tz?: string) => zonedWindow({ until: zonedTimeOption(value), ...(tz ? { tz } : {}) }).until;

it('ISO forms are taken as before', () => {
  expect(since('2024-02-29', 'UTC')).toBe('2024-02-29T00:00:00.000Z');
  expect(until('2026-02', 'UTC')).toBe('2026-02-28T23:59:59.999Z');
  expect(since(' 2026-11 ', 'UTC')).toBe('2026-11-01T00:00:00.000Z');
  expect(since('2026-11-25t14:00z', 'UTC')).toBe('2026-11-25T14:00:00.000Z');
  expect(since('2026-11-25T14:00:00.123Z', 'UTC')).toBe('2026-11-25T14:00:00.123Z');
  expect(since('2026-11-25T14:00:00+0200', 'UTC')).toBe('2026-11-25T12:00:00.000Z');
  expect(until('2026-11-25T23:59:59-05:00', 'UTC')).toBe('2026-11-26T04:59:59.000Z');
  // without an offset: the --tz zone's wall clock (a lower-case t too), and without --tz this machine's local time, as before
  expect(since('2026-11-25T14:00', 'UTC')).toBe('2026-11-25T14:00:00.000Z');
  expect(since('2026-11-25t14:00', 'UTC')).toBe('2026-11-25T14:00:00.000Z');
  expect(since('2026-11-25 14:00', 'UTC')).toBe('2026-11-25T14:00:00.000Z');
  expect(since('2026-11-25T14:00')).toBe(new Date(2026, 10, 25, 14, 0).toISOString());
  expect(since('2026-11-25 14:00')).toBe(new Date(2026, 10, 25, 14, 0).toISOString());
});

it('sessions --until lists the sessions updated at or before it, a date through its end, as search and stats take it', async () => {
  const { home: pis } = await fixtureHome({ prefix: 'tb-time-values-pi-', fixtures: ['piAll'] });
  try {
    const piEnv: DriverEnv = { home: pis, env: { HOME: pis } };
    for (const index of [['--no-index'], []]) {
      const listed = JSON.parse(await runCliOk(piEnv, ['sessions', '--until', '2025-06-01', '--json', ...index])) as {
        updatedAt: string;
      }[];
      // 2025-01-01T10:00 and 2025-06-01T10:00, not 2026's
      expect(listed.map((s) => s.updatedAt.slice(0, 10)).sort()).toEqual(['2025-01-01', '2025-06-01']);
      if (!index.length) break;
      await runCliOk(piEnv, ['sync', '--json']);
    }
    const crossed = await runCli(piEnv, ['sessions', '--since', '2026', '--until', '2025']);
    expect(crossed.code).toBe(2);
    expect(crossed.err).toContain('no time lies between them');
  } finally {
    await rm(pis, { recursive: true, force: true });
  }
});

it("the server's since/until take the same ISO forms: 2026-02-30 or 2026/11/25 is a 400 naming the parameter", async () => {
  const tokens = new MemoryTokenStore();
  const server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => undefined });
  try {
    const key = (await tokens.createToken('team')).key;
    const get = (query: string) =>
      fetch(`${server.url}/api/v1/threadbase/stats?${query}`, { headers: { authorization: `Bearer ${key}` } });
    for (const [name, value] of [
      ['since', '2026-02-30'],
      ['until', '2026/11/25'],
      ['since', '2026 nov 25'],
    ] as const) {
      const res = await get(`${name}=${encodeURIComponent(value)}`);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(((await res.json()) as { msg: string }).msg).toContain(`${name} must be an ISO date or time`);
    }
    expect((await get('since=2024-02-29&until=2026-11-25T14:00:00%2B02:00')).status).toBe(200);
  } finally {
    await server.close();
  }
});
