/** `serve --help` names the largest body the server takes when --max-body is not given (it said nothing). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-polish-help-'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('serve --help shows --max-body’s default, in bytes as the option takes it', async () => {
  const r = await runCli(env, ['serve', '--help']);
  expect(r.code).toBe(0);
  // the option's line and its wrapped continuation
  const help = r.out.replace(/\n {10,}/g, ' ');
  const line = help.split('\n').find((l) => l.trimStart().startsWith('--max-body'));
  expect(line).toMatch(/\(default: 10485760 = 10 MiB\)/);
});

it('push --help says --tz reads --since (push has no --until)', async () => {
  const r = await runCli(env, ['push', '--help']);
  expect(r.code).toBe(0);
  const help = r.out.replace(/\n {10,}/g, ' ');
  const line = help.split('\n').find((l) => l.trimStart().startsWith('--tz'));
  expect(line).toMatch(/the time zone of --since dates and times without an offset/);
  expect(help).not.toContain('--until');
});
