/**
 * Continue's record of a call that did not run (cn 1.5.47, src/stream/streamChatResponse.helpers.ts
 * executeStreamedToolCalls): a call whose permission is refused gets its state `status: "canceled"` and
 * the output "Permission denied by user" (the user answered the TUI's prompt no — seen on a pty,
 * test/fixtures/continue/refused-interactive-1.5.47) or "Command blocked by
 * security policy" (its permission rules: an excluded tool, an `ask` tool in a headless run — seen); a
 * call stopped before it answered (the user interrupted) keeps a state without output, for which cn sends
 * "Tool cancelled" (core's convertFromUnifiedHistory). A command stopped while it ran keeps state `calling` and
 * its output so far, no words of cn's (seen): not marked. cn never puts those words in a `tool` item (1.5.47
 * writes none; 1.5.11 wrote one only for a call its preprocessing failed, with the error's text), so a `tool`
 * item is read by its content alone, unmarked.
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** cn's output for a call the user refused. */
export const PERMISSION_DENIED = 'Permission denied by user';
/** cn's output for a call its permission rules refused. */
export const BLOCKED_BY_POLICY = 'Command blocked by security policy';
/** What cn sends for a call whose state has no output (convertFromUnifiedHistory). */
export const TOOL_CANCELLED = 'Tool cancelled';

/** The mark of a result by its words (as cn records or sends them). */
export function continueDeclinedMark(text: string): DeclinedMark | undefined {
  if (text === PERMISSION_DENIED || text === BLOCKED_BY_POLICY) return 'refused';
  if (text === TOOL_CANCELLED) return 'cancelled';
  return undefined;
}
