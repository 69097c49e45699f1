/**
 * Cline's record of a call that did not run: when a call's approval is not granted, @cline/agents'
 * runtime (prepareToolExecution) skips it with `${reason ?? "Tool was not executed"} -- ${suffix}` and
 * records the error result `{"error": <that>}` (its JSON text, `is_error`). The CLI's TUI gives the reason
 * "This tool call was rejected by the user and not executed." when the user denies it ([n] Deny, or
 * dismissing the prompt); a headless run with `--auto-approve false` "Tool \"<name>\" requires approval
 * in a TTY session"; no reason at all when no one was asked (the UI closing while calls wait). Checked
 * against the real cline 3.0.65 (@cline/shared 0.0.86, its constants below).
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** @cline/shared's suffix of every call whose approval was not granted. */
export const CLINE_NOT_APPROVED_SUFFIX = 'NOT a tool or system failure. Clarify with user before proceeding.';
/** @cline/shared's reason for a call the user denied. */
export const CLINE_REJECTED = 'This tool call was rejected by the user and not executed.';
/** The runtime's reason for a call not approved with no reason given: dropped, not refused. */
export const CLINE_NOT_EXECUTED = 'Tool was not executed';

/** The error text Cline records (as `{"error": …}`) for a call not approved for `reason`. */
export const clineSkipped = (reason: string): string => `${reason} -- ${CLINE_NOT_APPROVED_SUFFIX}`;

/** A refused or cancelled call's result content as Cline records one (a string: its JSON text). */
export function clineDeclinedContent(mark: DeclinedMark): string {
  return JSON.stringify({ error: clineSkipped(mark === 'refused' ? CLINE_REJECTED : CLINE_NOT_EXECUTED) });
}

/** Cline's words for a call left without a result (BF in @cline/core's message builder). */
export const CLINE_MISSING_RESULT = 'Tool execution was interrupted before a result was produced.';

/** The text block Cline answers a call left without a result with (addMissingToolResults). */
export const clineMissingResultBlock = (name: string | undefined): { type: 'text'; text: string } => ({
  type: 'text',
  text: name ? `${CLINE_MISSING_RESULT} Tool: ${name}.` : CLINE_MISSING_RESULT,
});

/**
 * @cline/core's run_commands result for a command the run's abort stopped (the user's Esc in the terminal
 * UI, Ctrl-C in a headless run): `{query, result: "", error: "Command failed: Command was aborted",
 * success: false}`, the tool's own record (no `is_error`).
 */
export const CLINE_COMMAND_ABORTED = 'Command failed: Command was aborted';

/**
 * Whether a tool's recorded JSON is run_commands' for commands every one of which the abort stopped: the
 * call interrupted before any of it ran to an end (one that finished some commands ran, and is no mark).
 */
export function clineAbortedCommands(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        (c as { error?: unknown }).error === CLINE_COMMAND_ABORTED &&
        (c as { success?: unknown }).success === false &&
        (c as { result?: unknown }).result === '',
    )
  );
}

/**
 * The mark of a result's text: Cline's record of a call whose approval was not granted (an error), of
 * commands the user's abort stopped (cancelled: clineAbortedCommands), or its answer to a call its run left
 * without a result (cancelled: its block's text).
 */
export function clineDeclinedMark(text: string): DeclinedMark | undefined {
  if (text.startsWith(CLINE_MISSING_RESULT)) return 'cancelled';
  let error: unknown;
  try {
    const json: unknown = JSON.parse(text);
    if (clineAbortedCommands(json)) return 'cancelled';
    error = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as { error?: unknown }).error : undefined;
  } catch {
    return undefined;
  }
  if (typeof error !== 'string' || !error.endsWith(` -- ${CLINE_NOT_APPROVED_SUFFIX}`)) return undefined;
  return error === clineSkipped(CLINE_NOT_EXECUTED) ? 'cancelled' : 'refused';
}
