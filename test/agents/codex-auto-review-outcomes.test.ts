/**
 * The real codex 0.171 app-server (read-only sandbox, approvals on request) against the loopback Responses
 * stand-in, one call a thread, as test/fixtures/codex/auto-review-outcomes-home was recorded:
 * - its automatic approval reviewer (`approvals_reviewer = "auto_review"`) not deciding an escalated
 *   `exec_command`: its review answered by no JSON (a failed review) or out of time (`[auto_review]
 *   timeout_ms = 1`): the call did not run and was not refused, so it reads as cancelled;
 * - an MCP call (`default_tools_approval_mode = "prompt"`) the reviewer denied, or the user declined, reads as
 *   refused; one whose review failed, or whose approval the user cancelled, as cancelled (0.171 records an MCP
 *   call's result as a wall-time header and then its words: src/formats/codex/denials.ts).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { resultText } from '../../src/model/tree.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { openCodexAppServer } from '../helpers/codex-app-server.js';
import { addCodexMcpProbe } from '../helpers/codex-mcp-probe.js';
import { promptOfRequest, type ResponsesRequest, type ResponsesRule, shellCall } from '../helpers/openai-responses-standin.js';
import { toolResultsOf } from '../helpers/sessions.js';

/** `ESCALATE: <cmd>`: a shell call asking to run outside the sandbox; `MCP`: a call of the probe's `echo`. */
const calls: ResponsesRule = (req) => {
  const prompt = promptOfRequest(req) ?? '';
  if (prompt === 'MCP') return { functionCall: { name: 'echo', namespace: 'mcp__probe', arguments: { text: 'hi' } } };
  const m = /^ESCALATE: (.+)$/.exec(prompt);
  const call = m ? shellCall(req, m[1] as string) : undefined;
  return call && { functionCall: { ...call, arguments: { ...call.arguments, sandbox_permissions: 'require_escalated' } } };
};
/** The reviewer's review (it asks for strict JSON). */
const isReview = (req: ResponsesRequest) => JSON.stringify(req.input).includes('your final message must be strict JSON');
const reviewAnswer =
  (text: string): ResponsesRule =>
  (req) =>
    isReview(req) ? { text } : undefined;
const DENY = JSON.stringify({ risk_level: 'high', user_authorization: 'unknown', outcome: 'deny', rationale: 'Too risky.' });

const homes: CodexAgentHome[] = [];
afterAll(async () => {
  for (const h of homes) await h.close();
});

async function home(opts: { review?: string; reviewer?: boolean; timeoutMs?: number; mcp?: boolean }): Promise<CodexAgentHome> {
  const h = await setupCodexAgentHome({
    responsesRules: [reviewAnswer(opts.review ?? DENY), calls],
    codexConfig: { extra: opts.reviewer === false ? [] : ['approvals_reviewer = "auto_review"'] },
  });
  homes.push(h);
  if (opts.timeoutMs !== undefined)
    await fs.appendFile(join(h.codexHome, 'config.toml'), `\n[auto_review]\ntimeout_ms = ${opts.timeoutMs}\n`);
  if (opts.mcp) {
    await addCodexMcpProbe(h.codexHome, h.root);
    await fs.appendFile(join(h.codexHome, 'config.toml'), 'default_tools_approval_mode = "prompt"\n');
  }
  return h;
}

/** One turn of `prompt` on a new app-server thread; approval requests the user answers with `answer`. The thread's id. */
async function oneTurn(h: CodexAgentHome, prompt: string, answer: 'decline' | 'cancel' = 'decline'): Promise<string> {
  const { call, notice, close } = await openCodexAppServer(
    { cwd: h.project, home: h.root, codexHome: h.codexHome },
    // an MCP call's approval is an elicitation (accept / decline / cancel); a command's, a decision
    { onRequest: (m) => (m.method === 'mcpServer/elicitation/request' ? { action: answer } : { decision: answer }) },
  );
  try {
    const started = await call('thread/start', { cwd: h.project, approvalPolicy: 'on-request', sandbox: 'read-only' });
    const threadId = (started.thread as { id: string }).id;
    const completed = notice('turn/completed');
    await call('turn/start', { threadId, input: [{ type: 'text', text: prompt }] });
    await completed;
    return threadId;
  } finally {
    await close();
  }
}

/** The one tool result of the thread: [isError, refused, cancelled] and its text. */
async function result(h: CodexAgentHome, id: string) {
  const results = toolResultsOf(await new CodexDriver(h.env).getSession(id));
  expect(results).toHaveLength(1);
  const [r] = results;
  return { marks: [r?.isError, r?.meta?.refused, r?.meta?.cancelled], text: r ? resultText(r.content) : '' };
}

describe("codex 0.171's reviewer undecided, and MCP calls refused or cancelled", () => {
  it('a command whose review failed, or timed out, reads as cancelled', async () => {
    const failed = await home({ review: 'not json at all' });
    const r1 = await result(failed, await oneTurn(failed, 'ESCALATE: touch made.txt'));
    expect(r1.text).toContain('Automatic approval review failed: ');
    expect(r1.marks).toEqual([true, undefined, true]);
    const late = await home({ timeoutMs: 1 });
    const r2 = await result(late, await oneTurn(late, 'ESCALATE: touch made.txt'));
    expect(r2.text).toContain('did not finish before its deadline');
    expect(r2.marks).toEqual([true, undefined, true]);
  }, 180_000);

  it('an MCP call the reviewer denied reads as refused, one whose review failed as cancelled', async () => {
    const denied = await home({ mcp: true });
    const r1 = await result(denied, await oneTurn(denied, 'MCP'));
    expect(r1.text).toContain('This action was rejected due to unacceptable risk.');
    expect(r1.marks).toEqual([true, true, undefined]);
    const failed = await home({ mcp: true, review: 'not json at all' });
    const r2 = await result(failed, await oneTurn(failed, 'MCP'));
    expect(r2.text).toContain('Automatic approval review failed: ');
    expect(r2.marks).toEqual([true, undefined, true]);
  }, 180_000);

  it('an MCP call the user declined reads as refused, one the user cancelled as cancelled', async () => {
    const h = await home({ mcp: true, reviewer: false });
    const r1 = await result(h, await oneTurn(h, 'MCP', 'decline'));
    expect(r1.text).toContain('user rejected MCP tool call');
    expect(r1.marks).toEqual([true, true, undefined]);
    const r2 = await result(h, await oneTurn(h, 'MCP', 'cancel'));
    expect(r2.text).toContain('user cancelled MCP tool call');
    expect(r2.marks).toEqual([true, undefined, true]);
  }, 180_000);
});
