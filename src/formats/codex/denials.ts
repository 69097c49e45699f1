/**
 * Codex's record of a call that did not run is a function_call_output (custom_tool_call_output) of
 * only its words; no field says why. The words, from openai/codex codex-rs/core and checked against
 * what codex 0.171 wrote when a client declined an approval and interrupted a running command (app-server):
 * - refused: the orchestrator's reason "rejected by user" (tools/orchestrator.rs), which the shell
 *   tools say as "exec command rejected by user" and apply_patch as "patch rejected by user"
 *   (tools/events.rs); 0.171's `exec_command` records its failure around it:
 *   `exec_command failed: CreateProcess { message: "Rejected(\"rejected by user\")" }`; an MCP call
 *   the user declined, "user rejected MCP tool call"; a call codex's automatic approval reviewer (guardian,
 *   `approvals_reviewer = "auto_review"`) denied, "This action was rejected due to unacceptable risk.\nReason:
 *   <its rationale>\n<instructions>" (core guardian guardian_rejection_message), which `exec_command` wraps the
 *   same way (checked against what codex 0.171 recorded: test/fixtures/codex/auto-review-home);
 * - cancelled: a call stopped by the user's interrupt, "aborted by user after 1.2s" or, for the shell
 *   tools, "Wall time: 1.2 seconds\naborted by user" (tools/parallel.rs); an MCP approval the user
 *   cancelled, "user cancelled MCP tool call" / "MCP tool call cancelled before approval"; "aborted", the
 *   output codex gives a call that has none (normalize.rs); and a call the automatic approval reviewer
 *   did not decide: its review timed out (ReviewDecision::TimedOut, "The automatic permission approval review
 *   did not finish before its deadline. …") or failed ("Automatic approval review failed: <error>\nThe action was
 *   not executed because automatic approval review could not be completed. …", ext/guardian-reviewer
 *   completion.rs). The call did not run, but nothing refused it: codex's words say it is "not a determination
 *   that the action is unsafe" and its denial count leaves them out, so they are not a refusal.
 * 0.171 records an MCP call's result, a refusal or cancellation too, as two texts: "Wall time: 0.0035
 * seconds\nOutput:" and then its words (checked against what it recorded: test/fixtures/codex/auto-review-outcomes-home).
 * The async reviewer (ext/guardian-v2 async_scorer/action.rs, read from 0.171's binary) says a review it could not apply
 * because the authorization changed meanwhile as "Automatic approval review failed: authorization changed before approval
 * could be applied\n<AUTHORIZATION_CHANGED>": "not a policy denial", so cancelled like a failed review.
 * Code mode (the gpt-6 models' `tool_mode = "code_mode_only"`: one `exec` tool whose script calls the others) records a
 * script that a nested call's error ended as texts: "Script failed\nWall time 0.1 seconds\nOutput:\n", what the script
 * printed, and "Script error:\n<the nested call's error>" (core tools/code_mode/mod.rs; the error is the string the call
 * failed with, unchanged: code-mode runtime/module_loader.rs). A refused nested call makes the whole cell refused.
 */
import type { DeclinedMark } from '../../convert/declined.js';
import type { ToolResultPart } from '../../model/types.js';

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
const ABORTED_AFTER = /^aborted by user after \d+(\.\d+)?s$/;
const SHELL_ABORTED = /^Wall time: \d+(\.\d+)? seconds\naborted by user$/;
/**
 * What codex's guardian tells the model after its reason for a denial: its default (core guardian
 * GUARDIAN_REJECTION_INSTRUCTIONS), or the model's own `rejection_instructions` (0.171's bundled models.json:
 * the gpt-6 models' two).
 */
const GUARDIAN_INSTRUCTIONS = [
  'The agent must not attempt to achieve the same outcome via workaround, indirect execution, or policy circumvention. ' +
    'Proceed only with a materially safer alternative, or if the user explicitly approves the action after being informed ' +
    'of the risk. Otherwise, stop and request user input.',
  'Do not bypass this rejection through a workaround or indirect execution. Continue with a safer alternative, or carry ' +
    'out checks to prove that the action is authorized or low risk before trying again. Complete unaffected work without ' +
    'asking for confirmation. Report anything that remains blocked, clarify why it was blocked by auto-review, inform the ' +
    'user of the risk and ask for approval.',
  'Do not bypass this rejection through a workaround or indirect execution. Continue with any materially safer ' +
    'alternative and complete unaffected work without asking for confirmation. Report anything that remains blocked, and ' +
    'ask for explicit approval only if completion requires the rejected action, after explaining its specific risk.',
];
const GUARDIAN_REJECTED = 'This action was rejected due to unacceptable risk.\nReason: ';

/** What codex tells the model when its reviewer's review did not finish in time (prompts model_messages guardian). */
const REVIEW_TIMED_OUT =
  'The automatic permission approval review did not finish before its deadline. Do not assume the action is unsafe ' +
  'based on the timeout alone. You may retry once, or ask the user for guidance or explicit approval.';
/** What codex tells the model after the error of a review that could not be completed (guardian-reviewer completion.rs). */
const REVIEW_FAILED = 'Automatic approval review failed: ';
const REVIEW_FAILURE_INSTRUCTIONS =
  'The action was not executed because automatic approval review could not be completed. This is a review failure, ' +
  'not a determination that the action is unsafe. Do not bypass the approval check; resolve the error or ask the user for guidance.';

/** What the async reviewer tells the model after a failure whose cause is a change of authorization (guardian-v2). */
const AUTHORIZATION_CHANGED =
  'The action did not run. Guardian could not complete its review because authorization changed; this is not a policy ' +
  'denial. If current instructions authorize the action, retry once through Guardian. If authorization is unclear, ' +
  'resolve that uncertainty before proceeding. Do not bypass approval or repeatedly retry a failed review.';

/** Whether `text` is the reviewer's timeout or failure: the call did not run, and it was no denial. */
function isUndecidedReview(text: string): boolean {
  if (text === REVIEW_TIMED_OUT) return true;
  if (!text.startsWith(REVIEW_FAILED)) return false;
  return text.endsWith(`\n${REVIEW_FAILURE_INSTRUCTIONS}`) || text.endsWith(`\n${AUTHORIZATION_CHANGED}`);
}

/** Whether `text` is a rejection in the orchestrator's words: the user's, or codex's automatic approval reviewer's. */
function isRejection(text: string): boolean {
  if (REFUSED.has(text)) return true;
  return text.startsWith(GUARDIAN_REJECTED) && GUARDIAN_INSTRUCTIONS.some((i) => text.endsWith(`\n${i}`));
}

/** 0.171's unified exec (`exec_command`, `write_stdin`) wraps the orchestrator's rejection in its spawn error, Debug-formatted twice. */
const SPAWN_ERROR = /^[a-z_]+ failed: CreateProcess \{ message: "([\s\S]*)" \}$/;
const REJECTED_ERROR = /^Rejected\("([\s\S]*)"\)$/;
const DEBUG_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', '\\': '\\', '"': '"', "'": "'" };

/** A string as Rust's Debug formatting escaped it, unescaped. */
function unescapeDebug(s: string): string {
  return s.replace(/\\(u\{[0-9a-fA-F]+\}|.)/g, (all, e: string) =>
    e.startsWith('u{') ? String.fromCodePoint(Number.parseInt(e.slice(2, -1), 16)) : (DEBUG_ESCAPES[e] ?? all),
  );
}

/** The rejection unified exec's spawn error carries, if it is one. */
function wrappedRejection(text: string): string | undefined {
  const spawn = SPAWN_ERROR.exec(text);
  const rejected = spawn ? REJECTED_ERROR.exec(unescapeDebug(spawn[1] as string)) : null;
  return rejected ? unescapeDebug(rejected[1] as string) : undefined;
}

/** The mark of a codex tool output's words (the whole output: a command's own output saying so is not one). */
function markOfText(text: string): DeclinedMark | undefined {
  if (isRejection(text)) return 'refused';
  const wrapped = wrappedRejection(text);
  if (wrapped !== undefined && isRejection(wrapped)) return 'refused';
  if (isUndecidedReview(text) || (wrapped !== undefined && isUndecidedReview(wrapped))) return 'cancelled';
  if (CANCELLED.has(text) || ABORTED_AFTER.test(text) || SHELL_ABORTED.test(text)) return 'cancelled';
  return undefined;
}

/** The header 0.171 puts before an MCP call's result, a text of its own. */
const MCP_WALL_TIME = /^Wall time: \d+(\.\d+)? seconds\nOutput:$/;
/**
 * The header of a code-mode cell that ended with an error, a text of its own (core tools/code_mode
 * prepend_script_status); 0.171's binary has it with the time split too: "Wall time 0.4 seconds (code-mode
 * 0.3 seconds; overhead 0.1 seconds)".
 */
const SCRIPT_FAILED =
  /^Script failed\nWall time \d+(\.\d+)? seconds( \(code-mode \d+(\.\d+)? seconds; overhead \d+(\.\d+)? seconds\))?\nOutput:\n/;
const SCRIPT_ERROR = 'Script error:\n';

/** The error a failed code-mode cell ended with, from its texts, if they are one. */
function scriptError(texts: readonly string[]): string | undefined {
  const [header, ...more] = texts;
  if (header === undefined || !SCRIPT_FAILED.test(header)) return undefined;
  const last = more.at(-1);
  if (last !== undefined) return last.startsWith(SCRIPT_ERROR) ? last.slice(SCRIPT_ERROR.length) : undefined;
  // one text: the cell's texts joined by newlines, as threadbase writes a result of texts only
  const at = header.lastIndexOf(`\n${SCRIPT_ERROR}`);
  return at < 0 ? undefined : header.slice(at + 1 + SCRIPT_ERROR.length);
}

/**
 * The mark of a codex tool output by its words: a text, or a result's content, where an MCP call's
 * words follow its wall-time header as a second text.
 */
export function codexDeclinedMark(output: string | ToolResultPart['content']): DeclinedMark | undefined {
  const texts = typeof output === 'string' ? [output] : output.flatMap((c) => (c.type === 'text' ? [c.text] : []));
  const error = scriptError(texts);
  if (error !== undefined) return markOfText(error);
  if (typeof output === 'string') return markOfText(output);
  const [header, words, ...rest] = output;
  if (header?.type === 'text' && MCP_WALL_TIME.test(header.text) && words?.type === 'text' && rest.length === 0)
    return markOfText(words.text);
  return markOfText(texts.join('\n'));
}
