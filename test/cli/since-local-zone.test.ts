/**
 * `sessions`, `search` and `push` read a `--since`/`--until` date alone, and a time without an offset,
 * in this machine's zone (TZ) or `--tz`'s, as git and `stats` do: a session of 2026-11-25T03:00Z is
 * Nov 24 evening in Los Angeles, so `--since 2026-11-25` there leaves it out; in UTC it is Nov 25's.
 * A time with an offset stays the instant it names. A real pi session, its times moved to that night.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

/** The session's last entry: Nov 25 in UTC, 19:00 on Nov 24 in Los Angeles (UTC-8). */
const LAST = Date.parse('2026-11-25T03:00:00Z');
const LA = 'America/Los_Angeles';

let root: string;
let server: RunningServer;
let tokens: MemoryTokenStore;
let homeCount = 0;
const savedTz = process.env.TZ;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-since-zone-'));
  tokens = new MemoryTokenStore();
  server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => undefined });
});

afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A home holding the pi fixture session with every time shifted so its last entry is at LAST (own index, own push state). */
async function homeWithLateSession(): Promise<DriverEnv> {
  const home = join(root, `home-${homeCount++}`);
  const text = await readFile('test/fixtures/pi/real-tool-call.jsonl', 'utf8');
  const shift = LAST - Date.parse('2026-11-22T19:09:17.399Z');
  const moved = text
    .replace(/"timestamp":"([^"]+)"/g, (_, t: string) => `"timestamp":"${new Date(Date.parse(t) + shift).toISOString()}"`)
    .replace(/"timestamp":(\d+)/g, (_, t: string) => `"timestamp":${Number(t) + shift}`);
  const dir = join(home, '.pi/agent/sessions/--proj--');
  await mkdir(dir, { recursive: true });
  const first = new Date(Date.parse('2026-11-22T19:09:17.237Z') + shift).toISOString().replace(/[:.]/g, '-');
  await writeFile(join(dir, `${first}_${PI_TOOL_CALL_ID}.jsonl`), moved);
  return { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
}

/** The ids `sessions` lists with these options, from the agents' files and from the index. */
async function listed(env: DriverEnv, args: string[]): Promise<string[][]> {
  const ids = async (extra: string[]) =>
    (JSON.parse(await runCliOk(env, ['sessions', '--json', ...args, ...extra])) as { id: string }[]).map((s) => s.id);
  const fromFiles = await ids(['--no-index']);
  await runCliOk(env, ['sync', '--json']);
  return [fromFiles, await ids([])];
}

/** The sessions `search echo` finds with these options. */
async function found(env: DriverEnv, args: string[]): Promise<string[]> {
  const hits = JSON.parse(await runCliOk(env, ['search', 'echo', '--json', ...args])) as { sessionId: string }[];
  return [...new Set(hits.map((h) => h.sessionId))];
}

/** How many sessions `push --source pi` sends with these options (a fresh home: nothing pushed before). */
async function pushed(args: string[]): Promise<number> {
  const env = await homeWithLateSession();
  const key = (await tokens.createToken(`team-${homeCount}`)).key;
  const r = await runCli(env, ['push', '--to', server.url, '--key', key, '--source', 'pi', '--json', ...args]);
  expect(r.code, r.err).toBe(0);
  const report = JSON.parse(r.out) as { created: number; sessions: number };
  return report.created;
}

describe('a date alone is the machine zone’s day', () => {
  it('TZ=America/Los_Angeles: --since 2026-11-25 leaves out a session of 2026-11-25T03:00Z (Nov 24 there)', async () => {
    process.env.TZ = LA;
    const env = await homeWithLateSession();
    expect(await listed(env, ['--since', '2026-11-25'])).toEqual([[], []]);
    expect(await listed(env, ['--until', '2026-11-24'])).toEqual([[PI_TOOL_CALL_ID], [PI_TOOL_CALL_ID]]);
    expect(await found(env, ['--since', '2026-11-25'])).toEqual([]);
    expect(await found(env, ['--since', '2026-11-24', '--until', '2026-11-24'])).toEqual([PI_TOOL_CALL_ID]);
    expect(await pushed(['--since', '2026-11-25'])).toBe(0);
    expect(await pushed(['--since', '2026-11-24'])).toBe(1);
  });

  it('TZ=UTC: the same session is Nov 25’s', async () => {
    process.env.TZ = 'UTC';
    const env = await homeWithLateSession();
    expect(await listed(env, ['--since', '2026-11-25'])).toEqual([[PI_TOOL_CALL_ID], [PI_TOOL_CALL_ID]]);
    expect(await listed(env, ['--until', '2026-11-24'])).toEqual([[], []]);
    expect(await found(env, ['--since', '2026-11-25'])).toEqual([PI_TOOL_CALL_ID]);
    expect(await found(env, ['--since', '2026-11-24', '--until', '2026-11-24'])).toEqual([]);
    expect(await pushed(['--since', '2026-11-25'])).toBe(1);
  });

  it('--tz names the zone instead of the machine’s; a time without an offset is that zone’s', async () => {
    process.env.TZ = 'UTC';
    const env = await homeWithLateSession();
    await runCliOk(env, ['sync', '--json']);
    expect(await found(env, ['--since', '2026-11-25', '--tz', LA])).toEqual([]);
    // 18:00 in Los Angeles is 02:00Z, before the session's last entry; 20:00 there is 04:00Z, after it
    expect(await listed(env, ['--since', '2026-11-24T18:00', '--tz', LA])).toEqual([[PI_TOOL_CALL_ID], [PI_TOOL_CALL_ID]]);
    expect(await listed(env, ['--since', '2026-11-24T20:00', '--tz', LA])).toEqual([[], []]);
    expect(await pushed(['--since', '2026-11-25', '--tz', LA])).toBe(0);
    process.env.TZ = LA;
    expect(await listed(env, ['--since', '2026-11-25', '--tz', 'UTC'])).toEqual([[PI_TOOL_CALL_ID], [PI_TOOL_CALL_ID]]);
  });

  it('a time with an offset or Z is the instant it names, whatever the zone', async () => {
    process.env.TZ = LA;
    const env = await homeWithLateSession();
    expect(await listed(env, ['--since', '2026-11-25T00:00Z'])).toEqual([[PI_TOOL_CALL_ID], [PI_TOOL_CALL_ID]]);
    expect(await found(env, ['--since', '2026-11-25T03:30:00+01:00'])).toEqual([PI_TOOL_CALL_ID]);
    expect(await found(env, ['--since', '2026-11-25T04:00:00+01:00'])).toEqual([]);
    expect(await pushed(['--since', '2026-11-25T02:00:00Z', '--tz', 'Asia/Tokyo'])).toBe(1);
  });

  it('an unknown --tz is refused (exit 2), and a --since after the --until in the zone', async () => {
    const env = await homeWithLateSession();
    for (const args of [
      ['sessions', '--tz', 'Mars/Olympus'],
      ['search', 'echo', '--tz', 'Mars/Olympus'],
      ['push', '--to', server.url, '--key', 'k', '--tz', 'Mars/Olympus'],
    ]) {
      const r = await runCli(env, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(/--tz <zone>.*invalid.*IANA time zone/);
    }
    const crossed = await runCli(env, ['sessions', '--since', '2026-11-25T01:00', '--until', '2026-11-25', '--tz', 'UTC']);
    expect(crossed.code).toBe(0);
    const late = await runCli(env, ['search', 'echo', '--since', '2026-11-26', '--until', '2026-11-25', '--tz', LA]);
    expect(late.code).toBe(2);
    expect(late.err).toContain('no time lies between them');
  });
});

describe('the text listings print times on the clock --since reads', () => {
  /** The time column of each text line of `args`' output that names the session. */
  const times = async (env: DriverEnv, args: string[]) =>
    (await runCliOk(env, args))
      .split('\n')
      .filter((l) => l.startsWith(PI_TOOL_CALL_ID))
      .map((l) => /\b(\d{4}-\d\d-\d\dT\d\d:\d\d)\b/.exec(l)?.[1]);

  it('TZ=America/Los_Angeles: sessions and search show Nov 24 19:00, the day --since 2026-11-25 leaves out (they showed UTC’s Nov 25 03:00)', async () => {
    process.env.TZ = LA;
    const env = await homeWithLateSession();
    await runCliOk(env, ['sync', '--json']);
    expect(await times(env, ['sessions'])).toEqual(['2026-11-24T19:00']);
    expect(await times(env, ['sessions', '--no-index'])).toEqual(['2026-11-24T19:00']);
    const hits = await times(env, ['search', 'echo', '--no-sync']);
    expect(hits.length).toBeGreaterThan(0);
    for (const t of hits) expect(t?.startsWith('2026-11-24T1')).toBe(true);
  });

  it('--tz names the clock; UTC shows the stored time', async () => {
    process.env.TZ = LA;
    const env = await homeWithLateSession();
    expect(await times(env, ['sessions', '--tz', 'UTC'])).toEqual(['2026-11-25T03:00']);
    expect(await times(env, ['sessions', '--tz', 'Asia/Kolkata'])).toEqual(['2026-11-25T08:30']);
  });
});
