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
}

export function branchSummaryField(e: BranchSummaryEntry): KeptBranchSummary {
  return { summary: e.summary, ...(e.fromId !== undefined ? { fromId: e.fromId } : {}) };
}

/**
 * The branch summary a `threadbase.branchSummary` field keeps, with the text the agent sends for it
 * (the user turn's), or undefined when the field holds none.
 */
export function branchSummaryOf(
  field: unknown,
  sent: string,
): Pick<BranchSummaryEntry, 'summary' | 'fromId' | 'text'> | undefined {
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return undefined;
  const { summary, fromId } = field as Record<string, unknown>;
  if (typeof summary !== 'string') return undefined;
  return {
    summary,
    ...(typeof fromId === 'string' ? { fromId } : {}),
    ...(sent !== summary ? { text: sent } : {}),
  };
}
