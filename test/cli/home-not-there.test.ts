/**
 * The local index's default place, ~/.threadbase, is made only in a HOME that is there: a HOME that
 * does not exist (HOME=/nonexistent, as service accounts have) was made, folders and all, and an
 * empty or relative HOME put the index under the current directory. Refused (exit 1) naming HOME;
 * THREADBASE_HOME, given, is made as before.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let cwd: string;
const startCwd = process.cwd();

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'tb-home-not-there-'));
  // a relative index lands here, not in the repository
  process.chdir(cwd);
});

afterAll(async () => {
  process.chdir(startCwd);
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

it.each([
  ['does not exist', () => join(cwd, 'no-such-home'), /HOME=.*no-such-home is no directory; set THREADBASE_HOME/],
  ['is empty', () => '', /HOME is empty/],
  ['is relative', () => 'relative/home', /HOME=relative\/home is not an absolute path/],
])('a HOME that %s: search, stats and sync make nothing and say so', async (_how, homeOf, why) => {
  const home = homeOf();
  for (const args of [['search', 'cats'], ['stats'], ['sync']]) {
    const r = await runCli({ home, env: { HOME: home } }, args);
    expect(r.err).toMatch(why);
    expect(r.code).toBe(1);
  }
  expect(await readdir(cwd)).toEqual([]);
});

it('THREADBASE_HOME, given, is made under a HOME that is not there', async () => {
  const home = join(cwd, 'gone');
  const tbHome = join(cwd, 'tb', 'home');
  const r = await runCli({ home, env: { HOME: home, THREADBASE_HOME: tbHome } }, ['sync']);
  expect(r.code, r.err).toBe(0);
  expect(existsSync(join(tbHome, 'index.db'))).toBe(true);
  expect(existsSync(home)).toBe(false);
});
