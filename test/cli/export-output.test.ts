/**
 * `export -o FILE` where FILE cannot be written: one line naming the path and why, exit 1. It said
 * ENOENT twice and named a temp file the user never gave ("/proc/x: cannot write (ENOENT): ENOENT: no
 * such file or directory, open '/proc/.x.tb-…tmp'"), and under a directory that cannot be made
 * (/proc/x/y.html) it never returned: Node's recursive mkdir loops there. The place is checked before
 * the session is read and rendered (a large one took long to say it).
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

const ID = '11111111-1111-4111-8111-111111111111';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-export-output-'));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const exportTo = (file: string, id = ID) => runCli(env, ['export', id, '--no-index', '--format', 'md', '-o', file]);

/** One line on stderr, naming the file, saying the error's code once and no temp file's name. */
function expectOneLine(err: string, file: string, code: string): void {
  expect(err.split('\n')).toEqual([expect.any(String), '']);
  expect(err.startsWith(`threadbase: ${file}: cannot write: `)).toBe(true);
  expect(err.split(code).length - 1).toBe(1);
  expect(err).not.toMatch(/\.tb-\d+-[0-9a-f]{8}\.tmp/);
}

describe('export -o a path that cannot be written', () => {
  it.runIf(existsSync('/proc/self'))('a file in /proc: one line naming it', async () => {
    const r = await exportTo('/proc/x');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expectOneLine(r.err, '/proc/x', 'ENOENT');
    expect(r.err).toBe('threadbase: /proc/x: cannot write: no such file or directory (ENOENT, creating a file in /proc)\n');
  });

  it.runIf(existsSync('/proc/self'))(
    'a file under a directory that cannot be made in /proc: refused, not a hang',
    async () => {
      const r = await exportTo('/proc/x/y.html');
      expect(r.code).toBe(1);
      expectOneLine(r.err, '/proc/x/y.html', 'ENOENT');
      expect(r.err).toContain('making /proc/x');
    },
    10_000,
  );

  it('a file under a regular file: "not a directory", naming the file in the way', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'kept');
    for (const target of [join(file, 'x.md'), join(file, 'sub', 'x.md')]) {
      const r = await exportTo(target);
      expect(r.code).toBe(1);
      expectOneLine(r.err, target, 'ENOTDIR');
      expect(r.err).toContain('not a directory');
    }
    expect(await readFile(file, 'utf8')).toBe('kept');
  });

  it('a directory: one line', async () => {
    const dir = join(root, 'a-dir');
    await mkdir(dir);
    const r = await exportTo(dir);
    expect(r.code).toBe(1);
    expectOneLine(r.err, dir, 'EISDIR');
    expect(r.err).toBe(`threadbase: ${dir}: cannot write: illegal operation on a directory (EISDIR)\n`);
  });

  it('a file under directories not there yet is written, the directories made', async () => {
    const target = join(root, 'new', 'deeper', 'x.md');
    const r = await exportTo(target);
    expect(r.code, r.err).toBe(0);
    expect(await readFile(target, 'utf8')).toContain('cats');
  });

  it('is said before the session is read: the same line for a session that is not there', async () => {
    const file = join(root, 'in-the-way');
    await writeFile(file, 'kept');
    const dir = join(root, 'a-dir-too');
    await mkdir(dir);
    const targets = [join(file, 'x.md'), join(file, 'sub', 'x.md'), dir, ...(existsSync('/proc/self') ? ['/proc/x'] : [])];
    for (const target of targets) {
      const known = await exportTo(target);
      const unknown = await exportTo(target, 'no-such-session');
      expect(unknown.code).toBe(1);
      expect(unknown.err, target).toBe(known.err);
      expect(unknown.err).not.toContain('not found');
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it('a place that can be written leaves nothing behind when the session is not there', async () => {
    const dir = join(root, 'kept-empty');
    await mkdir(dir);
    const r = await exportTo(join(dir, 'new', 'deeper', 'x.md'), 'no-such-session');
    expect(r.code).toBe(1);
    expect(r.err).toContain('session not found: no-such-session');
    // neither the directories the check made nor its temp file
    expect(await readdir(dir)).toEqual([]);
  });
});
