/**
 * A session's side chains: sub-agent work kept inside the session, its entries marked `sidechain`
 * (Claude Code's in-file sidechains, the Agent SDK's sub-agent messages, Copilot CLI's runs). A writer
 * whose agent keeps a sub-agent apart groups them here and finds the call on the written path that
 * ran each one.
 */
import type { Entry, ToolCallPart } from './types.js';

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

function firstUserText(entries: readonly Entry[]): string | undefined {
  const m = entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  if (m?.kind !== 'message') return undefined;
  return m.message.parts
    .flatMap((p) => (p.type === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
}
