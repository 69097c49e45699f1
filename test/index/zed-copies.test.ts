/**
 * Two different Zed threads are no copies of each other. Zed keeps no time per message (every entry
 * has its thread's updated_at) and numbers the agent messages by their place (m1, m3, ...), so two
 * threads saved in the same millisecond had entries with the same id and time: the index took one
 * thread's entries for copies of the other's, search hid one thread's hits and `stats` counted one
 * thread's responses once for both.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { syncStore, tempIndexHome } from '../helpers/index-units.js';

const UPDATED = '2026-03-04T09:30:00.123Z';

/** a 0.3.0 thread: one question, the answer "ok", then `answer` (agent messages m1 and m2), `input` tokens per turn */
const thread = (userId: string, question: string, answer: string, input: number) => ({
  version: '0.3.0',
  title: question,
  updated_at: UPDATED,
  model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  messages: [
    { User: { id: userId, content: [{ Text: question }] } },
    { Agent: { content: [{ Text: 'ok' }], tool_results: {} } },
    { Agent: { content: [{ Text: answer }], tool_results: {} } },
  ],
  request_token_usage: { [userId]: { input_tokens: input, output_tokens: 3 } },
});

let home: Awaited<ReturnType<typeof tempIndexHome>>;

beforeAll(async () => {
  home = await tempIndexHome('tb-zed-copies-');
  const dir = join(home.dir, '.local', 'share', 'zed', 'threads');
  await mkdir(dir, { recursive: true });
  const db = new Database(join(dir, 'threads.db'));
  db.exec(`CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL,
    data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)`);
  const put = db.prepare(
    `INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, created_at) VALUES (?, ?, ?, 'json', ?, ?, ?)`,
  );
  // the same updated_at (Zed's row form), created apart
  put.run(
    'zed-thread-otters',
    'Otters',
    '2026-03-04T09:30:00.123+00:00',
    JSON.stringify(thread('user-otters', 'where are the otters', 'the otters nap by the river', 100)),
    '/home/u/otters',
    '2026-03-04T09:00:00+00:00',
  );
  put.run(
    'zed-thread-badgers',
    'Badgers',
    '2026-03-04T09:30:00.123+00:00',
    JSON.stringify(thread('user-badgers', 'where are the badgers', 'the badgers dig under the hill', 40)),
    '/home/u/badgers',
    '2026-03-04T08:00:00+00:00',
  );
  db.close();
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
      expect(new Set(otters?.entries.map((e) => e.timestamp))).toEqual(new Set([UPDATED]));
    } finally {
      await store.close();
    }
  });
});
