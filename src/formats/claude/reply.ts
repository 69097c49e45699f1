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

/**
 * Thinking threadbase wrote as a text block (another agent's, without a signature; parse.ts
 * restoreKeptParts): Claude Code sends it as the text it is.
 */
function isClaudeText(p: Part): boolean {
  return p.type === 'thinking' && p.meta?.claudeText === true;
}

/** A part of a message read from a record: reply content as Claude Code counts it. */
export function isReplyContent(p: Part): boolean {
  if (p.type === 'thinking' && isClaudeText(p)) return isReplyText(p.thinking);
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
  if (p && isClaudeText(p)) return false;
  return p?.type === 'thinking' || p?.type === 'redacted_thinking';
}

/** Text that is empty or whitespace only. */
export function isBlankText(p: Part): boolean {
  return p.type === 'text' && p.text.trim() === '';
}

/**
 * A reply's blocks in the order Claude Code 2.1.332 sends them: its tool calls after all its other
 * blocks when any block but a call follows a call, unless a call lies between two thinking blocks
 * (then as they are). It does so to every reply it sends, of one record or joined (then at each
 * record it joins), so a reply whose text came after its calls is sent with the text first
 * (test/fixtures/claude/tool-order). `part` gives the part of each item; the same array comes back
 * when nothing moves.
 */
export function callsLast<T>(parts: readonly T[], part: (x: T) => Part): readonly T[] {
  let calls = false;
  let after = false;
  let thinkingBefore = false;
  let callSince = false;
  for (const x of parts) {
    const p = part(x);
    if (p.type === 'tool_call') {
      calls = true;
      callSince = true;
      continue;
    }
    if (calls) after = true;
    const thinking = isThinking(p);
    if (thinking && thinkingBefore && callSince) return parts;
    thinkingBefore = thinking;
    callSince = false;
  }
  if (!after) return parts;
  return [...parts.filter((x) => part(x).type !== 'tool_call'), ...parts.filter((x) => part(x).type === 'tool_call')];
}
