/**
 * Zed in the local index: each thread row is a unit versioned by its small columns and the size of
 * its data, so a sync after Zed saved one thread decodes that thread alone (a full Zed listing
 * decompresses and parses every thread), and the freshness check decodes none.
 */
import { cp } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';

let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let zedDb: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-zed-units-');
  env = home.env;
  await cp(resolve('test/fixtures/zed/home/.local/share/zed'), join(home.dir, '.local', 'share', 'zed'), { recursive: true });
  zedDb = join(home.dir, '.local', 'share', 'zed', 'threads', 'threads.db');
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  parentId: s.parentId ?? null,
  messageCount: s.messageCount,
  project: s.project,
  createdAt: s.createdAt,
  // Zed's running total, in the index as in Zed's own listing (an empty thread: none / zeros)
  usage: s.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
});

/** Counts the Zed driver's decoded threads and full listings. */
function counting() {
  let decode: { mock: { calls: unknown[] } } | undefined;
  let list: { mock: { calls: unknown[] } } | undefined;
  return {
    spy: (driver: SessionDriver) => {
      decode = vi.spyOn(driver as unknown as { decode: () => unknown }, 'decode');
      list = vi.spyOn(driver, 'listSessions');
    },
    counts: () => ({ decoded: decode?.mock.calls.length ?? 0, listed: list?.mock.calls.length ?? 0 }),
  };
}

async function run() {
  const { spy, counts } = counting();
  const { report, listed } = await syncStore(env, 'zed', spy);
  return { report, indexed: listed.map(fields), ...counts() };
}

/** The freshness check of Zed alone. */
async function check() {
  const { spy, counts } = counting();
  const sources = new Sources(env);
  spy(sources.driver('zed'));
  const store = openSqliteStore(indexPath(env));
  try {
    const [fresh] = await new IndexSync(store).freshness(sources, ['zed']);
    return { fresh, ...counts() };
  } finally {
    await store.close();
    await sources.close();
  }
}

describe('Zed threads as units of the index', () => {
  it('indexes every thread with the listing the driver gives, damaged row included', async () => {
    const first = await run();
    const sources = new Sources(env);
    const fromDriver = (await sources.driver('zed').listSessions()).map(fields).sort(byId);
    await sources.close();
    expect(first.report?.reread).toBe(fromDriver.length);
    expect(first.indexed).toEqual(fromDriver);
    expect(first.listed).toBe(0);
    expect(first.decoded).toBe(fromDriver.length);
    // stats count the tokens Zed counts: its running total of every thread
    const zed = new Sources(env);
    const store = openSqliteStore(indexPath(env));
    try {
      const fromZed = await zed.driver('zed').usage();
      const indexed = await store.usage({ source: 'zed' });
      // every agent message is a response, in both
      expect(indexed).toEqual(fromZed);
      expect(indexed.input).toBeGreaterThan(0);
    } finally {
      await store.close();
      await zed.close();
    }
  });

  it('after Zed saves one thread, a sync decodes that thread alone and the freshness check none', async () => {
    const db = new Database(zedDb);
    db.prepare(`UPDATE threads SET summary = 'Renamed in Zed', updated_at = '2026-03-03T00:00:00+00:00' WHERE id = ?`).run(
      '9e1f-zed-subagent',
    );
    db.close();
    const checked = await check();
    expect(checked.fresh).toMatchObject({ format: 'zed', fresh: false });
    expect(checked.fresh?.listed).toBeUndefined();
    expect(checked.decoded + checked.listed).toBe(0);

    const again = await run();
    expect(again.report).toMatchObject({ reread: 1, removed: 0 });
    expect(again.decoded).toBe(1);
    expect(again.listed).toBe(0);
    expect(again.indexed?.find((s) => s.id === '9e1f-zed-subagent')?.title).toBe('Renamed in Zed');
  });

  it('a thread deleted in Zed leaves the index', async () => {
    const db = new Database(zedDb);
    db.prepare('DELETE FROM threads WHERE id = ?').run('legacy-thread-v020');
    db.close();
    const after = await run();
    expect(after.report).toMatchObject({ removed: 1, reread: 0 });
    expect(after.indexed?.map((s) => s.id)).not.toContain('legacy-thread-v020');
    expect(after.decoded).toBe(0);
  });
});
