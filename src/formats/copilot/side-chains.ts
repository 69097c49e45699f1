/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Copilot CLI's own
 * runs as the reader reads them, the Agent SDK's sub-agent messages, Claude Code's in-file sidechains)
 * as sessions of their own, each by the call that ran it, for the writer to put as Copilot CLI records
 * a run (encode.ts), each by the call that ran it as sideChainChildren finds it (the one the chain's
 * messages name, which the reader sets to a Copilot CLI run's call, else by its prompt; on the written
 * path, or in a chain already placed: a sub-agent's own sub-agent, written inside its run).
 */
import { namedCall, sideChainChildren } from '../../model/side-chains.js';
import type { Entry, Session } from '../../model/types.js';

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
  const { children, unplaced } = sideChainChildren(session, path);
  const byCall = new Map<string, Session>(children.map((c) => [c.session.parentToolCallId, c.session]));
  return {
    byCall,
    unplaced: unplaced.map((entries): UnplacedChain => {
      const prompt = firstPrompt(entries);
      const named = namedCall(entries);
      return {
        rootId: (entries.find((e) => e.parentId === null) ?? (entries[0] as Entry)).id,
        messages: entries.filter((e) => e.kind === 'message').length,
        ...(prompt ? { prompt } : {}),
        ...(named ? { namedCall: named } : {}),
      };
    }),
  };
}
