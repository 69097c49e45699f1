/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Copilot CLI's own
 * runs as the reader reads them, the Agent SDK's sub-agent messages, Claude Code's in-file sidechains)
 * as sessions of their own, each by the call that ran it, for the writer to put as Copilot CLI records
 * a run (encode.ts). The call: the one a Copilot CLI event of the chain names (`data.parentToolCallId`),
 * else the first call not taken whose `prompt` is the chain's first user text; a call on the written
 * path, or one in a chain already placed (a sub-agent's own sub-agent, written inside its run).
 */
import { callByPrompt, callsOnPath, sideChainGroups } from '../../model/side-chains.js';
import type { Entry, Session, ToolCallPart } from '../../model/types.js';
import { isObject, SOURCE, str } from './events.js';

/** The call a Copilot CLI event of the chain names as the one that ran it. */
function namedCall(entries: readonly Entry[]): string | undefined {
  for (const e of entries) {
    if (e.rawSource !== SOURCE || !isObject(e.raw) || !isObject(e.raw.data)) continue;
    const call = str(e.raw.data.parentToolCallId);
    if (call) return call;
  }
  return undefined;
}

/** A side chain no call ran that the writer can put it after: what it is, for the warning. */
export interface UnplacedChain {
  /** its first entry's id, as read */
  rootId: string;
  messages: number;
  /** its first user text, cut short */
  prompt?: string;
  /** the call it names (a Copilot CLI run's), not on the written path nor in a placed chain */
  namedCall?: string;
}

export interface SideChainRuns {
  /** each chain as a session (its first entry a root), by the original id of the call that ran it */
  byCall: Map<string, Session>;
  /** chains with messages whose call is not on the path nor in a placed chain */
  unplaced: UnplacedChain[];
}

function firstPrompt(entries: readonly Entry[]): string | undefined {
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'user') continue;
    const text = e.message.parts
      .flatMap((p) => (p.type === 'text' ? [p.text] : []))
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text) return text.length > 60 ? `${text.slice(0, 59)}…` : text;
  }
  return undefined;
}

export function sideChainRuns(session: Session, path: readonly Entry[]): SideChainRuns {
  // as sessions of their own: no longer side chains
  let pending = sideChainGroups(session.entries, path).map((chain) => chain.map((e): Entry => ({ ...e, sidechain: false })));
  const calls: ToolCallPart[] = callsOnPath(path);
  // the calls any chain holds: a chain naming one of them waits for its chain to be placed
  const inChains = new Set(pending.flatMap((chain) => callsOnPath(chain).map((c) => c.id)));
  const byCall = new Map<string, Session>();
  const taken = (id: string) => byCall.has(id);
  // until no chain finds its call: each one placed brings its own calls (its sub-agents' runs go in it)
  for (let placed = true; placed && pending.length; ) {
    placed = false;
    const left: Entry[][] = [];
    for (const entries of pending) {
      const named = namedCall(entries);
      const call =
        calls.find((c) => c.id === named && !taken(c.id)) ??
        (named !== undefined && inChains.has(named) ? undefined : callByPrompt(calls, entries, taken));
      if (!call) {
        left.push(entries);
        continue;
      }
      const last = entries.at(-1) as Entry;
      // the chain's root: the one entry sideChainGroups left with no parent
      const root = (entries.find((e) => e.parentId === null) ?? last).id;
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
      calls.push(...callsOnPath(entries));
      placed = true;
    }
    pending = left;
  }
  const unplaced = pending.map((entries): UnplacedChain => {
    const prompt = firstPrompt(entries);
    const named = namedCall(entries);
    return {
      rootId: (entries.find((e) => e.parentId === null) ?? (entries[0] as Entry)).id,
      messages: entries.filter((e) => e.kind === 'message').length,
      ...(prompt ? { prompt } : {}),
      ...(named ? { namedCall: named } : {}),
    };
  });
  return { byCall, unplaced };
}
