/**
 * Two Zed threads saved in the same millisecond (Zed keeps no time per message, so their entries share
 * one time), created an hour apart: "Otters" (100 input tokens a turn) and "Badgers" (40), each one
 * question answered "ok" and then its own answer, written into Zed's threads.db under `home`.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const ZED_SAVED_AT = '2026-03-04T09:30:00.123Z';

/** a 0.3.0 thread: one question, the answers "ok" and `answer` (agent messages m1 and m2), `input` tokens */
const zedThread = (userId: string, question: string, answer: string, input: number) => ({
  version: '0.3.0',
  title: question,
  updated_at: ZED_SAVED_AT,
  model: { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  messages: [
    { User: { id: userId, content: [{ Text: question }] } },
    { Agent: { content: [{ Text: 'ok' }], tool_results: {} } },
    { Agent: { content: [{ Text: answer }], tool_results: {} } },
  ],
  request_token_usage: { [userId]: { input_tokens: input, output_tokens: 3 } },
});

/** Writes the two threads into `home`'s Zed database, each with its folder (`folderOf` its id). */
export async function writeSameMillisecondZedThreads(home: string, folderOf: (id: string) => string): Promise<void> {
  const dir = join(home, '.local', 'share', 'zed', 'threads');
  await mkdir(dir, { recursive: true });
  const db = new Database(join(dir, 'threads.db'));
  try {
    db.exec(`CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL,
      data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT)`);
    const put = db.prepare(
      `INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, created_at) VALUES (?, ?, ?, 'json', ?, ?, ?)`,
    );
    // the same updated_at (Zed's row form), created apart
    const thread = (id: string, summary: string, data: object, createdAt: string) =>
      put.run(id, summary, '2026-03-04T09:30:00.123+00:00', JSON.stringify(data), folderOf(id), createdAt);
    thread(
      'zed-thread-otters',
      'Otters',
      zedThread('user-otters', 'where are the otters', 'the otters nap by the river', 100),
      '2026-03-04T09:00:00+00:00',
    );
    thread(
      'zed-thread-badgers',
      'Badgers',
      zedThread('user-badgers', 'where are the badgers', 'the badgers dig under the hill', 40),
      '2026-03-04T08:00:00+00:00',
    );
  } finally {
    db.close();
  }
}
