/**
 * A sub-agent session carried into Qwen Code 0.24 as Qwen Code keeps a sub-agent's transcript:
 * `projects/<p>/subagents/<main session id>/agent-<agent id>.jsonl` (every record `isSidechain`, with
 * the agent's id and name and the main session's sessionId) beside `agent-<agent id>.meta.json`,
 * whose `toolUseId` names the call in the parent that ran it. Qwen Code names an agent
 * `<subagent name>-<call id>`; a sub-agent's own sub-agent is in the same folder, its meta's
 * `parentAgentId` naming the sub-agent that ran it and `depth` how deep.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from '../../model/types.js';
import { isObject } from '../gemini/content.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';

/** The sub-agent type threadbase records for a sub-agent of another agent (Qwen Code's built-in one). */
const DEFAULT_AGENT = 'general-purpose';

export interface SubagentTarget {
  /** the project's `subagents` folder */
  subagentsDir: string;
  /** the main session (the folder's name, records' sessionId) */
  mainSessionId: string;
  /** the sub-agent that ran it, when it is a sub-agent's own */
  parentAgentId?: string;
  /** 0 under the main session, one more under each sub-agent (Qwen Code's meta `depth`) */
  depth: number;
  cwd: string;
  /** the parent's call that ran it, by the id the written parent holds */
  toolUseId?: string;
  /** that call's `description` (what Qwen Code's agent tool records in the meta) */
  description?: string;
}

/** An agent id as Qwen Code makes one (`<name>-<call id>`), its file name's characters only, not taken in `dir`. */
function freshAgentId(dir: string, name: string, toolUseId: string | undefined): string {
  const base = `${name}-${toolUseId ?? randomUUID()}`.replace(/[^A-Za-z0-9_-]/g, '_');
  for (let n = 0; ; n++) {
    const id = n === 0 ? base : `${base}-${n}`;
    if (!existsSync(join(dir, `agent-${id}.jsonl`)) && !existsSync(join(dir, `agent-${id}.meta.json`))) return id;
  }
}

/** Writes the transcript and its meta file (each new, atomically); returns the agent id and the transcript's path. */
export async function writeSubagentTranscript(
  child: Session,
  to: SubagentTarget,
): Promise<{ agentId: string; path: string; warnings: string[] }> {
  const own = isObject(child.meta) && typeof child.meta.agentType === 'string' ? child.meta.agentType : undefined;
  const agentName = own ?? DEFAULT_AGENT;
  const dir = join(to.subagentsDir, to.mainSessionId);
  const agentId = freshAgentId(dir, agentName, to.toolUseId);
  const { encodeQwenRecords } = await import('./encode.js');
  const { records, warnings } = encodeQwenRecords(child, { sessionId: to.mainSessionId, cwd: to.cwd });
  const lines = records.map((r) => ({ ...r, agentId, agentName, isSidechain: true }));
  const now = new Date().toISOString();
  // the model it ran on, as Qwen Code records it in the meta (its assistant records name none)
  const model = child.entries.findLast((e) => e.kind === 'message' && e.message.role === 'assistant' && e.message.model);
  const meta = {
    agentId,
    agentType: agentName,
    // Qwen Code drops a meta without a string description from its agent trace (readAgentTrace)
    description: to.description ?? child.title ?? '',
    parentSessionId: to.mainSessionId,
    ...(to.toolUseId !== undefined ? { toolUseId: to.toolUseId } : {}),
    parentAgentId: to.parentAgentId ?? null,
    createdAt: child.createdAt || now,
    status: 'completed',
    lastUpdatedAt: child.updatedAt || now,
    subagentName: agentName,
    resumeCount: 0,
    depth: to.depth,
    ...(model?.kind === 'message' && model.message.model ? { model: model.message.model } : {}),
  };
  const path = join(dir, `agent-${agentId}.jsonl`);
  await writeFileAtomic(join(dir, `agent-${agentId}.meta.json`), JSON.stringify(meta, null, 2), { exclusive: true });
  await writeFileAtomic(path, toJsonl(lines), { exclusive: true });
  return { agentId, path, warnings };
}
