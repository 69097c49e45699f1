/**
 * A session's side chains (sub-agent work kept in the session, marked `sidechain`: Copilot CLI's own
 * runs as the reader reads them, the Agent SDK's sub-agent messages, Claude Code's in-file sidechains)
 * as sessions of their own, each by the call that ran it, for the writer to put as Copilot CLI records
 * a run (encode.ts), each by the call that ran it as sideChainChildren finds it (the one the chain's
 * messages name, which the reader sets to a Copilot CLI run's call, else by its prompt; on the written
 * path, or in a chain already placed: a sub-agent's own sub-agent, written inside its run).
 */
import { namedCall, sideChainChildren } from '../../model/side-chains.js';
import { truncate } from '../../model/text.js';
import { pathToLeaf } from '../../model/tree.js';
import type { Entry, Session } from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { isObject } from './events.js';

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
    // cut between graphemes: an emoji at the cut is not halved
    if (text) return truncate(text, 60);
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

/** The top-level `agentId` Copilot CLI gives a run's events, as the entry keeps it. */
function agentIdOf(e: Entry): string | undefined {
  return isObject(e.raw) && typeof e.raw.agentId === 'string' ? e.raw.agentId : undefined;
}

/**
 * Each sub-agent run a Copilot CLI session holds (a side chain of it, as the reader reads it) as a
 * session of its own, as the other agents' sub-agents are: its id the run's `agentId` (the one
 * Copilot CLI gave it, or the one writeChildSession returned), its parent the session (a run's own
 * sub-agent: that run), the call that ran it, its events no longer side entries and its own runs'
 * events as its side chains. The session itself keeps its runs as side chains (what Copilot CLI
 * resumes is its main chain, unchanged). A run whose call is on no path (a rewind abandoned it) is none.
 */
export function runSessions(session: Session): Session[] {
  const { children } = sideChainChildren(
    session,
    pathToLeaf(session).filter((e) => !e.sidechain),
  );
  if (!children.length) return [];
  // each chain's run id, by the chain's (its first entry's) id
  const runId = new Map(children.map((c) => [c.session.id, c.session.entries.map(agentIdOf).find(Boolean) ?? c.session.id]));
  const described = new Map<string, string>();
  for (const e of session.entries) {
    const d = isObject(e.raw) && e.raw.type === 'subagent.started' && isObject(e.raw.data) ? e.raw.data : undefined;
    const agentId = agentIdOf(e);
    if (d && agentId && typeof d.agentDescription === 'string' && d.agentDescription) described.set(agentId, d.agentDescription);
  }
  const ownIds = new Map(children.map((c) => [c.session.id, new Set(c.session.entries.map((e) => e.id))]));
  // the chains inside each chain, however deep
  const inside = (chainId: string): Set<string> => {
    const ids = new Set<string>();
    for (const c of children)
      if (c.within === chainId) for (const id of [...(ownIds.get(c.session.id) ?? []), ...inside(c.session.id)]) ids.add(id);
    return ids;
  };
  return children.map(({ session: run, within }) => {
    const id = runId.get(run.id) as string;
    const own = new Map(run.entries.map((e) => [e.id, e]));
    const nested = inside(run.id);
    const entries = session.entries.flatMap((e) => {
      const mine = own.get(e.id);
      return mine ? [mine] : nested.has(e.id) ? [e] : [];
    });
    const usage = summarizeUsage(run.entries);
    const title = described.get(id) ?? run.title;
    return {
      ...run,
      id,
      ...(title ? { title } : {}),
      ...(usage.models.length ? { models: usage.models } : {}),
      usage: usage.usage,
      ...usageByModelOf(usage),
      ...(session.path ? { path: session.path } : {}),
      parentId: within === undefined ? session.id : (runId.get(within) as string),
      entries,
    };
  });
}
