/**
 * With HOME unset (a service, `env -i`), the home is the user's in the passwd database; a user with
 * none there is refused by name (HOME). '/' was taken: every agent's data was looked for under /.
 * Each case is a child process whose environment has no HOME (THREADBASE_HOME a temp dir); it only
 * works out the home, nothing under it is read.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
let tbHome: string;

beforeAll(async () => {
  tbHome = await mkdtemp(join(tmpdir(), 'tb-home-unset-'));
});

afterAll(async () => {
  if (tbHome) await rm(tbHome, { recursive: true, force: true });
});

/** defaultDriverEnv() in a child process without HOME: the home it gives, or its error. */
function homeWithoutHOME(opts: { uid?: number } = {}): string {
  const script =
    "import { defaultDriverEnv } from './src/model/driver.ts'; try { console.log('home ' + defaultDriverEnv().home) } catch (e) { console.log('error ' + e.message) }";
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, THREADBASE_HOME: tbHome },
    encoding: 'utf8',
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}),
  });
  return `${r.stdout}${r.stderr}`.trim();
}

it("HOME unset: the home is the user's in the passwd database, not /", () => {
  expect(homeWithoutHOME()).toBe(`home ${userInfo().homedir}`);
});

// only root can run the child as a user the passwd database does not know
it.skipIf(process.getuid?.() !== 0)('HOME unset and no passwd entry: refused, naming HOME', () => {
  const uid = 54_321;
  expect(homeWithoutHOME({ uid })).toMatch(/^error no home directory: HOME is not set/);
});
