/**
 * OpenCode's (and Kilo CLI's, same words) record of a call that did not run: a tool part in state
 * `error` whose error is its permission error's message (PermissionRejectedError, CorrectedError with
 * the user's feedback, DeniedError for a `deny` rule) or, for a call the user aborted, "Tool
 * execution aborted" with `metadata.interrupted` (strings of opencode 1.x and kilo 7.7.7's binaries).
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** What OpenCode records (and sends) for a call the user refused in its permission prompt. */
export const REJECTED_TOOL_ERROR = 'The user rejected permission to use this specific tool call.';
/** What OpenCode records for a call it stopped when the user aborted the turn. */
export const ABORTED_TOOL_ERROR = 'Tool execution aborted';

const REFUSALS = [
  'The user rejected permission to use this specific tool call',
  'The user has specified a rule which prevents you from using this specific tool call',
];

/** The mark of an `error` tool state by its error and metadata. */
export function opencodeDeclinedMark(error: string, interrupted: boolean): DeclinedMark | undefined {
  if (REFUSALS.some((r) => error.startsWith(r))) return 'refused';
  if (interrupted || error === ABORTED_TOOL_ERROR) return 'cancelled';
  return undefined;
}
