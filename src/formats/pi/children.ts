/**
 * pi has no sub-agents: a sub-agent session carried into pi is a session of its own, its link to the
 * session and the call that ran it kept in the header's `threadbase` field (pi reads only the fields
 * it knows), so it reads back as the parent's child.
 */
import type { SessionInfo } from '../../model/types.js';
import { isRecord } from './records.js';

/** The header field of a sub-agent session written into pi. */
export function childLinkField(parentId: string, parentToolCallId: string | undefined): Record<string, unknown> {
  return { threadbase: { parentId, ...(parentToolCallId !== undefined ? { parentToolCallId } : {}) } };
}

/** The parent and spawning call a header names in its `threadbase` field (childLinkField), else nothing. */
export function childLinkOf(header: unknown): Pick<SessionInfo, 'parentId' | 'parentToolCallId'> {
  const link = isRecord(header) && isRecord(header.threadbase) ? header.threadbase : undefined;
  if (typeof link?.parentId !== 'string') return {};
  return {
    parentId: link.parentId,
    ...(typeof link.parentToolCallId === 'string' ? { parentToolCallId: link.parentToolCallId } : {}),
  };
}
