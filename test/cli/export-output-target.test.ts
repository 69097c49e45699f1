/**
 * `export -o FILE` where FILE is not a plain file: a symlink is written through (the link stays, the
 * file it names gets the export), and a FIFO (as `/dev/stdout` or a shell's `>(…)` is) gets the export
 * written into it. The atomic write renamed a temp file over the path: the link became a plain file,
 * the file it named kept the old export, and `-o /dev/stdout` replaced the system's /dev/stdout with
 * a file when run as root (this test makes its FIFO in a temp dir, never under /dev).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;
let out: string;
const readers: ChildProcess[] = [];

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-export-target-'));
  out = await mkdtemp(join(tmpdir(), 'tb-export-out-'));
});

afterAll(async () => {
  for (const r of readers) r.kill('SIGKILL');
  if (root) await rm(root, { recursive: true, force: true });
  if (out) await rm(out, { recursive: true, force: true });
});

it('writes through a symlink: the link stays and the file it names holds the export', async () => {
  const real = join(out, 'real.md');
  const link = join(out, 'link.md');
  await writeFile(real, 'an older export\n');
  await symlink(real, link);
  const r = await runCli(env, ['export', '11111111', '--format', 'md', '-o', link]);
  expect(r.code, r.err).toBe(0);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(await readlink(link)).toBe(real);
  expect(await readFile(real, 'utf8')).toContain('# Counting cats in pictures');
});

it('writes into a FIFO (as /dev/stdout is) instead of putting a file in its place', async () => {
  const fifo = join(out, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const reader = spawn('cat', [fifo]);
  readers.push(reader);
  let got = '';
  reader.stdout.on('data', (d) => (got += d));
  const done = new Promise<void>((resolve) => reader.on('close', () => resolve()));
  const r = await runCli(env, ['export', '11111111', '--format', 'md', '-o', fifo]);
  expect(r.code, r.err).toBe(0);
  expect(lstatSync(fifo).isFIFO()).toBe(true);
  await done;
  expect(got).toContain('# Counting cats in pictures');
}, 15_000);
