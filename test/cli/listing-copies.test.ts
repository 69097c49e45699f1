/**
 * `sessions` on a home where one agent's session sits in two files (a pi session file copied into
 * another project's folder): listed once, as the index lists it and as `show` reads it.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  // `pi` puts the session under --proj--, `piAll` a copy of the same file under --work-proj--
  ({ home } = await fixtureHome({ prefix: 'tb-listing-copies-', fixtures: ['pi', 'piAll'] }));
  env = { home, env: { HOME: home } };
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

const ids = (json: string): string[] => (JSON.parse(json) as { id: string }[]).map((s) => s.id);

it('sessions read from the files lists the id once, naming both files, and the index lists the same', async () => {
  const files = await runCli(env, ['sessions', '--no-index', '--json']);
  expect(files.code, files.err).toBe(0);
  expect(ids(files.out).filter((id) => id === PI_TOOL_CALL_ID)).toHaveLength(1);
  expect(files.err).toContain(`2 pi session files hold the id ${PI_TOOL_CALL_ID} (`);
  expect(files.err).toContain('--work-proj--/real-tool-call.jsonl');

  const text = await runCli(env, ['sessions', '--no-index']);
  expect(text.out.split('\n').filter((l) => l.startsWith(PI_TOOL_CALL_ID))).toHaveLength(1);

  await runCliOk(env, ['sync', '--json']);
  const indexed = await runCliOk(env, ['sessions', '--json']);
  expect(ids(indexed).sort()).toEqual(ids(files.out).sort());
});

it('sessions --limit N read from the files drops the copy before the limit: N rows, the first N of the whole listing', async () => {
  const all = ids(await runCliOk(env, ['sessions', '--no-index', '--json']));
  // a limit that takes the copied session and the one after it: its two files would fill both places
  const limit = all.indexOf(PI_TOOL_CALL_ID) + 2;
  expect(limit).toBeGreaterThan(1);
  expect(all.length).toBeGreaterThan(limit);
  const limited = await runCli(env, ['sessions', '--no-index', '--limit', String(limit), '--json']);
  expect(limited.code, limited.err).toBe(0);
  expect(ids(limited.out)).toEqual(all.slice(0, limit));
  expect(limited.err).toContain(`2 pi session files hold the id ${PI_TOOL_CALL_ID} (`);
});
