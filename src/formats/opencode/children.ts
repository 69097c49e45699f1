/**
 * OpenCode's sub-agent sessions: a child session row whose `parentID` is the session that ran it, and
 * the parent's `task` tool part naming the child in `state.metadata.sessionId` (as OpenCode's task tool
 * records it), which is how a call finds its sub-agent and a sub-agent its call.
 */
import type Database from 'better-sqlite3';
import { ThreadbaseError } from '../../model/errors.js';
import { jsonValueOf } from '../shared/jsonl.js';
import { openDatabase } from '../shared/sqlite.js';
import { isJson, type Json, obj, str } from './records.js';

/** The call's id as threadbase reads it: the one threadbase kept where it wrote another (encode.ts). */
function callIdOf(part: Json): string | undefined {
  return str(obj(part.threadbase)?.callID) ?? str(part.callID);
}

/**
 * Names `childId` in the metadata of the parent's tool part for `callId`, in one transaction; returns
 * whether the part was there. Other metadata the part has stays.
 */
export function linkCallToChild(file: string, parentId: string, callId: string, childId: string): boolean {
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, { fileMustExist: true, timeout: 5000 });
    const conn = db;
    return conn
      .transaction(() => {
        const rows = conn
          .prepare('SELECT id, data FROM part WHERE session_id = ? AND data LIKE ?')
          .all(parentId, `%${callId}%`) as {
          id: string;
          data: string;
        }[];
        for (const r of rows) {
          const part = jsonValueOf(r.data);
          if (!isJson(part) || part.type !== 'tool' || callIdOf(part) !== callId) continue;
          const state = obj(part.state) ?? {};
          const linked = { ...part, state: { ...state, metadata: { ...(obj(state.metadata) ?? {}), sessionId: childId } } };
          conn.prepare('UPDATE part SET data = ? WHERE id = ?').run(JSON.stringify(linked), r.id);
          return true;
        }
        return false;
      })
      .immediate();
  } catch (err) {
    if (err instanceof ThreadbaseError) throw err;
    throw new ThreadbaseError('write', `cannot link the sub-agent session ${childId}: ${(err as Error).message}`, { file });
  } finally {
    db?.close();
  }
}
