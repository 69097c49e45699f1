/**
 * codex 0.171's thread history (thread_history_<n>.sqlite in CODEX_HOME): the paginated-history projection
 * the agents tests compare with threadbase's.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/formats/shared/sqlite.js';

/** codex's thread history database in `codexHome` (codex makes it on its first run). */
export function openThreadHistory(codexHome: string): ReturnType<typeof openDatabase> {
  const file = readdirSync(codexHome).find((f) => /^thread_history_\d+\.sqlite$/.test(f));
  if (!file) throw new Error(`no thread history database in ${codexHome}`);
  return openDatabase(join(codexHome, file));
}

/** Takes a thread's rows out of codex's thread history, so codex projects the rollout itself on its next resume. */
export function forgetThreadHistory(codexHome: string, threadId: string): void {
  const db = openThreadHistory(codexHome);
  try {
    for (const table of ['thread_items', 'thread_turns', 'thread_history_projection_state'])
      db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(threadId);
  } finally {
    db.close();
  }
}

export type HistoryRow = Record<string, unknown>;

/** A thread's rows in codex's thread history: its turns and items in rollout order, and where its projection stands. */
export function threadHistoryRows(
  codexHome: string,
  threadId: string,
): { turns: HistoryRow[]; items: HistoryRow[]; state: HistoryRow | undefined } {
  const db = openThreadHistory(codexHome);
  try {
    return {
      turns: db.prepare('SELECT * FROM thread_turns WHERE thread_id = ? ORDER BY rollout_ordinal').all(threadId) as HistoryRow[],
      items: db.prepare('SELECT * FROM thread_items WHERE thread_id = ? ORDER BY rollout_ordinal').all(threadId) as HistoryRow[],
      state: db
        .prepare('SELECT next_rollout_byte_offset, next_rollout_ordinal FROM thread_history_projection_state WHERE thread_id = ?')
        .get(threadId) as HistoryRow | undefined,
    };
  } finally {
    db.close();
  }
}
