/**
 * `--prices FILE` (stats, export, serve) is a command-line value: a file that is no price table (bad
 * JSON, a price without numbers, a directory) is refused as a usage error (exit 2) before any session
 * is read or server started, as a missing file is; the README's exit codes say so.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;
let files: Record<'badJson' | 'noNumbers' | 'dir' | 'good', string>;

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-prices-file-'));
  const dir = await mkdtemp(join(tmpdir(), 'tb-prices-'));
  files = {
    badJson: join(dir, 'bad.json'),
    noNumbers: join(dir, 'no-numbers.json'),
    dir: join(dir, 'prices.d'),
    good: join(dir, 'good.json'),
  };
  await writeFile(files.badJson, '{"claude-sonnet-4-5": ');
  await writeFile(files.noNumbers, '{"claude-sonnet-4-5": {"input": "three"}}');
  await mkdir(files.dir);
  await writeFile(files.good, '{"claude-sonnet-4-5": {"input": 3, "output": 15}}');
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('--prices with a file that is no price table', () => {
  const commands = [
    // an unknown id: refused for the prices before the session is looked for (it said "not found", exit 1)
    ['export', 'no-such-session', '--format', 'md'],
    ['stats', '--no-sync'],
    ['serve', '--db', 'memory:', '--port', '0'],
  ];
  for (const kind of ['badJson', 'noNumbers', 'dir'] as const)
    it.each(commands)(`${kind}: %s is refused with exit 2, naming the option`, async (...args) => {
      const r = await runCli(env, [...args, '--prices', files[kind]]);
      expect(r.err).toMatch(/option '--prices <file>' argument .* is invalid\. Not a price table/);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
    });

  it('a price table is taken', async () => {
    const r = await runCli(env, ['export', '11111111', '--format', 'md', '--prices', files.good]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Counting cats in pictures');
  });
});
