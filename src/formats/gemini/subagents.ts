/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Claude Code's
 * in-file sidechains, the Agent SDK's sub-agent messages) as Gemini CLI 0.61 keeps a sub-agent's chat
 * (chatRecordingService.initialize with kind `subagent`, LocalAgentExecutor): its own JSONL chat
 * `chats/<parent session id>/<agent id>.jsonl`, metadata `kind: "subagent"` with the workspace's
 * directories, and the parent's call that ran it carrying `agentId` (ToolCallRecord.agentId), which
 * the reader links back (driver.ts withSpawnCall).
 */
import { callByPrompt, callsOnPath, namedCall, sideChainGroups } from '../../model/side-chains.js';
import type { Entry, Session } from '../../model/types.js';
import { isObject, type JsonObject } from './content.js';

export interface SideChain {
  /** The chain's entries in session order, its first one a root (parentId null). */
  entries: Entry[];
  /** The call in the main conversation that ran this sub-agent, where it can be told. */
  spawnedBy?: string;
}

/**
 * The side chains of a session (entries marked `sidechain` hanging from one another), each with the
 * call that ran it: the Agent SDK names it (`meta.parent_tool_use_id`, SPAWNED_BY); Claude Code's in-file side
 * chain starts with the prompt its Task call gave (`input.prompt`), the first such call not taken.
 * A chain of records alone (no message) is no sub-agent's work and is left out.
 */
export function sideChainsOf(session: Pick<Session, 'entries'>, mainPath: readonly Entry[]): SideChain[] {
  const calls = callsOnPath(mainPath);
  const taken = new Set<string>();
  const out: SideChain[] = [];
  for (const entries of sideChainGroups(session.entries, mainPath)) {
    const spawnedBy = namedCall(entries) ?? callByPrompt(calls, entries, (id) => taken.has(id))?.id;
    if (spawnedBy) taken.add(spawnedBy);
    out.push({ entries, ...(spawnedBy ? { spawnedBy } : {}) });
  }
  return out;
}

/** Marks the call `callId` in a chat's records (a `$set.messages` included) with the sub-agent's id. */
export function linkSubAgent(records: readonly JsonObject[], callId: string, agentId: string): boolean {
  let linked = false;
  const visit = (rec: JsonObject) => {
    for (const c of Array.isArray(rec.toolCalls) ? rec.toolCalls.filter(isObject) : [])
      if (c.id === callId) {
        c.agentId = agentId;
        linked = true;
      }
  };
  for (const r of records) {
    visit(r);
    if (isObject(r.$set) && Array.isArray(r.$set.messages)) for (const m of r.$set.messages.filter(isObject)) visit(m);
  }
  return linked;
}
