/**
 * Qwen Code's record of a call that did not run (0.24.4, its CoreToolScheduler, a Gemini CLI fork): a
 * `tool_result` record of status `cancelled` whose functionResponse error is
 * `[Operation Cancelled] Reason: <reason>` (createCancelledResponse): "User did not allow tool call"
 * when the user declined it (or the host's words for its refusal; seen from the real 0.24.4 on a pty, Esc at its
 * prompt: test/fixtures/qwen/refused-0.24.4), "Tool call cancelled by user." /
 * "Tool call cancelled before execution." / "User intentionally cancelled this tool call. …" / "The tool
 * had already completed; its output was discarded. User intentionally cancelled. …" (seen: Esc while a
 * command ran) when it was aborted. A call the permission settings refuse is status `error` (errorType `execution_denied`)
 * of its own words: "This "<tool>" invocation was denied by permission rules. …", "Tool "<tool>" is
 * denied…", "Qwen Code requires permission to use "<tool>", but that permission was declined
 * (non-interactive mode cannot prompt for confirmation).", "Permission denied by hook for "<tool>"".
 */
import type { DeclinedMark } from '../../convert/declined.js';

const CANCELLED_PREFIX = '[Operation Cancelled] Reason: ';
/** what Qwen Code's cancellation of a `tool_call` bridge call starts with (DEFERRED_TOOL_CALL_CANCELLATION_PREFIX) */
const BRIDGE_PREFIX = '[tool_call bridge cancelled] ';

/** The reason Qwen Code records when the user declines a call (handleConfirmationResponse). */
export const QWEN_REFUSED_REASON = 'User did not allow tool call';
/** The reason Qwen Code records for a call the user's abort stopped before it ran. */
export const QWEN_CANCELLED_REASON = 'Tool call cancelled by user.';
export const QWEN_REFUSED_RESULT = `${CANCELLED_PREFIX}${QWEN_REFUSED_REASON}`;
export const QWEN_CANCELLED_RESULT = `${CANCELLED_PREFIX}${QWEN_CANCELLED_REASON}`;

/** Reasons of a cancellation no one refused: an abort (Qwen Code's, and Gemini CLI's before it), a stale approval. */
const ABORT_REASONS = [
  QWEN_CANCELLED_REASON,
  'Tool call cancelled before execution.',
  'User intentionally cancelled this tool call.',
  'The tool had already completed; its output was discarded. User intentionally cancelled.',
  'Plan-mode shell approval is no longer valid',
  'User cancelled operation',
];

/** A permission check's refusal, in the words Qwen Code records it with. */
const PERMISSION_REFUSALS = [
  /^This ".*" invocation was denied by permission rules\./s,
  /^Tool ".*" is denied[.:]/s,
  /^Qwen Code requires permission to use ".*", but that permission was declined/s,
  /^Permission denied by hook for "/,
];

/** Whether a result's words are Qwen Code's for a cancelled call (recorded with status `cancelled`), not a permission check's. */
export function qwenCancelledWords(text: string): boolean {
  let t = text.trim();
  if (t.startsWith(BRIDGE_PREFIX)) t = t.slice(BRIDGE_PREFIX.length);
  return t.startsWith(CANCELLED_PREFIX);
}

/** The mark of an error result by Qwen Code's words for it, else undefined. */
export function qwenDeclinedMark(text: string): DeclinedMark | undefined {
  let t = text.trim();
  if (t.startsWith(BRIDGE_PREFIX)) t = t.slice(BRIDGE_PREFIX.length);
  if (t.startsWith(CANCELLED_PREFIX)) {
    const reason = t.slice(CANCELLED_PREFIX.length);
    // a failure hook may add its context after the reason
    return ABORT_REASONS.some((r) => reason.startsWith(r)) ? 'cancelled' : 'refused';
  }
  return PERMISSION_REFUSALS.some((r) => r.test(t)) ? 'refused' : undefined;
}

/** The words Qwen Code records for a call of this mark. */
export const qwenDeclinedResult = (mark: DeclinedMark): string =>
  mark === 'refused' ? QWEN_REFUSED_RESULT : QWEN_CANCELLED_RESULT;
