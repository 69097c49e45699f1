/**
 * Codex's sub-agent threads: a rollout of its own whose session_meta names the parent thread
 * (`source: {subagent: {thread_spawn: {parent_thread_id, depth, …}}}`, `parent_thread_id`,
 * `thread_source: "subagent"`), as codex 0.169 records a sub-agent its spawn_agent call started
 * (test/fixtures/codex/subagent-home). Codex links the call by the agent id in the call's output; a
 * sub-agent carried from another agent, whose call is that agent's own tool, keeps the call's id in
 * the session_meta's `threadbase` field (codex reads only the fields it knows).
 */
import { isObject, type JsonObject } from './items.js';

export interface SubagentLink {
  parentThreadId: string;
  /** 1 under a top thread, one more under each sub-agent */
  depth: number;
  /** the call in the parent that ran it */
  callId?: string;
}

/** The thread_spawn of a codex sub-agent's own session_meta payload (a codex → codex copy), else nothing. */
function threadSpawnOf(payload: JsonObject): JsonObject | undefined {
  const source = payload.source;
  const spawn = isObject(source) && isObject(source.subagent) ? source.subagent.thread_spawn : undefined;
  return isObject(spawn) ? spawn : undefined;
}

/**
 * The session_meta payload of a sub-agent thread under `link.parentThreadId`. A codex sub-agent copied
 * keeps what its thread_spawn says of the agent (its nickname, role, path), which codex shows for it.
 */
export function subagentMeta(payload: JsonObject, link: SubagentLink): JsonObject {
  const { forked_from_id: _fork, subagent_history_start_ordinal: _start, ...rest } = payload;
  return {
    ...rest,
    parent_thread_id: link.parentThreadId,
    source: {
      subagent: {
        thread_spawn: {
          agent_path: null,
          agent_nickname: null,
          agent_role: null,
          ...threadSpawnOf(payload),
          parent_thread_id: link.parentThreadId,
          depth: link.depth,
        },
      },
    },
    thread_source: 'subagent',
    ...(link.callId !== undefined ? { threadbase: { parentToolCallId: link.callId } } : {}),
  };
}

/** A thread's sub-agent depth from its session_meta line (0: a top thread). */
export function spawnDepthOf(metaLine: unknown): number {
  const payload = isObject(metaLine) && isObject(metaLine.payload) ? metaLine.payload : undefined;
  const source = payload?.source;
  const spawn = isObject(source) && isObject(source.subagent) ? source.subagent.thread_spawn : undefined;
  return isObject(spawn) && typeof spawn.depth === 'number' ? spawn.depth : 0;
}

/** The call a sub-agent carried into codex names in its session_meta (subagentMeta), else nothing. */
export function keptSpawnCallOf(metaLine: unknown): string | undefined {
  const payload = isObject(metaLine) && isObject(metaLine.payload) ? metaLine.payload : undefined;
  const kept = payload && isObject(payload.threadbase) ? payload.threadbase.parentToolCallId : undefined;
  return typeof kept === 'string' ? kept : undefined;
}
