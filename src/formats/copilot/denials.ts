/**
 * Copilot CLI's record of a call that did not run (1.0.102; its runtime's words, seen in its binary
 * and, for the permission denials, in the events the real `copilot -p` wrote): a
 * `tool.execution_complete` with `success: false` and an `error {message, code}`. A permission it
 * refused has `code: "denied"` ("Permission to run this tool was denied due to the following rules:
 * `shell(touch)`", "Permission denied because no interactive user response was available. …"); the
 * user's refusal at its prompt is "The user rejected this tool call" (". User feedback: …" after it
 * when they gave one; code `denied`: seen from the real CLI on a pty, test/fixtures/copilot/rejected-1.0.102); a call the user interrupted "The execution of this tool, or a previous tool was
 * interrupted." (an interrupt of the real CLI writes no result at all, only an `abort`: it makes up these
 * words, no is_error, when resumed; events.ts reads them so; see the fixture's README).
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** Copilot CLI's error code of a call a permission check or the user refused. */
export const COPILOT_DENIED_CODE = 'denied';
/** The error Copilot CLI records when the user rejects a call at its permission prompt. */
export const COPILOT_REJECTED = 'The user rejected this tool call';
/** The error Copilot CLI records for a call the user interrupted. */
export const COPILOT_INTERRUPTED = 'The execution of this tool, or a previous tool was interrupted.';

const REFUSALS = [
  COPILOT_REJECTED,
  'The tool execution was denied by the user.',
  'Permission to run this tool was denied',
  'Permission denied because',
  'Permission denied and could not request permission from user',
  'Denied by user via preToolUse hook prompt',
];
const CANCELLATIONS = [
  COPILOT_INTERRUPTED,
  'The pending permission request was cancelled before the tool could continue.',
  'Operation cancelled by user',
  'Tool call was cancelled',
];

/** The mark of a failed result by Copilot CLI's words (and error code) for it, else undefined. */
export function copilotDeclinedMark(text: string, code?: string): DeclinedMark | undefined {
  if (code === COPILOT_DENIED_CODE) return 'refused';
  const t = text.trim();
  if (REFUSALS.some((w) => t.startsWith(w))) return 'refused';
  if (CANCELLATIONS.some((w) => t.startsWith(w))) return 'cancelled';
  return undefined;
}

/** The error Copilot CLI records for a call of this mark. */
export function copilotDeclinedError(mark: DeclinedMark): { message: string; code?: string } {
  return mark === 'refused' ? { message: COPILOT_REJECTED, code: COPILOT_DENIED_CODE } : { message: COPILOT_INTERRUPTED };
}
