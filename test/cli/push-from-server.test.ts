/**
 * `push --from http://S --to http://S`: a server pushed into itself with the key it is read with (one
 * project) is refused before anything is sent, as pushing the local index into a server on it is; it
 * re-sent every session, reported as changed. The same server named another way (localhost,
 * `…/api/v1`) is told by the store identity its ping answers; with another project's key the push
 * copies that project's sessions into this one, and is taken.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import { startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { helloSession } from '../helpers/sessions.js';

let home: string;
const closers: (() => Promise<void>)[] = [];

const envWith = (vars: Record<string, string> = {}): DriverEnv => ({
  home,
  env: { HOME: home, THREADBASE_HOME: join(home, '.tb'), ...vars },
});

/** A server holding one pushed session in project p; its URL, and keys of p and of another project q. */
async function serverWithSession(kind: 'sqlite' | 'memory'): Promise<{ url: string; key: string; otherKey: string }> {
  const store: SessionDriver =
    kind === 'sqlite' ? openSqliteStore(join(await mkdtemp(join(home, 'srv-')), 'served.db')) : new MemoryStore();
  const tokens = new MemoryTokenStore();
  const { key } = await tokens.createToken('p');
  const { key: otherKey } = await tokens.createToken('q');
  const server = await startServer({ store, tokens, port: 0, log: () => undefined });
  closers.push(async () => {
    await server.close();
    await store.close?.();
  });
  const put = await fetch(`${server.url}/api/v1/threadbase/sessions/s-1`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session: helloSession('s-1'), entries: helloSession('s-1').entries }),
  });
  expect(put.ok).toBe(true);
  return { url: server.url, key, otherKey };
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-push-from-server-'));
});

afterAll(async () => {
  for (const close of closers) await close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('push --from a server --to the same server', () => {
  it.each(['sqlite', 'memory'] as const)('is refused with the same key (a %s store), nothing sent', async (kind) => {
    const { url, key } = await serverWithSession(kind);
    const r = await runCli(envWith({ THREADBASE_API_KEY: key }), ['push', '--from', url, '--to', url, '--json']);
    expect(r.err).toMatch(/serves the very store this push reads from: nothing pushed/);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
  });

  it('is refused when the server is named another way, told by the store it serves', async () => {
    const { url, key } = await serverWithSession('sqlite');
    const other = `${url.replace('127.0.0.1', 'localhost')}/api/v1`;
    const viaUser = url.replace('http://', `http://${key}@`);
    const r = await runCli(envWith(), ['push', '--from', viaUser, '--to', other, '--key', key]);
    expect(r.err).toMatch(/serves the very store this push reads from/);
    expect(r.code).toBe(1);
  });

  it("copies another project's sessions into this one (another key)", async () => {
    const { url, key, otherKey } = await serverWithSession('sqlite');
    const r = await runCli(envWith({ THREADBASE_API_KEY: key }), [
      'push',
      '--from',
      url,
      '--to',
      url,
      '--key',
      otherKey,
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ created: 1, entriesSent: 1 });
  });
});
