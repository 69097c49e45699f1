/**
 * `push` to a server that serves the very store it pushes from (`serve` on the local index, then
 * `push` from it) is refused before anything is written: it copied every session into the same
 * store under a second id. From another store the same server takes the push.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeIdentity } from '../../src/server/store-identity.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliProcess, startServeProcess } from '../helpers/cli-process.js';
import { helloSession } from '../helpers/sessions.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let home: string;
const servers: ChildProcess[] = [];

function envOf(tbHome: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, THREADBASE_HOME: tbHome, THREADBASE_API_KEY: '' };
}

const run = runCliProcess;

async function serve(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { url, proc } = await startServeProcess(['--port', '0', ...args], env);
  servers.push(proc);
  return url;
}

/** A THREADBASE_HOME whose index holds sessions like the given ones, and their ids there (the store names them). */
async function indexHome(name: string, ids: string[]): Promise<{ tbHome: string; stored: string[] }> {
  const tbHome = join(home, name);
  await mkdir(tbHome, { recursive: true });
  const store = openSqliteStore(join(tbHome, 'index.db'));
  const stored: string[] = [];
  for (const id of ids) stored.push((await store.writeSession(helloSession(id))).id);
  await store.close();
  return { tbHome, stored: stored.sort() };
}

async function sessionIds(dbPath: string): Promise<string[]> {
  const store = openSqliteStore(dbPath);
  try {
    return (await store.listSessions()).map((s) => s.id).sort();
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-push-itself-'));
});

afterAll(async () => {
  for (const s of servers) s.kill('SIGTERM');
  await rm(home, { recursive: true, force: true });
});

describe('push to the server of the same store', () => {
  it('is refused (exit 1, one line) when the server serves the local index it pushes from', async () => {
    const { tbHome, stored } = await indexHome('served', ['own-1', 'own-2']);
    const env = envOf(tbHome);
    const token = await run(['token', 'create', '--project', 'p', '--json'], env);
    expect(token.code, token.stderr).toBe(0);
    const { key } = JSON.parse(token.stdout) as { key: string };
    const url = await serve([], env);

    const pushed = await run(['push', '--to', url, '--key', key], env);
    expect(pushed.stderr).toMatch(/serves the very store this push reads from: nothing pushed/);
    expect(pushed.stderr.trim().split('\n')).toHaveLength(1);
    expect(pushed.code).toBe(1);
    expect(pushed.stdout).toBe('');
    expect(await sessionIds(join(tbHome, 'index.db'))).toEqual(stored);
    expect(existsSync(join(tbHome, 'push-state.json'))).toBe(false);
    // the same file named with --from
    const named = await run(['push', '--to', url, '--key', key, '--from', `sqlite:${join(tbHome, 'index.db')}`], env);
    expect(named.code).toBe(1);
    expect(await sessionIds(join(tbHome, 'index.db'))).toEqual(stored);

    // another index pushes to the same server as before
    const other = (await indexHome('other', ['theirs-1'])).tbHome;
    const fromOther = await run(['push', '--to', url, '--key', key, '--json'], envOf(other));
    expect(fromOther.code, fromOther.stderr).toBe(0);
    expect(JSON.parse(fromOther.stdout)).toMatchObject({ created: 1, entriesSent: 1 });
    const listed = (await (
      await fetch(`${url}/api/v1/threadbase/sessions`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { data: { sessions: { id: string }[] } };
    expect(listed.data.sessions).toHaveLength(1);
  }, 60_000);

  it('gives a SQLite file the same identity each time it is opened, and a copy of it another', async () => {
    const { tbHome } = await indexHome('copied', ['c-1']);
    const path = join(tbHome, 'index.db');
    const identityOf = async (p: string) => {
      const store = openSqliteStore(p);
      try {
        return await storeIdentity(store);
      } finally {
        await store.close();
      }
    };
    const first = await identityOf(path);
    expect(first).toMatch(/^sqlite-[0-9a-f]{32}$/);
    expect(await identityOf(path)).toBe(first);
    await copyFile(path, join(tbHome, 'copy.db'));
    const copy = await identityOf(join(tbHome, 'copy.db'));
    expect(copy).toBeDefined();
    expect(copy).not.toBe(first);
  });

  describe('PostgreSQL', () => {
    let db: TestSchema;
    let pgOwn: string;
    beforeAll(async () => {
      db = await freshSchema('tb_itself');
      pgOwn = (await db.store.writeSession(helloSession('pg-own'))).id;
    }, 60_000);
    afterAll(async () => {
      await db?.drop();
    });

    it('is refused when the server serves the store given as --from, and taken from another', async () => {
      const env = envOf(join(home, 'pg-home'));
      const token = await run(['token', 'create', '--project', 'q', '--db', db.url, '--json'], env);
      expect(token.code, token.stderr).toBe(0);
      const { key } = JSON.parse(token.stdout) as { key: string };
      const url = await serve(['--db', db.url], env);

      const pushed = await run(['push', '--to', url, '--key', key, '--from', db.url], env);
      expect(pushed.stderr).toMatch(/serves the very store this push reads from/);
      expect(pushed.code).toBe(1);
      const rows = await db.store.pool.query<{ id: string }>('SELECT id FROM tb_sessions ORDER BY id');
      expect(rows.rows.map((r) => r.id)).toEqual([pgOwn]);

      const other = (await indexHome('pg-other', ['local-1'])).tbHome;
      const fromOther = await run(['push', '--to', url, '--key', key, '--json'], envOf(other));
      expect(fromOther.code, fromOther.stderr).toBe(0);
      expect(JSON.parse(fromOther.stdout)).toMatchObject({ created: 1 });
    }, 60_000);
  });
});
