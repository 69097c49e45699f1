/**
 * codex 0.171's thread history (thread_history_<n>.sqlite in CODEX_HOME): the paginated-history projection
 * the agents tests compare with threadbase's.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { HistoryProjection } from '../../src/formats/codex/history-projection.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { type CodexAgentHome, resumedByCodex } from './agents.js';
import { itemLine, type ResponsesItem, withoutItemIds } from './openai-responses-standin.js';

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

/**
 * Codex takes a rollout threadbase wrote as its own: threadbase's rows (`ours`) taken away, codex resumes the thread
 * sending `context` then the probe, and projects the rollout itself, row for row as `ours`. Codex's turns after
 * threadbase's rows (the probe's) are returned.
 */
export async function expectCodexResumesAsWritten(
  home: CodexAgentHome,
  threadId: string,
  ours: HistoryProjection,
  context: readonly ResponsesItem[],
): Promise<HistoryRow[]> {
  forgetThreadHistory(home.codexHome, threadId);
  const probe = 'and now?';
  const sent = await resumedByCodex(home, threadId, probe);
  expect(sent.map(itemLine).at(-1)).toBe(`user ${probe}`);
  expect(withoutItemIds(sent.slice(0, -1))).toEqual(withoutItemIds(context));
  const theirs = threadHistoryRows(home.codexHome, threadId);
  const before = (r: HistoryRow) => (r.rollout_ordinal as number) < ours.nextOrdinal;
  expect(theirs.turns.filter(before)).toEqual(ours.turns);
  expect(theirs.items.filter(before)).toEqual(ours.items);
  return theirs.turns.filter((r) => !before(r));
}
