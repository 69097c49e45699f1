/**
 * `push --to` with a user:password in the URL (a proxy's, or a copied `http://KEY@host`) pushes to the
 * server's root (address.ts serverRoot) without them: fetch refuses a URL that holds credentials, so
 * every such push failed as "cannot reach" the server; and the push state is not keyed by them.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { pushSessions } from '../../src/server/push.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openStore } from '../../src/stores/open.js';
import { runCli } from '../helpers/cli.js';
import { oneMessageSession } from '../helpers/sessions.js';

let home: string;
let env: DriverEnv;
let server: RunningServer;
let served: MemoryStore;
let key: string;
let from: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-push-credentials-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  const tokens = new MemoryTokenStore();
  key = (await tokens.createToken('alpha')).key;
  served = new MemoryStore();
  server = await startServer({ store: served, tokens, port: 0, log: () => undefined });
  from = join(home, 'from.db');
  const local = await openStore(`sqlite:${from}`, { env });
  await local.writeSession(oneMessageSession('pushed-once', 'pushed once'), { keepId: true });
  await local.close?.();
});

afterAll(async () => {
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

it('push --to http://user:secret@host/api/v1 pushes to the server, and keeps no credentials', async () => {
  const to = server.url.replace('://', '://user:secret@');
  const r = await runCli(env, ['push', '--to', `${to}/api/v1`, '--key', key, '--from', `sqlite:${from}`, '--json']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out)).toMatchObject({ created: 1, failed: [] });
  expect((await served.listSessions()).map((s) => s.title)).toEqual(['pushed once']);
  const state = await readFile(join(home, '.tb', 'push-state.json'), 'utf8');
  expect(Object.keys(JSON.parse(state) as object)).toEqual([expect.stringMatching(new RegExp(`^${server.url} key:`))]);
  expect(state).not.toContain('secret');
});

it('push --to http://KEY@host without --key pushes with the key in the URL, as --from and ui take theirs', async () => {
  const r = await runCli({ ...env, env: { ...env.env, THREADBASE_API_KEY: 'tb_not_this_one' } }, [
    'push',
    '--to',
    server.url.replace('://', `://${key}@`),
    '--from',
    `sqlite:${from}`,
    '--json',
  ]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  // pushed before (the test above) with that key: the state is the same one
  expect(JSON.parse(r.out)).toMatchObject({ unchanged: 1, failed: [] });
});

it.each([['127.0.0.1:8029'], ['localhost:8029'], ['ftp://example.com']])(
  'pushSessions to %j (no http(s) URL) is refused as such, before the state is read',
  async (to) => {
    const local = new MemoryStore();
    await local.writeSession(oneMessageSession('not-pushed'), { keepId: true });
    const push = pushSessions({ from: local, to, key, statePath: join(home, 'no-such-dir', 'state.json') });
    await expect(push).rejects.toThrow("not a server's URL: expected http(s)://host[:port]");
  },
);
