/**
 * `serve --db` and `token --db` take a SQLite file, `postgres://…` or `memory:`. A value that reads as
 * a URL of another kind (a mistyped scheme, a server's URL) is refused (exit 2) before anything is
 * made; it was taken as a relative file name, and a new database (and a folder `sqlit:`) was made in
 * the current directory and served as if it were the one meant.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';

let home: string;
let cwd: string;
let env: DriverEnv;
const startCwd = process.cwd();

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-db-option-'));
  cwd = await mkdtemp(join(tmpdir(), 'tb-db-option-cwd-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  // a relative --db lands here, not in the repository
  process.chdir(cwd);
});

afterAll(async () => {
  process.chdir(startCwd);
  for (const d of [home, cwd]) if (d) await rm(d, { recursive: true, force: true });
});

const mistyped = ['sqlit:/team.db', 'postgress://u@127.0.0.1/db', 'https://threads.example.com'];

it.each(
  mistyped.flatMap((db) => [
    [['serve', '--port', '0', '--db', db]],
    [['token', 'create', '--project', 'p', '--db', db]],
    [['token', 'list', '--db', db]],
  ]),
)('refuses a --db that is no database it opens: %j', async (args) => {
  const r = await runCli(env, args);
  expect(r.err).toMatch(/option '--db <path\|url>' argument .* is invalid\. Not a database threadbase opens/);
  expect(r.code).toBe(2);
  expect(await readdir(cwd)).toEqual([]);
});

it('takes a SQLite file by a relative name, sqlite:PATH and file:PATH', async () => {
  for (const db of ['team.db', `sqlite:${join(cwd, 'a.db')}`, `file:${join(cwd, 'b.db')}`]) {
    const r = await runCli(env, ['token', 'create', '--project', 'p', '--db', db]);
    expect(r.code, r.err).toBe(0);
  }
  expect(existsSync(join(cwd, 'team.db'))).toBe(true);
  expect(existsSync(join(cwd, 'a.db'))).toBe(true);
  expect(existsSync(join(cwd, 'b.db'))).toBe(true);
});
