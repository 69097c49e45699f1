/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Copilot CLI's own
 * runs as the reader reads them, the Agent SDK's sub-agent messages, Claude Code's in-file sidechains)
 * as sessions of their own, each by the call on the written path that ran it, for the writer to put
 * as Copilot CLI records a run (encode.ts). The call: the one a Copilot CLI event of the chain names
 * (`data.parentToolCallId`), else the first call not taken whose `prompt` is the chain's first user text.
 */
import type { Entry, Session, ToolCallPart } from '../../model/types.js';
import { isObject, SOURCE, str } from './events.js';

const firstUserText = (entries: readonly Entry[]): string | undefined => {
  const m = entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  if (m?.kind !== 'message') return undefined;
  return m.message.parts
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
};

/** The call a Copilot CLI event of the chain names as the one that ran it. */
function namedCall(entries: readonly Entry[]): string | undefined {
  for (const e of entries) {
    if (e.rawSource !== SOURCE || !isObject(e.raw) || !isObject(e.raw.data)) continue;
    const call = str(e.raw.data.parentToolCallId);
    if (call) return call;
  }
  return undefined;
}

export interface SideChainRuns {
  /** each chain as a session (its first entry a root), by the original id of the call that ran it */
  byCall: Map<string, Session>;
  /** chains with messages whose call is not on the path */
  unplaced: number;
}

export function sideChainRuns(session: Session, path: readonly Entry[]): SideChainRuns {
  const onPath = new Set(path.map((e) => e.id));
  const side = session.entries.filter((e) => e.sidechain && !onPath.has(e.id));
  const byId = new Map(side.map((e) => [e.id, e]));
  const rootOf = (e: Entry): string => {
    const seen = new Set<string>();
    let r = e;
    while (r.parentId && byId.has(r.parentId) && !seen.has(r.id)) {
      seen.add(r.id);
      r = byId.get(r.parentId) as Entry;
    }
    return r.id;
  };
  const chains = new Map<string, Entry[]>();
  for (const e of side) {
    const root = rootOf(e);
    // as a session of its own: no longer a side chain, its first entry a root
    const own: Entry = { ...e, sidechain: false, ...(e.id === root ? { parentId: null } : {}) };
    chains.set(root, [...(chains.get(root) ?? []), own]);
  }
  const calls = path.flatMap((e) =>
    e.kind === 'message' ? e.message.parts.filter((p): p is ToolCallPart => p.type === 'tool_call') : [],
  );
  const byCall = new Map<string, Session>();
  let unplaced = 0;
  for (const [root, entries] of chains) {
    if (!entries.some((e) => e.kind === 'message')) continue;
    const prompt = firstUserText(entries);
    const named = namedCall(entries);
    const call =
      calls.find((c) => c.id === named && !byCall.has(c.id)) ??
      (prompt
        ? calls.find((c) => !byCall.has(c.id) && typeof c.input.prompt === 'string' && c.input.prompt.trim() === prompt)
        : undefined);
    if (!call) {
      unplaced++;
      continue;
    }
    const last = entries.at(-1) as Entry;
    byCall.set(call.id, {
      id: root,
      source: session.source,
      ...(session.project ? { project: session.project } : {}),
      ...(typeof call.input.description === 'string' ? { title: call.input.description } : {}),
      createdAt: entries[0]?.timestamp ?? session.createdAt,
      updatedAt: last.timestamp,
      messageCount: 0,
      entries,
      leafId: last.id,
    });
  }
  return { byCall, unplaced };
}
