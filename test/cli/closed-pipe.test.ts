/**
 * `threadbase sessions | head -1`: when the reader of its output goes away, the CLI stops quietly
 * (exit 0, nothing on stderr) instead of dying of an unhandled EPIPE with a stack trace.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-closed-pipe-', fixtures: ['claude'] }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('stops quietly when its output is closed', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve('src/cli/run.ts'), 'sessions', '--no-index'], {
    env: { ...process.env, HOME: root, THREADBASE_HOME: join(root, '.threadbase') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // the reader is gone before the CLI writes its first line
  child.stdout.destroy();
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
  expect(err).not.toMatch(/EPIPE|Unhandled/);
  expect(code).toBe(0);
}, 30_000);
