/**
 * What Claude Code counts as a reply's content when it resumes a transcript (2.1.332, checked
 * against its requests in test/agents/claude.test.ts): any block but thinking and text that is
 * blank or one of its own placeholders. A response with no such block in any of its records is
 * not a reply (its thinking and placeholders are left out); a record with no blocks at all is
 * merged into its response, which is sent as "(no content)" when nothing else of it is.
 */
import type { Part } from '../../model/types.js';

/** What Claude Code sends for a response whose records have no content at all (and for a user turn of only blank text). */
export const NO_CONTENT = '(no content)';
/** What Claude Code sends in place of an empty text block between two thinking blocks of a reply. */
export const EMPTY_TEXT_REMOVED = '[Empty text removed]';

/** A part of a message read from a record: reply content as Claude Code counts it. */
export function isReplyContent(p: Part): boolean {
  if (isThinking(p)) return false;
  return p.type !== 'text' || isReplyText(p.text);
}

/** A content block of a record: reply content as Claude Code counts it. */
export function isReplyBlock(b: unknown): boolean {
  if (typeof b !== 'object' || b === null) return false;
  const { type, text } = b as { type?: unknown; text?: unknown };
  if (type === 'thinking' || type === 'redacted_thinking') return false;
  return type !== 'text' || (typeof text === 'string' && isReplyText(text));
}

function isReplyText(text: string): boolean {
  const t = text.trim();
  return t !== '' && t !== NO_CONTENT && t !== EMPTY_TEXT_REMOVED;
}

export function isThinking(p: Part | undefined): boolean {
  return p?.type === 'thinking' || p?.type === 'redacted_thinking';
}

/** Text that is empty or whitespace only. */
export function isBlankText(p: Part): boolean {
  return p.type === 'text' && p.text.trim() === '';
}
