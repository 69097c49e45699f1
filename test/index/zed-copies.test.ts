import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { syncStore, tempIndexHome } from '../helpers/index-units.js';
import { writeSameMillisecondZedThreads, ZED_SAVED_AT } from '../helpers/zed-threads.js';

let home: Awaited<ReturnType<typeof tempIndexHome>>;

beforeAll(async () => {
  home = await tempIndexHome('tb-zed-copies-');
  await writeSameMillisecondZedThreads(home.dir, (id) => `/home/u/${id.replace('zed-thread-', '')}`);
  await syncStore(home.env, 'zed');
});
afterAll(() => home.remove());

describe('Zed threads saved at the same time', () => {
  it('search finds each thread’s own answers, and an answer both gave in both', async () => {
    const store = openSqliteStore(indexPath(home.env));
    try {
      const sessionsOf = async (q: string) => [...new Set((await store.search(q)).map((h) => h.sessionId))].sort();
      expect(await sessionsOf('otters nap')).toEqual(['zed-thread-otters']);
      expect(await sessionsOf('badgers dig')).toEqual(['zed-thread-badgers']);
      expect(await sessionsOf('ok')).toEqual(['zed-thread-badgers', 'zed-thread-otters']);
    } finally {
      await store.close();
    }
  });

  it('stats count both threads’ responses', async () => {
    const store = openSqliteStore(indexPath(home.env));
    try {
      const usage = await store.usage({ source: 'zed' });
      // two agent messages each (the turn's figure on its last), both threads'
      expect(usage).toMatchObject({ input: 140, output: 6, messages: 4 });
      // every entry keeps its thread's time, which `stats --by day` and --since/--until go by
      const otters = await store.getSession('zed-thread-otters');
      expect(new Set(otters?.entries.map((e) => e.timestamp))).toEqual(new Set([ZED_SAVED_AT]));
    } finally {
      await store.close();
    }
  });
});
