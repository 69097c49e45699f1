/**
 * A sub-agent session carried into Gemini CLI 0.61 as Gemini CLI keeps a sub-agent's chat (see
 * subagents.ts): `chats/<main session id>/<agent id>.jsonl`, metadata `kind: "subagent"`, and the
 * parent chat's call that ran it carrying `agentId` (ToolCallRecord.agentId), which the reader links
 * back (for a sub-agent's own sub-agent, the parent is the sub-agent chat beside it). The parent is a
 * chat this driver wrote whole: its call is marked by rewriting it atomically.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Session } from '../../model/types.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { isObject, type JsonObject } from './content.js';
import { linkSubAgent } from './subagents.js';

/**
 * The folder of a sub-agent chat run from the chat `parentFile` (session `parentId`): the main
 * session's, `chats/<main id>/`, also for a sub-agent's own sub-agent, whose parent chat is already in
 * it (Gemini CLI's LocalAgentExecutor hands every sub-agent the main session's id as parentSessionId,
 * and deleting the main session removes that folder whole).
 */
export function subagentFolderOf(parentFile: string, parentId: string): string {
  const dir = dirname(parentFile);
  return basename(dir) === 'chats' ? join(dir, parentId) : dir;
}

/**
 * Marks the call `callId` in the chat `chatFile` with the sub-agent's id, rewriting the file whole
 * and atomically; false (the file untouched) when the chat holds no such call.
 */
export async function linkSpawnCall(chatFile: string, callId: string, agentId: string): Promise<boolean> {
  const lines = (await fs.readFile(chatFile, 'utf8')).split('\n');
  const parsed = lines.map((line): JsonObject | undefined => {
    if (!line.includes(callId)) return undefined;
    try {
      const v: unknown = JSON.parse(line);
      return isObject(v) ? v : undefined;
    } catch {
      return undefined;
    }
  });
  const records = parsed.filter((r): r is JsonObject => r !== undefined);
  if (!linkSubAgent(records, callId, agentId)) return false;
  const out = lines.map((line, i) => {
    const r = parsed[i];
    return r === undefined ? line : JSON.stringify(r);
  });
  await writeFileAtomic(chatFile, out.join('\n'));
  return true;
}

export interface SubagentChat {
  agentId: string;
  file: string;
  warnings: string[];
}

/** Writes `child` as a new sub-agent chat of the chat `parentFile` (session `parentId`); its call is not linked here. */
export async function writeSubagentChat(
  child: Session,
  parent: { id: string; file: string; projectHash?: string; directories: string[] },
): Promise<SubagentChat> {
  const agentId = randomUUID();
  const { encodeChatRecords, lastRecordTime } = await import('./encode.js');
  const { records, warnings } = encodeChatRecords(child);
  const now = new Date().toISOString();
  const meta: JsonObject = {
    sessionId: agentId,
    ...(parent.projectHash !== undefined ? { projectHash: parent.projectHash } : {}),
    startTime: child.createdAt || child.entries[0]?.timestamp || now,
    lastUpdated: lastRecordTime(records) ?? now,
    kind: 'subagent',
    ...(child.title ? { summary: child.title } : {}),
    // as Gemini CLI records a sub-agent's: the workspace's directories
    directories: parent.directories,
    threadbase: { writtenBy: WRITTEN_BY },
  };
  const file = join(subagentFolderOf(parent.file, parent.id), `${agentId}.jsonl`);
  await writeFileAtomic(file, toJsonl([meta, ...records]), { exclusive: true });
  return { agentId, file, warnings };
}
