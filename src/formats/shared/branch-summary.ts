/**
 * A branch summary in an agent without them: the writers send it as a user turn of its `text` (what the
 * agent it came from sends; else the bare summary) and keep the entry beside it in a `threadbase` field
 * the agent leaves alone; the readers give the entry back from that field and the turn's text.
 */
import type { BranchSummaryEntry } from '../../model/types.js';

/** What a writer keeps of a branch summary beside the user turn it sends it as. */
export interface KeptBranchSummary {
  summary: string;
  fromId?: string;
  details?: unknown;
  fromHook?: boolean;
}

/** The fields of a branch summary an agent keeps beside it: what the summary was written with. */
type KeptFields = Pick<BranchSummaryEntry, 'summary' | 'fromId' | 'details' | 'fromHook' | 'text'>;

export function branchSummaryField(e: BranchSummaryEntry): KeptBranchSummary {
  return {
    summary: e.summary,
    ...(e.fromId !== undefined ? { fromId: e.fromId } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
    ...(e.fromHook !== undefined ? { fromHook: e.fromHook } : {}),
  };
}

/**
 * The branch summary a `threadbase.branchSummary` field keeps, with the text the agent sends for it
 * (the user turn's), or undefined when the field holds none.
 */
export function branchSummaryOf(field: unknown, sent: string): KeptFields | undefined {
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return undefined;
  const { summary, fromId, details, fromHook } = field as Record<string, unknown>;
  if (typeof summary !== 'string') return undefined;
  return {
    summary,
    ...(typeof fromId === 'string' ? { fromId } : {}),
    ...(details !== undefined ? { details } : {}),
    ...(typeof fromHook === 'boolean' ? { fromHook } : {}),
    ...(sent !== summary ? { text: sent } : {}),
  };
}

/**
 * The key of a message's `meta` that says it is the copy of a branch summary an agent made itself
 * (codex's own compaction copies the user turn threadbase wrote for one into its replacement history,
 * without the `threadbase` field): its value the entry, as branchSummaryField gives it. Carried into
 * another agent, such a message is written as that branch summary again (convert/session.ts).
 */
export const COPIED_BRANCH_SUMMARY = 'copiedBranchSummary';

/**
 * The branch summary a message is a copy of (its `meta[COPIED_BRANCH_SUMMARY]`), with the text it
 * sends, or undefined for any other message.
 */
export function copiedBranchSummaryOf(meta: Record<string, unknown> | undefined, sent: string): KeptFields | undefined {
  return meta === undefined ? undefined : branchSummaryOf(meta[COPIED_BRANCH_SUMMARY], sent);
}
