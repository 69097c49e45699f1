/**
 * `push`'s options as one rule: `--no-sync` (the local index pushed as it is) beside `--from` or
 * `--source`, which push no index, is refused (it was passed over, unsaid); and a server's URL is one
 * by one rule (isServerUrl) for `push --to`, the store options (`--from`: storeKindOf 'remote') and
 * pushSessions: `HTTP://host` passed `--to` and pushSessions' check, and not `--from`'s.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStoreOption, serverUrlOption } from '../../src/cli/options.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pushSessions } from '../../src/server/push.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { storeKindOf } from '../../src/stores/open.js';
import { runCli } from '../helpers/cli.js';

let home: string;
const envOf = (): DriverEnv => ({ home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } });

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-push-rules-'));
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('push --no-sync', () => {
  it.each([
    [['--from', 'memory:'], /--no-sync is for the local index.*--from memory: is pushed as they are: leave out --no-sync/],
    [['--source', 'pi'], /--no-sync is for the local index.*--source pi reads its files as they are: leave out --no-sync/],
  ])('beside %j is refused (exit 2) before anything is read or sent', async (args, message) => {
    const r = await runCli(envOf(), ['push', '--to', 'http://127.0.0.1:1', '--key', 'k', '--no-sync', ...args]);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });
});

describe("a server's URL", () => {
  // 127.0.0.1:1: a port nothing listens on, so a URL taken fails only to connect
  const urls: [string, boolean][] = [
    ['http://127.0.0.1:1', true],
    ['https://KEY@127.0.0.1:1/api/v1', true],
    ['HTTP://127.0.0.1:1', false],
    ['Https://127.0.0.1:1', false],
    ['http:127.0.0.1:1', false],
    [' http://127.0.0.1:1', false],
    ['ftp://127.0.0.1:1', false],
    ['127.0.0.1:1', false],
  ];

  it.each(urls)('%j is one (%s) alike for push --to, --from and pushSessions', async (url, isOne) => {
    expect(storeKindOf(url) === 'remote').toBe(isOne);
    if (isOne) expect(() => checkStoreOption('--from', url)).not.toThrow();
    else expect(() => checkStoreOption('--from', url)).toThrow(/not a store URL/);
    if (isOne) expect(serverUrlOption(url)).toBe(url);
    else expect(() => serverUrlOption(url)).toThrow(/Expected a server's URL.*in lower case/);
    const pushed = pushSessions({ from: new MemoryStore(), to: url, key: 'k', statePath: join(home, 'state.json') });
    await expect(pushed).rejects.toThrow(isOne ? /cannot reach https?:\/\/127\.0\.0\.1:1:/ : /not a server's URL/);
  });

  it('HTTP://host as --to is refused by the CLI (exit 2), naming the rule', async () => {
    const r = await runCli(envOf(), ['push', '--to', 'HTTP://127.0.0.1:1', '--key', 'k', '--from', 'memory:']);
    expect(r.err).toMatch(
      /Expected a server's URL, e\.g\. http:\/\/127\.0\.0\.1:8029 \(http:\/\/ or https:\/\/, in lower case\)/,
    );
    expect(r.code).toBe(2);
  });
});
