/**
 * Sub-agent transcripts as Claude Code keeps them: `<project>/<session>/subagents/agent-<agentId>.jsonl`
 * (every record `isSidechain: true`, with the agentId, and the sessionId of the main session) beside
 * `agent-<agentId>.meta.json`, whose `toolUseId` names the Agent (Task) call in the main session that ran it.
 * A sub-agent's own sub-agents go in the same folder (spawnDepth counts how deep).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Session } from '../../model/types.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { isRecord } from './parse.js';

/** An agent id in Claude Code's form: `a` and 16 hex digits. */
export function newAgentId(): string {
  return `a${randomBytes(8).toString('hex')}`;
}

export interface SubagentTarget {
  /** the folder of the main session's sub-agents: `<project>/<main session>/subagents` */
  dir: string;
  /** the main session (records' sessionId) */
  mainSessionId: string;
  cwd: string;
  /** the call in the parent transcript that ran it, by the id Claude Code sends */
  toolUseId?: string;
  /** 1 under the main session, one more under each sub-agent */
  spawnDepth: number;
}

/** What Claude Code's meta file says of a sub-agent: the source's own meta when it was one of Claude Code's. */
function metaOf(child: Session, to: SubagentTarget): Record<string, unknown> {
  const own = isRecord(child.meta?.agent) ? child.meta.agent : {};
  return {
    agentType: 'general-purpose',
    ...own,
    // Claude Code's own description (the Agent call's) where the sub-agent was one of its, else the title
    ...(own.description === undefined && child.title !== undefined ? { description: child.title } : {}),
    ...(to.toolUseId !== undefined ? { toolUseId: to.toolUseId } : {}),
    spawnDepth: to.spawnDepth,
  };
}

/** Writes the transcript and its meta file (each new, atomically); returns the agent id and the transcript's path. */
export async function writeSubagentTranscript(
  child: Session,
  to: SubagentTarget,
): Promise<{ agentId: string; path: string; warnings: string[] }> {
  const { encodeSession, markWritten } = await import('./encode.js');
  const agentId = newAgentId();
  const sidechain: Session = { ...child, entries: child.entries.map((e) => ({ ...e, sidechain: true })) };
  const { records, warnings } = encodeSession(sidechain, { sessionId: to.mainSessionId, cwd: to.cwd });
  // every transcript record of a sub-agent carries its agent id (Claude Code's own do; a copied one gets the new id)
  const linked = records.map((r) => ('isSidechain' in r ? { ...r, isSidechain: true, agentId } : r));
  markWritten(linked);
  const path = join(to.dir, `agent-${agentId}.jsonl`);
  await writeFileAtomic(join(to.dir, `agent-${agentId}.meta.json`), JSON.stringify(metaOf(child, to)), { exclusive: true });
  await writeFileAtomic(path, toJsonl(linked), { exclusive: true });
  return { agentId, path, warnings };
}

/**
 * The parent transcript's result of the call that ran a copied sub-agent names the new agent id in
 * `toolUseResult.agentId` (Claude Code finds the sub-agent's transcript by it), where it named the
 * original's. Only for a transcript this conversion wrote (the caller's check): rewritten whole, atomically.
 */
export async function relinkAgentId(path: string, toolUseId: string, from: string, to: string): Promise<boolean> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  let changed = false;
  const out = lines.map((line) => {
    if (!line.includes(from) || !line.includes(toolUseId)) return line;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      return line;
    }
    if (!isRecord(r) || !isRecord(r.toolUseResult) || r.toolUseResult.agentId !== from) return line;
    const content = isRecord(r.message) ? r.message.content : undefined;
    const answers =
      Array.isArray(content) && content.some((b) => isRecord(b) && b.type === 'tool_result' && b.tool_use_id === toolUseId);
    if (!answers) return line;
    changed = true;
    return JSON.stringify({ ...r, toolUseResult: { ...r.toolUseResult, agentId: to } });
  });
  if (changed) await writeFileAtomic(path, out.join('\n'));
  return changed;
}
