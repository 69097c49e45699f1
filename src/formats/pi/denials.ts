/**
 * pi's record of a call that did not run is a toolResult with `isError` and only its words: pi has no
 * permission prompt of its own; an extension refuses a call from its `tool_call` handler with
 * `{block: true, reason}` (pi-agent-core's beforeToolCall: the reason, else "Tool execution was
 * blocked"; pi's permission-gate example and docs: "Blocked by user"), and a call the user aborts
 * (Esc) fails with "Operation aborted" (bash: its output then "Command aborted").
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** The reason pi's documented permission gate records when the user refuses a call. */
export const BLOCKED_BY_USER = 'Blocked by user';
/** pi-agent-core's result for a call an extension blocked without a reason. */
export const BLOCKED_TOOL_RESULT = 'Tool execution was blocked';
/** What pi's tools fail with when the user aborts them. */
export const ABORTED_TOOL_RESULT = 'Operation aborted';

/** The mark of an error result by its words. */
export function piDeclinedMark(text: string): DeclinedMark | undefined {
  const t = text.trim();
  if (t === BLOCKED_BY_USER || t === BLOCKED_TOOL_RESULT) return 'refused';
  if (t === ABORTED_TOOL_RESULT || t === 'Command aborted' || t.endsWith('\n\nCommand aborted')) return 'cancelled';
  return undefined;
}
