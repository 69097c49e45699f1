/**
 * A store named by its file to read from (`push --from`, `ui --store`, `convert --from`) is one that is
 * there: a mistyped path is refused (exit 2) instead of opened as a new, empty store (made on disk)
 * that pushed or showed no session.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';

let home: string;
let env: DriverEnv;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-store-files-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

it.each([
  (missing: string) => ['push', '--to', 'http://127.0.0.1:1', '--key', 'k', '--from', `sqlite:${missing}`],
  (missing: string) => ['ui', '--store', `sqlite:${missing}`, '--no-open', '--port', '0'],
  (missing: string) => ['ui', '--store', missing, '--no-open', '--port', '0'],
  (missing: string) => ['convert', 'x', '--to', 'pi', '--from', `sqlite:${missing}`],
])('%s with a store file that is not there: exit 2, and no file made', async (args) => {
  const typo = join(await mkdtemp(join(home, 'case-')), 'typo');
  const missing = join(typo, 'index.db');
  const r = await runCli(env, args(missing));
  expect(r.code, r.err).toBe(2);
  expect(r.err).toContain(`${missing}: no such file`);
  expect(existsSync(typo)).toBe(false);
});

it.each([
  ['push', '--to', 'http://127.0.0.1:1', '--key', 'k', '--from', 'sqlit:/x.db'],
  ['ui', '--store', 'bogus:', '--no-open', '--port', '0'],
  ['convert', 'x', '--to', 'pi', '--from', 'postgre://h/db'],
])('%s … a store URL of no kind threadbase opens: exit 2 before anything runs', async (...args) => {
  const r = await runCli(env, args);
  expect(r.code, r.err).toBe(2);
  expect(r.err).toContain('not a store URL:');
});
