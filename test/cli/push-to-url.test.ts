/**
 * `push --to` is a server's http(s) URL: a value that is none (a host and port without a scheme, as
 * `serve` prints nothing like, another scheme) is a usage error (exit 2) before any store is read; it
 * was tried as a server, "cannot reach localhost:8029: ERR_INVALID_URL" (exit 1).
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
  home = await mkdtemp(join(tmpdir(), 'tb-push-to-url-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

it.each([['localhost:8029'], ['127.0.0.1'], ['ftp://example.com'], ['http://']])(
  'push --to %s is refused as a usage error, nothing read or written',
  async (to) => {
    const r = await runCli(env, ['push', '--to', to, '--key', 'tb_x']);
    expect(r.err).toMatch(/option '--to <url>' argument .* is invalid\. Expected a server's URL/);
    expect(r.code).toBe(2);
    expect(existsSync(join(home, '.tb'))).toBe(false);
  },
);

it('push --to an http(s) URL is taken', async () => {
  // asked before anything is pushed (its key checked), also with no session to push: a server's failure (exit 1), no usage error
  const r = await runCli(env, ['push', '--to', 'https://127.0.0.1:9/api/v1', '--key', 'tb_x', '--source', 'pi']);
  expect(r.err).toMatch(/^threadbase: cannot reach https:\/\/127\.0\.0\.1:9: /);
  expect(r.code).toBe(1);
});
