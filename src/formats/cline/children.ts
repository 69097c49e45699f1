/**
 * A sub-agent session carried into Cline CLI 3.0.65 as Cline keeps a `spawn_agent` sub-agent: its
 * messages `<agentId>.messages.json` beside its root's (`agent: "subagent"`, `sessionId`
 * `<root>__<agentId>`, `origin.parentThreadId` the session that ran it), no manifest of its own.
 * Cline records no call id with it (the reader links the `spawn_agent` call of the session that ran
 * it whose `task` is its first prompt); a sub-agent another agent's call ran keeps that call's id in the doc's
 * `threadbase` field (Cline reads only the fields it knows).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToLeaf } from '../../model/tree.js';
import type { Session } from '../../model/types.js';
import { writeFileAtomic } from '../shared/atomic.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { encodeClineMessages } from './encode.js';

/** The Cline version a written sub-agent's origin names. */
const ORIGIN_VERSION = '3.0.65';

/** A sub-agent id as Cline makes one: `agent_`, milliseconds, `_`, six of [a-z0-9]; not taken in `dir`. */
export function newClineAgentId(dir: string, now = Date.now()): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  for (;;) {
    const tail = [...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('');
    const id = `agent_${now}_${tail}`;
    if (!existsSync(join(dir, `${id}.messages.json`))) return id;
  }
}

export interface SubagentTarget {
  /** the root session's folder */
  dir: string;
  /** the root session's id (the folder's name) */
  rootId: string;
  /** the session that ran it: the root, or a sub-agent of it */
  parentId: string;
  /** the call in the parent that ran it, kept where it is no `spawn_agent` whose task is the first prompt */
  keptCallId?: string;
}

/** Writes the sub-agent's messages file (new, atomically); returns its session id, path and warnings. */
export async function writeSubagentMessages(
  child: Session,
  to: SubagentTarget,
): Promise<{ id: string; path: string; warnings: string[] }> {
  const agentId = newClineAgentId(to.dir);
  const id = `${to.rootId}__${agentId}`;
  const { messages, warnings } = encodeClineMessages(child.entries.length ? pathToLeaf(child) : []);
  const doc = {
    version: 1,
    updated_at: child.updatedAt || new Date().toISOString(),
    agent: 'subagent',
    sessionId: id,
    taskType: 'subagent_task',
    origin: {
      source: 'cli',
      mode: 'subagent',
      sessionId: id,
      parentThreadId: to.parentId,
      subagent: agentId,
      version: ORIGIN_VERSION,
    },
    messages,
    threadbase: { writtenBy: WRITTEN_BY, ...(to.keptCallId !== undefined ? { parentToolCallId: to.keptCallId } : {}) },
  };
  const path = join(to.dir, `${agentId}.messages.json`);
  await writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`, { exclusive: true });
  return { id, path, warnings };
}
