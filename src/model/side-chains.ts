/**
 * A session's side chains: sub-agent work kept inside the session, its entries marked `sidechain`
 * (Claude Code's in-file sidechains, the Agent SDK's sub-agent messages, Copilot CLI's runs). A writer
 * whose agent keeps a sub-agent apart groups them here and finds the call on the written path that
 * ran each one.
 */
import type { Entry, Session, ToolCallPart } from './types.js';

/**
 * The message meta key naming the call that ran a side chain's message: the Agent SDK's
 * `parent_tool_use_id`, which the Copilot CLI reader sets to its run's call too.
 */
export const SPAWNED_BY = 'parent_tool_use_id';

/**
 * The side entries not on `path` (a conversion at an entry of a side chain makes that chain the main
 * one), grouped by the side entry each hangs from, in session order; each chain's first entry is made
 * a root (parentId null). A chain of records alone (no message) is no sub-agent's work and is left out.
 */
export function sideChainGroups(entries: readonly Entry[], path: readonly Entry[]): Entry[][] {
  const onPath = new Set(path.map((e) => e.id));
  const side = entries.filter((e) => e.sidechain && !onPath.has(e.id));
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
    const chain = chains.get(root) ?? [];
    chain.push(e.id === root ? { ...e, parentId: null } : e);
    chains.set(root, chain);
  }
  return [...chains.values()].filter((chain) => chain.some((e) => e.kind === 'message'));
}

/** The tool calls of the messages on `path`, in order. */
export function callsOnPath(path: readonly Entry[]): ToolCallPart[] {
  return path.flatMap((e) =>
    e.kind === 'message' ? e.message.parts.filter((p): p is ToolCallPart => p.type === 'tool_call') : [],
  );
}

/**
 * The first call not `taken` whose `prompt` input is the chain's first user text: how a Task call
 * that ran a sub-agent is told when nothing names it (Claude Code's in-file side chain starts with it).
 */
export function callByPrompt(
  calls: readonly ToolCallPart[],
  chain: readonly Entry[],
  taken: (callId: string) => boolean,
): ToolCallPart | undefined {
  const prompt = firstUserText(chain);
  if (!prompt) return undefined;
  return calls.find((c) => !taken(c.id) && typeof c.input.prompt === 'string' && c.input.prompt.trim() === prompt);
}

/** The text of a chain's first user message, trimmed: the prompt a call gave it (callByPrompt). */
export function firstUserText(entries: readonly Entry[]): string | undefined {
  const m = entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  if (m?.kind !== 'message') return undefined;
  return m.message.parts
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
}

/** A side chain as a sub-agent session of its own, with the call that ran it. */
export interface SideChainChild {
  /** the chain as a session: its id the chain's first entry's, its entries no longer side entries */
  session: Session & { parentToolCallId: string };
  /** the chain whose call ran it (a sub-agent's own sub-agent), by that chain's session id; undefined: a call on the path */
  within?: string;
}

/** The call a side chain's messages name as the one that ran it (SPAWNED_BY). */
export function namedCall(chain: readonly Entry[]): string | undefined {
  for (const e of chain) {
    const v = e.kind === 'message' ? e.message.meta?.[SPAWNED_BY] : undefined;
    if (typeof v === 'string') return v;
  }
  return undefined;
}

/**
 * The side chains of `session` not on `path` as sub-agent sessions, for a target that keeps
 * sub-agents apart: each by the call that ran it, the one its messages name (SPAWNED_BY) else the
 * first call not taken whose prompt is the chain's first user text (callByPrompt), on the path or in
 * a chain already placed (written under that one); `unplaced` the chains no such call ran.
 */
export function sideChainChildren(session: Session, path: readonly Entry[]): { children: SideChainChild[]; unplaced: Entry[][] } {
  let pending = sideChainGroups(session.entries, path).map((chain) => chain.map((e): Entry => ({ ...e, sidechain: false })));
  const calls = callsOnPath(path).map((call) => ({ call, within: undefined as string | undefined }));
  const inChains = new Set(pending.flatMap((chain) => callsOnPath(chain).map((c) => c.id)));
  const children: SideChainChild[] = [];
  const taken = new Set<string>();
  for (let placed = true; placed && pending.length; ) {
    placed = false;
    const left: Entry[][] = [];
    for (const entries of pending) {
      const named = namedCall(entries);
      const free = calls.filter((c) => !taken.has(c.call.id));
      const call =
        free.find((c) => c.call.id === named)?.call ??
        // a chain naming a call in a chain not placed yet waits for that one
        (named !== undefined && inChains.has(named)
          ? undefined
          : callByPrompt(
              free.map((c) => c.call),
              entries,
              (id) => taken.has(id),
            ));
      const found = free.find((c) => c.call === call);
      if (!found) {
        left.push(entries);
        continue;
      }
      taken.add(found.call.id);
      const first = entries.find((e) => e.parentId === null) ?? (entries[0] as Entry);
      const last = entries.at(-1) as Entry;
      const description = found.call.input.description;
      children.push({
        session: {
          id: first.id,
          source: session.source,
          ...(session.project ? { project: session.project } : {}),
          ...(typeof description === 'string' ? { title: description } : {}),
          createdAt: entries[0]?.timestamp ?? session.createdAt,
          updatedAt: last.timestamp,
          messageCount: entries.filter((e) => e.kind === 'message').length,
          entries,
          leafId: last.id,
          parentId: session.id,
          parentToolCallId: found.call.id,
        },
        ...(found.within !== undefined ? { within: found.within } : {}),
      });
      calls.push(...callsOnPath(entries).map((call) => ({ call, within: first.id })));
      placed = true;
    }
    pending = left;
  }
  return { children, unplaced: pending };
}
