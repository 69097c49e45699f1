/**
 * Codex's record of a call that did not run is a function_call_output (custom_tool_call_output) of
 * only its words; no field says why. The words, from openai/codex codex-rs/core and checked against
 * what codex 0.171 wrote when a client declined an approval and interrupted a running command (app-server):
 * - refused: the orchestrator's reason "rejected by user" (tools/orchestrator.rs), which the shell
 *   tools say as "exec command rejected by user" and apply_patch as "patch rejected by user"
 *   (tools/events.rs); 0.171's `exec_command` records its failure around it:
 *   `exec_command failed: CreateProcess { message: "Rejected(\"rejected by user\")" }`; an MCP call
 *   the user declined, "user rejected MCP tool call";
 * - cancelled: a call stopped by the user's interrupt, "aborted by user after 1.2s" or, for the shell
 *   tools, "Wall time: 1.2 seconds\naborted by user" (tools/parallel.rs); an MCP approval the user
 *   cancelled, "user cancelled MCP tool call" / "MCP tool call cancelled before approval"; and
 *   "aborted", the output codex gives a call that has none (normalize.rs).
 */
import type { DeclinedMark } from '../../convert/declined.js';

/** What threadbase writes for a refused call: the orchestrator's reason, as codex records it for a tool it does not reword. */
export const CODEX_REFUSED = 'rejected by user';
/** What threadbase writes for a cancelled call: codex's output for a call that never got one (no made-up duration). */
export const CODEX_CANCELLED = 'aborted';

const REFUSED = new Set([
  CODEX_REFUSED,
  'exec command rejected by user',
  'patch rejected by user',
  'user rejected MCP tool call',
]);
const CANCELLED = new Set([CODEX_CANCELLED, 'user cancelled MCP tool call', 'MCP tool call cancelled before approval']);
/** 0.171's unified exec (`exec_command`, `write_stdin`) wraps the orchestrator's rejection in its spawn error. */
const WRAPPED_REFUSAL = /^[a-z_]+ failed: CreateProcess \{ message: "Rejected\(\\"rejected by user\\"\)" \}$/;
const ABORTED_AFTER = /^aborted by user after \d+(\.\d+)?s$/;
const SHELL_ABORTED = /^Wall time: \d+(\.\d+)? seconds\naborted by user$/;

/** The mark of a codex tool output by its words (the whole output: a command's own output saying so is not one). */
export function codexDeclinedMark(text: string): DeclinedMark | undefined {
  if (REFUSED.has(text) || WRAPPED_REFUSAL.test(text)) return 'refused';
  if (CANCELLED.has(text) || ABORTED_AFTER.test(text) || SHELL_ABORTED.test(text)) return 'cancelled';
  return undefined;
}
