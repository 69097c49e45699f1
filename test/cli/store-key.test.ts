/**
 * A team server read as a store (`push --from`, `convert`/`handoff --from`, `ui --store`) takes its
 * key from the URL's user part or $THREADBASE_API_KEY. With neither, the command line is refused
 * (exit 2) naming the option and where the key goes; it ran and failed on the server's "401: missing
 * Authorization: Bearer <key>" (exit 1) without saying which server, and `ui` served a viewer whose
 * every page failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';

let home: string;
const envWith = (vars: Record<string, string> = {}): DriverEnv => ({
  home,
  env: { HOME: home, THREADBASE_HOME: join(home, '.tb'), ...vars },
});

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-store-key-'));
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

// port 9: nothing listens there, so a command that goes on fails as unreachable (exit 1)
const server = 'http://127.0.0.1:9';
const commands: [string, string[]][] = [
  ['--from', ['push', '--to', 'http://127.0.0.1:10', '--key', 'tb_for_the_to_server', '--from', server]],
  ['--from', ['convert', 'abc', '--to', 'claude', '--from', server]],
  ['--from', ['handoff', 'abc', '--to', 'pi', '--from', server]],
  ['--store', ['ui', '--no-open', '--port', '0', '--store', server]],
];

it.each(commands)('without a key for the server, %s is refused (exit 2): %j', async (option, args) => {
  const r = await runCli(envWith(), args);
  expect(r.err).toContain(`${option} ${server}: no API key for that server: give it as http://KEY@127.0.0.1:9`);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
});

it.each(commands.slice(0, 3))('with its key in the URL or $THREADBASE_API_KEY, %s is taken: %j', async (_option, args) => {
  const inUrl = await runCli(
    envWith(),
    args.map((a) => (a === server ? 'http://tb_key@127.0.0.1:9' : a)),
  );
  expect(inUrl.err).not.toMatch(/no API key/);
  expect(inUrl.code).toBe(1);
  const inEnv = await runCli(envWith({ THREADBASE_API_KEY: 'tb_key' }), args);
  expect(inEnv.err).not.toMatch(/no API key/);
  expect(inEnv.code).toBe(1);
});
