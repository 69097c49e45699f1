/**
 * An upgrade that reads more out of the same bytes (a driver's `readerVersion`, or the index's own
 * INDEX_READER_VERSION) makes the next sync read that store whole again, once: the entries indexed
 * before gain what the new reader finds. Until then the index does not answer for that store, and
 * `search` and `stats` sync it first even inside their 30 s window.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { openFreshIndex } from '../../src/stores/index-sync/fresh.js';
import { IndexSync, indexPath, lastSync, readerChanged } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { tempIndexHome } from '../helpers/index-units.js';

let env: DriverEnv;
let remove: () => Promise<void>;
let store: SqliteStore;

beforeEach(async () => {
  ({ env, remove } = await tempIndexHome('tb-reader-'));
  const sources = new Sources(env);
  await sources.driver('claude').writeSession?.(sampleSession());
  await sources.driver('pi').writeSession?.(sampleSession());
  await sources.close();
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  await remove();
});

const FORMATS = ['claude', 'pi'];
/** A Claude Code reader newer than the running one. */
const NEXT = (new Sources({ home: '/nonexistent', env: {} }).driver('claude').readerVersion ?? 0) + 1;

/** Sources whose Claude Code driver reads with another reader version than the running one. */
function sourcesWithClaudeReader(version: number): Sources {
  const sources = new Sources(env);
  Object.defineProperty(sources.driver('claude'), 'readerVersion', { value: version });
  return sources;
}

describe('reader versions', () => {
  it('a driver that reads more is read again whole by the next sync, once; the other stores are not', async () => {
    const first = await new IndexSync(store).sync(new Sources(env), { formats: FORMATS });
    expect(first).toEqual(expect.objectContaining({ units: 2, reread: 2 }));
    expect((await new IndexSync(store).sync(new Sources(env), { formats: FORMATS })).unchanged).toBe(2);

    const upgraded = sourcesWithClaudeReader(NEXT);
    expect(readerChanged(store, upgraded, 'claude')).toBe(true);
    expect(readerChanged(store, upgraded, 'pi')).toBe(false);
    // until that sync, the index does not answer for Claude Code's sessions (they may lack what it now reads)
    const fresh = await new IndexSync(store).freshness(upgraded, FORMATS);
    expect(Object.fromEntries(fresh.map((f) => [f.format, f.fresh]))).toEqual({ claude: false, pi: true });

    const again = await new IndexSync(store).sync(upgraded, { formats: FORMATS });
    expect(again).toEqual(expect.objectContaining({ units: 2, reread: 1, unchanged: 1 }));
    expect(readerChanged(store, upgraded, 'claude')).toBe(false);
    expect((await new IndexSync(store).sync(upgraded, { formats: FORMATS })).unchanged).toBe(2);
    // another reader (here the older one again) reads it again too
    expect((await new IndexSync(store).sync(new Sources(env), { formats: FORMATS })).reread).toBe(1);
  });

  it('search and stats sync a store read by another reader even inside their window', async () => {
    await new IndexSync(store).sync(new Sources(env), { formats: FORMATS });
    const before = { claude: lastSync(store, 'claude'), pi: lastSync(store, 'pi') };
    await store.close();
    // inside the window nothing is synced again…
    store = await openFreshIndex(env, new Sources(env), { formats: FORMATS });
    expect(lastSync(store, 'claude')).toBe(before.claude);
    await store.close();
    // …unless a reader changed
    store = await openFreshIndex(env, sourcesWithClaudeReader(NEXT), { formats: FORMATS });
    expect(lastSync(store, 'claude')).not.toBe(before.claude);
    expect(readerChanged(store, sourcesWithClaudeReader(NEXT), 'claude')).toBe(false);
  });

  it('an index from before reader versions is read again whole once', async () => {
    await new IndexSync(store).sync(new Sources(env), { formats: FORMATS });
    store.db.exec(`DELETE FROM index_meta WHERE key LIKE 'reader:%'`);
    expect(readerChanged(store, new Sources(env), 'pi')).toBe(true);
    expect((await new IndexSync(store).sync(new Sources(env), { formats: FORMATS })).reread).toBe(2);
    expect((await new IndexSync(store).sync(new Sources(env), { formats: FORMATS })).unchanged).toBe(2);
  });
});
