/**
 * A THREADBASE_HOME folder that cannot be written while its index.db can (a folder made read-only,
 * a read-only mount holding a writable file): SQLite makes its -wal and -shm files beside the index,
 * so `search`, `stats`, `sync` and `push` are refused naming the folder, as for any unusable home;
 * they failed with SQLite's bare "unable to open database file". `sessions` and `show` read the agents'
 * files, and threadbase's own sessions from the index (a copy in memory: src/stores/sqlite/read-only.ts).
 * As root the folder is made immutable (chattr +i) where chmod does not stop root (makeUnwritable); the
 * test is skipped where neither can be done.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';
import { helloSession } from '../helpers/sessions.js';
import { makeUnwritable } from '../helpers/unwritable-folder.js';

let root: string;
let env: DriverEnv;
let readOnly: string;
let undo: (() => void) | undefined;

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-read-only-home-'));
  await runCliOk(env, ['sync']);
  readOnly = mkdtempSync(join(tmpdir(), 'tb-read-only-tbhome-'));
  mkdirSync(readOnly, { recursive: true });
  copyFileSync(join(root, '.tb', 'index.db'), join(readOnly, 'index.db'));
  // threadbase's own session beside the agents' in that index
  const own = openSqliteStore(join(readOnly, 'index.db'));
  await own.writeSession(helloSession('own-read-only-session'), { keepId: true });
  await own.close();
  undo = makeUnwritable(readOnly);
});

afterAll(() => {
  undo?.();
  if (readOnly) rmSync(readOnly, { recursive: true, force: true });
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('a THREADBASE_HOME folder that cannot be written', () => {
  it.each([
    [['search', 'cats']],
    [['search', 'cats', '--no-sync']],
    [['stats']],
    [['sync']],
    [['push', '--to', 'http://127.0.0.1:9', '--key', 'tb_x']],
  ])('%j is refused naming the folder', async (args) => {
    if (!undo) return; // neither chmod nor chattr stops this process from writing there
    const r = await runCli({ home: env.home, env: { ...env.env, THREADBASE_HOME: readOnly } }, args);
    expect(r.err).toContain(`threadbase: the index ${join(readOnly, 'index.db')} cannot be made or opened (`);
    expect(r.err).toContain(`THREADBASE_HOME=${readOnly} must be a directory threadbase can write in`);
    expect(r.code).toBe(1);
  });

  it('sessions and show still read the agents’ files', async () => {
    if (!undo) return;
    const e = { home: env.home, env: { ...env.env, THREADBASE_HOME: readOnly } };
    const listed = await runCli(e, ['sessions']);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toContain('Counting cats in pictures');
    // threadbase's own sessions, in that index, are read from a copy in memory (SQLite cannot make
    // its -wal and -shm files there): listed, no warning
    expect(listed.out).toContain('own-read-only-session');
    expect(listed.err).not.toContain('warning');
    expect(await runCliOk(e, ['show', 'own-read-only-session'])).toContain('hello from own-read-only-session');
    const shown = await runCli(e, ['show', '11111111']);
    expect(shown.code, shown.err).toBe(0);
  });
});
