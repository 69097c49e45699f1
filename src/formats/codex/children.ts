/**
 * Codex's sub-agent threads: a rollout of its own whose session_meta names the parent thread
 * (`source: {subagent: {thread_spawn: {parent_thread_id, depth, agent_path, agent_nickname,
 * agent_role}}}`, `parent_thread_id`, `thread_source: "subagent"`, the agent's nickname and role
 * again at the top when it has them) and keeps the root thread's id as its `session_id`, as codex
 * 0.169 records a sub-agent its spawn_agent call started (test/fixtures/codex/subagent-home). Codex
 * links the call by the agent id in the call's output; a sub-agent carried from another agent, whose
 * call is that agent's own tool, keeps the call's id in the session_meta's `threadbase` field (codex
 * reads only the fields it knows).
 */
import { isObject, type JsonObject, str } from './items.js';

export interface SubagentLink {
  parentThreadId: string;
  /** the root thread's id, which codex keeps as every thread's `session_id` under it */
  sessionId: string;
  /** 1 under a top thread, one more under each sub-agent */
  depth: number;
  /** the call in the parent that ran it */
  callId?: string;
}

/** What a sub-agent thread's session_meta says of its spawn: codex's thread_spawn and the agent it names. */
export interface ThreadSpawn {
  parentThreadId: string;
  nickname: string | null;
  role: string | null;
  path: string | null;
}

/** The thread_spawn of a codex sub-agent's own session_meta payload, else nothing. */
function threadSpawnOf(payload: JsonObject): JsonObject | undefined {
  const source = payload.source;
  const spawn = isObject(source) && isObject(source.subagent) ? source.subagent.thread_spawn : undefined;
  return isObject(spawn) ? spawn : undefined;
}

const payloadOf = (metaLine: unknown): JsonObject | undefined =>
  isObject(metaLine) && isObject(metaLine.payload) ? metaLine.payload : undefined;

/**
 * The spawn a session_meta payload records, else nothing (a top thread). The nickname and role are
 * the payload's own fields, else the thread_spawn's (codex 0.169 writes both, the same).
 */
export function threadSpawn(payload: JsonObject): ThreadSpawn | undefined {
  const spawn = threadSpawnOf(payload);
  const parentThreadId = spawn && str(spawn.parent_thread_id);
  if (!spawn || !parentThreadId) return undefined;
  return {
    parentThreadId,
    nickname: str(payload.agent_nickname) ?? str(spawn.agent_nickname) ?? null,
    role: str(payload.agent_role) ?? str(spawn.agent_role) ?? null,
    path: str(spawn.agent_path) ?? null,
  };
}

/**
 * The session_meta payload of a sub-agent thread under `link.parentThreadId`. A codex sub-agent copied
 * keeps what its thread_spawn says of the agent (its nickname, role, path), which codex shows for it;
 * another agent's sub-agent has none (codex names only the agents it spawns itself).
 */
export function subagentMeta(payload: JsonObject, link: SubagentLink): JsonObject {
  const {
    forked_from_id: _fork,
    subagent_history_start_ordinal: _start,
    agent_nickname: _nickname,
    agent_role: _role,
    ...rest
  } = payload;
  const agent = threadSpawn(payload);
  const nickname = agent?.nickname ?? null;
  const role = agent?.role ?? null;
  return {
    ...rest,
    session_id: link.sessionId,
    parent_thread_id: link.parentThreadId,
    // in codex's order (SubAgentSource::ThreadSpawn), which its state database keeps as the row's `source` text
    source: {
      subagent: {
        thread_spawn: {
          parent_thread_id: link.parentThreadId,
          depth: link.depth,
          agent_path: agent?.path ?? null,
          agent_nickname: nickname,
          agent_role: role,
        },
      },
    },
    thread_source: 'subagent',
    // codex writes these only when the agent has them (serde skips a None)
    ...(nickname !== null ? { agent_nickname: nickname } : {}),
    ...(role !== null ? { agent_role: role } : {}),
    ...(link.callId !== undefined ? { threadbase: { parentToolCallId: link.callId } } : {}),
  };
}

/**
 * The session_meta payload of a sub-agent thread written without its parent (`convert <sub-agent>`, a
 * fork of one): a top thread of its own, as codex 0.171 writes its own fork of a sub-agent thread
 * (app-server `thread/fork`: its own session, no thread_spawn, parent, nickname or role). Codex links a
 * thread to the parent its session_meta names (it adds the thread_spawn_edges row when it resumes the
 * thread) and archives a thread's sub-agents with it, so a copy naming the original parent would go to
 * archived_sessions with a thread it was not copied with. The spawn stays as history in the
 * `threadbase` field codex ignores. A top thread's payload is returned as it is.
 */
export function loneSubagentMeta(payload: JsonObject, id: string): JsonObject {
  const spawn = threadSpawnOf(payload);
  if (!spawn) return payload;
  const { parent_thread_id: _parent, agent_nickname: _nickname, agent_role: _role, threadbase: _kept, ...rest } = payload;
  // the parent as forked_from_id (a sub-agent codex started with its parent's context, or the parent
  // threadbase reads as this thread's) is the spawn's, not a fork's
  if (rest.forked_from_id === spawn.parent_thread_id) delete rest.forked_from_id;
  return {
    ...rest,
    session_id: id,
    // what threadbase writes for a thread a user starts (codex's fork: its client's kind)
    source: 'cli',
    thread_source: 'user',
    threadbase: { threadSpawn: spawn },
  };
}

/** A thread's sub-agent depth from its session_meta line (0: a top thread). */
export function spawnDepthOf(metaLine: unknown): number {
  const spawn = threadSpawnOf(payloadOf(metaLine) ?? {});
  return spawn && typeof spawn.depth === 'number' ? spawn.depth : 0;
}

/**
 * The id codex keeps as `session_id` in the threads under a thread, from its session_meta line: its own
 * `session_id` (a sub-agent's is its root's), else its id (a thread written without one).
 */
export function rootSessionIdOf(metaLine: unknown, threadId: string): string {
  const payload = payloadOf(metaLine);
  return (payload && (str(payload.session_id) ?? str(payload.id))) ?? threadId;
}

/** The call a sub-agent carried into codex names in its session_meta (subagentMeta), else nothing. */
export function keptSpawnCallOf(metaLine: unknown): string | undefined {
  const payload = payloadOf(metaLine);
  const kept = payload && isObject(payload.threadbase) ? payload.threadbase.parentToolCallId : undefined;
  return typeof kept === 'string' ? kept : undefined;
}
