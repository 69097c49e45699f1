/**
 * Stores whose sessions are database rows (OpenCode, Zed) give the index a listing stamp: a few
 * stats of the database and its WAL file. While the stamp has not moved since the store's last complete sync, a warm sync and the reading commands' freshness check
 * do not list the store at all; any change moves the stamp and the store is listed as before.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { type DriverEnv, isIncrementalSource, type SessionDriver } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

const STAMPED = ['opencode', 'zed'] as const;
let dir: string;
let env: DriverEnv;
let zedDb: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-stamp-'));
  const ocDir = join(dir, '.local', 'share', 'opencode');
  await mkdir(ocDir, { recursive: true });
  await cp(resolve('test/fixtures/opencode/opencode.db'), join(ocDir, 'opencode.db'));
  // the JSON storage of earlier OpenCode versions beside the database: its files are in the stamp too
  await cp(resolve('test/fixtures/opencode/storage'), join(ocDir, 'storage'), { recursive: true });
  await cp(resolve('test/fixtures/zed/home/.local/share/zed'), join(dir, '.local', 'share', 'zed'), { recursive: true });
  zedDb = join(dir, '.local', 'share', 'zed', 'threads', 'threads.db');
  // in WAL mode, as OpenCode and Zed keep them: opening one, even read-only, touches its WAL file
  for (const file of [join(ocDir, 'opencode.db'), zedDb]) {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.close();
  }
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  await mkdir(join(dir, '.threadbase'), { recursive: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Counts the driver's listings: full ones, and (Zed) listings of its units. */
function listings(driver: SessionDriver): () => number {
  const full = vi.spyOn(driver, 'listSessions');
  const units = isIncrementalSource(driver) ? vi.spyOn(driver, 'listUnits') : undefined;
  return () => full.mock.calls.length + (units?.mock.calls.length ?? 0);
}

/** One sync of the stamped stores (in this thread), with each driver's listSessions counted. */
async function sync(before?: (sources: Sources) => void) {
  const sources = new Sources(env);
  const lists = Object.fromEntries(STAMPED.map((f) => [f, listings(sources.driver(f))])) as Record<
    (typeof STAMPED)[number],
    () => number
  >;
  before?.(sources);
  const store = openSqliteStore(indexPath(env));
  try {
    const report = await new IndexSync(store).sync(sources, { formats: [...STAMPED], workers: 0 });
    const listed = Object.fromEntries(STAMPED.map((f) => [f, lists[f]()]));
    const sessions = await store.listSessions({});
    return { report, listed, sessions };
  } finally {
    await store.close();
    await sources.close();
  }
}

async function freshness() {
  const sources = new Sources(env);
  const lists = STAMPED.map((f) => listings(sources.driver(f)));
  const store = openSqliteStore(indexPath(env));
  try {
    const checked = await new IndexSync(store).freshness(sources, [...STAMPED]);
    return { checked, listCalls: lists.reduce((n, l) => n + l(), 0) };
  } finally {
    await store.close();
    await sources.close();
  }
}

describe('listing stamps of stores without a cheap listing', () => {
  it('a first sync lists each store; the next, with nothing changed, lists none and finds every unit unchanged', async () => {
    const first = await sync();
    expect(first.listed).toEqual({ opencode: 1, zed: 1 });
    expect(first.report.failed).toBe(0);
    expect(first.report.reread).toBeGreaterThanOrEqual(7);
    // the index holds what the drivers list, legacy OpenCode storage and the damaged Zed row included
    const sources = new Sources(env);
    const fromDrivers = (await Promise.all(STAMPED.map((f) => sources.driver(f).listSessions()))).flat();
    await sources.close();
    expect(first.sessions.map((s) => s.id).sort()).toEqual(fromDrivers.map((s) => s.id).sort());
    expect(first.sessions.some((s) => s.source === 'opencode' && s.id.includes('Legacy'))).toBe(true);

    const second = await sync();
    expect(second.listed).toEqual({ opencode: 0, zed: 0 });
    expect(second.report).toMatchObject({ units: first.report.units, unchanged: first.report.units, reread: 0, removed: 0 });
    expect(second.sessions).toEqual(first.sessions);
  });

  it('the freshness check answers from the stamps, listing nothing', async () => {
    const { checked, listCalls } = await freshness();
    expect(checked.map((c) => [c.format, c.fresh, c.listed])).toEqual(STAMPED.map((f) => [f, true, undefined]));
    expect(listCalls).toBe(0);
  });

  it('a change moves its store’s stamp: that store alone is listed, and the change reaches the index', async () => {
    // OpenCode: a title set through the driver (a database write)
    const sources = new Sources(env);
    const [oc] = await sources.driver('opencode').listSessions();
    await sources.driver('opencode').setTitle?.(oc?.id as string, 'stamped and renamed');
    await sources.close();
    expect((await freshness()).checked.map((c) => c.fresh)).toEqual([false, true]);
    const afterOc = await sync();
    expect(afterOc.listed).toEqual({ opencode: 1, zed: 0 });
    expect(afterOc.report.reread).toBe(1);
    expect(afterOc.sessions.find((s) => s.id === oc?.id)?.title).toBe('stamped and renamed');

    // Zed: a thread's summary changed in place by Zed (an UPDATE of one row)
    const db = new Database(zedDb);
    db.prepare(
      `UPDATE threads SET summary = 'Fix the flaky test, again', updated_at = '2026-03-02T00:00:00+00:00' WHERE id = ?`,
    ).run('4b0c9d7e-zed-thread-current');
    db.close();
    const afterZed = await sync();
    expect(afterZed.listed).toEqual({ opencode: 0, zed: 1 });
    expect(afterZed.report.reread).toBe(1);
    expect(afterZed.sessions.find((s) => s.id === '4b0c9d7e-zed-thread-current')?.title).toBe('Fix the flaky test, again');
  });

  it('a unit that failed leaves the stamp unrecorded, so the next sync lists the store and tries it again', async () => {
    const sources = new Sources(env);
    const [oc] = await sources.driver('opencode').listSessions();
    await sources.driver('opencode').setTitle?.(oc?.id as string, 'renamed while reads fail');
    await sources.close();
    const failing = await sync((s) => {
      vi.spyOn(s.driver('opencode') as SessionDriver, 'getSession').mockRejectedValue(new Error('database is locked'));
    });
    expect(failing.report.failed).toBe(1);
    expect(failing.sessions.find((s) => s.id === oc?.id)?.title).not.toBe('renamed while reads fail');
    expect((await freshness()).checked[0]?.fresh).toBe(false);
    const retried = await sync();
    expect(retried.listed.opencode).toBe(1);
    expect(retried.report).toMatchObject({ failed: 0, reread: 1 });
    expect(retried.sessions.find((s) => s.id === oc?.id)?.title).toBe('renamed while reads fail');
    expect((await sync()).listed.opencode).toBe(0);
  });

  it('units missing from the index (its stamp no longer covers what it holds) bring the listing back', async () => {
    const store = openSqliteStore(indexPath(env));
    const zedUnits = (store.db.prepare(`SELECT count(*) n FROM units WHERE format = 'zed'`).get() as { n: number }).n;
    store.db.prepare(`DELETE FROM units WHERE format = 'zed'`).run();
    await store.close();
    const again = await sync();
    expect(again.listed).toEqual({ opencode: 0, zed: 1 });
    expect(again.report.reread).toBe(zedUnits);
  });
});
