/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Copilot CLI's own
 * runs as the reader reads them, the Agent SDK's sub-agent messages, Claude Code's in-file sidechains)
 * as sessions of their own, each by the call on the written path that ran it, for the writer to put
 * as Copilot CLI records a run (encode.ts). The call: the one a Copilot CLI event of the chain names
 * (`data.parentToolCallId`), else the first call not taken whose `prompt` is the chain's first user text.
 */
import { callByPrompt, callsOnPath, sideChainGroups } from '../../model/side-chains.js';
import type { Entry, Session } from '../../model/types.js';
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

export interface SideChainRuns {
  /** each chain as a session (its first entry a root), by the original id of the call that ran it */
  byCall: Map<string, Session>;
  /** chains with messages whose call is not on the path */
  unplaced: number;
}

export function sideChainRuns(session: Session, path: readonly Entry[]): SideChainRuns {
  const calls = callsOnPath(path);
  const byCall = new Map<string, Session>();
  let unplaced = 0;
  for (const chain of sideChainGroups(session.entries, path)) {
    // as a session of its own: no longer a side chain
    const entries = chain.map((e): Entry => ({ ...e, sidechain: false }));
    const named = namedCall(entries);
    const call = calls.find((c) => c.id === named && !byCall.has(c.id)) ?? callByPrompt(calls, entries, (id) => byCall.has(id));
    if (!call) {
      unplaced++;
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
  }
  return { byCall, unplaced };
}
