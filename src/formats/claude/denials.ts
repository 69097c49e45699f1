/**
 * Claude Code 2.1.332's record of a call that did not run: the user record of its result carries
 * `toolDenialKind` (seen live: `-p` without the tool allowed gives `user-rejected` with
 * `permissionDecision.source: "config"`; the binary also writes `permission-rule`, `automode-*`,
 * `interrupted` and `cancelled`), the result an `is_error` text in its own words. Older versions
 * wrote the words only.
 */
import { type DeclinedMark, declinedMarkOf, markDeclined } from '../../convert/declined.js';
import { resultText } from '../../model/tree.js';
import type { Message } from '../../model/types.js';

/** What Claude Code sends for a call the user refused in its permission prompt (its REJECT_MESSAGE). */
export const REJECTED_TOOL_RESULT =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/** What Claude Code sends for a call the user cancelled (Esc) before it ran (its CANCEL_MESSAGE). */
export const CANCELLED_TOOL_RESULT =
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.";

/** The words Claude Code adds to its refusal for a call stopped while running, which is no refusal. */
const STOPPED_WHILE_RUNNING = 'Correction to the text above: this call was stopped while running';

/** `toolDenialKind`s that are a refusal; the rest (`interrupted`, `cancelled`) a cancellation. */
const REFUSED_KINDS = new Set([
  'user-rejected',
  'permission-rule',
  'automode-blocked',
  'automode-unavailable',
  'automode-parsing-error',
]);

/**
 * The mark of a result by its record's `toolDenialKind`, else (older versions) by its words. A call
 * the user stopped while it ran is cancelled whatever its kind: 2.1.332 records one (interrupted in
 * `-p`'s stream-json session) as `user-rejected` with its refusal's words and their correction.
 */
export function claudeDeclinedMark(kind: unknown, content: string): DeclinedMark | undefined {
  const refusalWords = content.startsWith("The user doesn't want to proceed with this tool use.");
  if (refusalWords && content.includes(STOPPED_WHILE_RUNNING)) return 'cancelled';
  if (typeof kind === 'string') return REFUSED_KINDS.has(kind) ? 'refused' : 'cancelled';
  if (content.startsWith("The user doesn't want to take this action right now.")) return 'cancelled';
  if (refusalWords) return 'refused';
  return undefined;
}

/** Marks a tool message's error results its record denied (the parse side). */
export function markClaudeDenials(msg: Message, kind: unknown): void {
  msg.parts = msg.parts.map((p) => {
    if (p.type !== 'tool_result' || p.isError !== true) return p;
    const mark = claudeDeclinedMark(kind, resultText(p.content));
    return mark ? markDeclined(p, mark) : p;
  });
}

/**
 * What a message keeps of a denial Claude Code recorded: its kind, to write back, and its words, so
 * that words another agent put in their place since (Qwen Code's, through a round trip) are not
 * taken for Claude Code's own (inClaudeWords).
 */
export function recordedDenial(msg: Message, kind: string): { toolDenialKind: string; toolDenialWords?: string } {
  const declined = msg.parts.find((p) => p.type === 'tool_result' && declinedMarkOf(p));
  return { toolDenialKind: kind, ...(declined?.type === 'tool_result' ? { toolDenialWords: resultText(declined.content) } : {}) };
}

/**
 * The `toolDenialKind` a record of a message's results gets (the write side): the one read from
 * Claude Code, else by the marks of its results when they all have the same one.
 */
export function denialKindOf(m: Message): string | undefined {
  const claude = m.meta?.claude as { toolDenialKind?: unknown } | undefined;
  if (typeof claude?.toolDenialKind === 'string') return claude.toolDenialKind;
  const results = m.parts.flatMap((p) => (p.type === 'tool_result' ? [declinedMarkOf(p)] : []));
  if (!results.length || results.some((r) => r !== results[0])) return undefined;
  return results[0] === 'refused' ? 'user-rejected' : results[0] === 'cancelled' ? 'cancelled' : undefined;
}

/**
 * A message's results as Claude Code words them: a refused or cancelled result in another agent's
 * words (Gemini CLI's "[Operation Cancelled] …") gets Claude Code's, which the model is then sent.
 */
export function inClaudeWords(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'tool_result' && declinedMarkOf(p))) return m;
  return {
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'tool_result') return p;
      const mark = declinedMarkOf(p);
      if (!mark || claudeDeclinedMark(undefined, resultText(p.content)) === mark) return p;
      const claude = m.meta?.claude as { toolDenialKind?: unknown; toolDenialWords?: unknown } | undefined;
      // Claude Code's own words for a denial it recorded (a permission rule's reason) stay, not another
      // agent's that replaced them since (a message read before the words were kept: as they are)
      const words = claude?.toolDenialWords;
      if (typeof claude?.toolDenialKind === 'string' && (words === undefined || words === resultText(p.content))) return p;
      return { ...p, isError: true, content: mark === 'refused' ? REJECTED_TOOL_RESULT : CANCELLED_TOOL_RESULT };
    }),
  };
}

/**
 * A message's results as another agent is to hold them (claude's sent wording): a call the user
 * stopped while it ran keeps Claude Code's words, its refusal and their correction (it may have run
 * in part, work it started may still run), without the `cancelled` mark, so the other agent sends its
 * model those words rather than its own for a call that did not run (which is all a cancelled mark
 * says), and back in Claude Code the words are the record's again, read as cancelled (claudeDeclinedMark).
 */
export function stoppedCallsInClaudeWords(m: Message): Message {
  const stopped = (p: Message['parts'][number]) =>
    p.type === 'tool_result' &&
    declinedMarkOf(p) === 'cancelled' &&
    resultText(p.content).startsWith(REJECTED_TOOL_RESULT) &&
    resultText(p.content).includes(STOPPED_WHILE_RUNNING);
  if (m.role === 'assistant' || !m.parts.some(stopped)) return m;
  return {
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'tool_result' || !stopped(p)) return p;
      const { cancelled: _c, ...meta } = p.meta ?? {};
      return { ...p, isError: true, meta };
    }),
  };
}
