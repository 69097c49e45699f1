/**
 * `stats --tz`: days, weeks and months in a time zone (default this machine's, as TZ sets it),
 * `--since/--until` dates in it, a bad zone refused; and the table fits a narrow terminal.
 * Real Claude Code sessions in a local index; the reference dates each counted record with Intl.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringWidth } from '../../src/cli/text-width.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { countedWhere, type StatsRow } from '../../src/stores/index-sync/stats.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let home: string;
let env: DriverEnv;
/** the time of each record `stats` counts */
let times: string[];

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-stats-tz-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);
  const index = openSqliteStore(indexPath(env), { readonly: true });
  const where = countedWhere({});
  times = (
    index.db
      .prepare(`SELECT e.timestamp t FROM entries e JOIN sessions s ON s.id = e.session_id WHERE ${where.sql}`)
      .all(...where.args) as { t: string }[]
  ).map((r) => r.t);
  await index.close();
}, 120_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

/** Each day's number of counted records in `zone`, as Intl dates them. */
const referenceDays = (zone: string) => {
  const days = new Map<string, number>();
  for (const t of times) {
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date(t));
    days.set(day, (days.get(day) ?? 0) + 1);
  }
  return Object.fromEntries([...days].sort());
};

const jsonDays = async (args: string[]) =>
  Object.fromEntries(
    (
      JSON.parse(await runCliOk(env, ['stats', '--by', 'day', '--no-sync', '--json', ...args])) as {
        key: string;
        messages: number;
      }[]
    ).map((r) => [r.key, r.messages]),
  );

describe('stats --tz', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it("counts each record on its day in the zone given, which is not UTC's", async () => {
    expect(times.length).toBeGreaterThan(3);
    const kathmandu = referenceDays('Asia/Kathmandu');
    expect(kathmandu).not.toEqual(referenceDays('UTC'));
    expect(await jsonDays(['--tz', 'Asia/Kathmandu'])).toEqual(kathmandu);
    expect(await jsonDays(['--tz', 'UTC'])).toEqual(referenceDays('UTC'));
  });

  it("counts this machine's days without --tz (TZ sets them) and names the zone in the heading", async () => {
    process.env.TZ = 'America/Los_Angeles';
    expect(await jsonDays([])).toEqual(referenceDays('America/Los_Angeles'));
    const heading = (await runCliOk(env, ['stats', '--by', 'week', '--no-sync'])).split('\n')[0];
    expect(heading).toMatch(/^week \(America\/Los_Angeles\) +input/);
    process.env.TZ = 'Asia/Kathmandu';
    expect(await jsonDays([])).toEqual(referenceDays('Asia/Kathmandu'));
  });

  it("reads --since and --until dates as the zone's days", async () => {
    const kathmandu = referenceDays('Asia/Kathmandu');
    for (const [day, count] of Object.entries(kathmandu)) {
      const got = await jsonDays(['--tz', 'Asia/Kathmandu', '--since', day, '--until', day]);
      expect(got).toEqual({ [day]: count });
    }
    // a time without an offset is the zone's too: the zone's midnight starts the day
    const [first] = Object.keys(kathmandu);
    expect(await jsonDays(['--tz', 'Asia/Kathmandu', '--since', `${first}T00:00`, '--until', `${first}T23:59:59.999`])).toEqual({
      [first as string]: kathmandu[first as string],
    });
  });

  it('refuses a zone it does not know as a usage error (exit 2)', async () => {
    const r = await runCli(env, ['stats', '--tz', 'Mars/Olympus_Mons', '--no-sync']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('IANA time zone');
  });
});

describe('stats on a narrow terminal', () => {
  const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  afterEach(() => {
    if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  });
  const narrowEnv = (columns: number): DriverEnv => ({ ...env, env: { ...env.env, COLUMNS: String(columns) } });

  it.each(['day', 'model', 'session'])(
    'fits 40 columns by %s, every key whole, each row its tokens, cost and messages',
    async (by) => {
      const rows = JSON.parse(await runCliOk(env, ['stats', '--by', by, '--tz', 'UTC', '--no-sync', '--json'])) as StatsRow[];
      Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
      const lines = (await runCliOk(narrowEnv(40), ['stats', '--by', by, '--tz', 'UTC', '--no-sync'])).trimEnd().split('\n');
      const keys = rows.map((r) => (r.source ? `${r.key} (${r.source})` : r.key));
      for (const l of lines) if (!keys.includes(l.trimEnd())) expect(stringWidth(l), l).toBeLessThanOrEqual(40);
      const text = lines.join('\n');
      for (const [i, r] of rows.entries()) {
        const tokens = (r.inputTokens + r.outputTokens + r.cacheReadTokens + r.cacheWriteTokens).toLocaleString('en-US');
        // the key, then (on its line or the next) the row's tokens … messages
        expect(text).toMatch(new RegExp(`${keys[i]?.replace(/[()]/g, '\\$&')}\\s+${tokens} +\\S+ +${r.messages}(\\n|$)`));
      }
    },
  );

  it('keeps the full table in a pipe', async () => {
    const lines = (await runCliOk(narrowEnv(40), ['stats', '--by', 'day', '--no-sync'])).split('\n');
    expect(lines[0]).toMatch(/input +output +cache read +cache write +reasoning +cost \$ +msgs$/);
    expect(stringWidth(lines[0] as string)).toBeGreaterThan(100);
  });
});
