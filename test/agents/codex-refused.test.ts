/**
 * Refused and cancelled calls and the real codex 0.171 (against the loopback Responses stand-in):
 * - its app-server, the client declining the approval of an escalated `exec_command` and then
 *   interrupting a running one, records them in its words (src/formats/codex/denials.ts): threadbase
 *   reads them as refused and cancelled; an escalation its automatic approval reviewer
 *   (`approvals_reviewer = "auto_review"`, the stand-in answering the review with a denial) denied reads as refused;
 * - Gemini CLI's refused and cancelled calls written into codex take codex's words ("rejected by
 *   user", "aborted"): resumed (`codex exec resume`), codex sends them so, as threadbase's context has them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEX_CANCELLED, CODEX_REFUSED } from '../../src/formats/codex/denials.js';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { openCodexAppServer } from '../helpers/codex-app-server.js';
import { promptOfRequest, type ResponsesItem, type ResponsesRule, shellCall } from '../helpers/openai-responses-standin.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

/** `ESCALATE: <cmd>`: the shell call asking to run outside the sandbox, which needs the user's approval. */
const escalate: ResponsesRule = (req) => {
  const m = /^ESCALATE: (.+)$/.exec(promptOfRequest(req) ?? '');
  const call = m ? shellCall(req, m[1] as string) : undefined;
  if (!call) return undefined;
  return {
    functionCall: { ...call, arguments: { ...call.arguments, sandbox_permissions: 'require_escalated', justification: 'write' } },
  };
};

/** The reviewer's review (it asks for strict JSON): a denial. */
const denyReview: ResponsesRule = (req) =>
  JSON.stringify(req.input).includes('your final message must be strict JSON')
    ? {
        text: JSON.stringify({
          risk_level: 'high',
          user_authorization: 'unknown',
          outcome: 'deny',
          rationale: 'Writes outside the sandbox without the user asking.',
        }),
      }
    : undefined;

let home: CodexAgentHome;
/** codex whose automatic approval reviewer, not the user, answers approval requests */
let reviewed: CodexAgentHome;
let driver: CodexDriver;
beforeAll(async () => {
  home = await setupCodexAgentHome({ responsesRules: [escalate] });
  reviewed = await setupCodexAgentHome({
    responsesRules: [denyReview, escalate],
    codexConfig: { extra: ['approvals_reviewer = "auto_review"'] },
  });
  driver = new CodexDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
  await reviewed?.close();
});

/**
 * One thread on codex's app-server in `h` (read-only sandbox, approvals on request): a turn whose escalated
 * command the client declines (or codex's reviewer denies), then, with `interrupt`, a turn whose running
 * command it interrupts. The thread's id.
 */
async function declineThenInterrupt(h: CodexAgentHome = home, interrupt = true): Promise<string> {
  // an approval request: the user says no
  const { call, notice, close } = await openCodexAppServer(
    { cwd: h.project, home: h.root, codexHome: h.codexHome },
    { onRequest: () => ({ decision: 'decline' }) },
  );
  try {
    const started = await call('thread/start', { cwd: h.project, approvalPolicy: 'on-request', sandbox: 'read-only' });
    const threadId = (started.thread as { id: string }).id;
    let completed = notice('turn/completed');
    await call('turn/start', { threadId, input: [{ type: 'text', text: 'ESCALATE: touch made.txt' }] });
    await completed;
    if (!interrupt) return threadId;
    completed = notice('turn/completed');
    const running = notice('item/started');
    const turn = await call('turn/start', { threadId, input: [{ type: 'text', text: 'RUN: sleep 30' }] });
    await running;
    await new Promise((r) => setTimeout(r, 1000));
    await call('turn/interrupt', { threadId, turnId: (turn.turn as { id: string }).id });
    await completed;
    return threadId;
  } finally {
    await close();
  }
}

const outputs = (items: readonly ResponsesItem[]) =>
  items.filter((i) => i.type === 'function_call_output').map((i) => ({ call_id: i.call_id, output: i.output }));

describe('refused calls and the real codex', () => {
  it('a call whose approval the user declined reads as refused, one the user interrupted as cancelled', async () => {
    const id = await declineThenInterrupt();
    const s = await driver.getSession(id);
    expect(toolResultsOf(s).map((r) => [r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [true, true, undefined],
      [true, undefined, true],
    ]);
  }, 120_000);

  it("a call codex's automatic approval reviewer denied reads as refused", async () => {
    const id = await declineThenInterrupt(reviewed, false);
    const s = await new CodexDriver(reviewed.env).getSession(id);
    expect(toolResultsOf(s).map((r) => [r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([[true, true, undefined]]);
    expect(toolResultsOf(s)[0]?.content).toContain('This action was rejected due to unacceptable risk.');
  }, 120_000);

  it("Gemini CLI's refused and cancelled calls are written in codex's words and resumed so", async () => {
    const session = geminiDeclinedSession({
      project: home.project,
      model: 'gemini-2.5-pro',
      tool: 'run_shell_command',
      cancelledToo: true,
    });
    const info = await driver.writeSession(session);
    const written = await driver.getSession(info.id);
    const ours = outputs(contextToResponses(buildContext(written as Session)).input);
    expect(ours).toEqual([
      { call_id: 'call_a', output: CODEX_REFUSED },
      { call_id: 'call_b', output: CODEX_CANCELLED },
    ]);
    const mark = home.responses.responseRequests().length;
    await home.codex(['resume', info.id, 'probe gemini refusal']);
    const req = home.responses
      .responseRequests()
      .slice(mark)
      .find((r) => promptOfRequest(r) === 'probe gemini refusal');
    if (!req) throw new Error('codex sent no request for the probe');
    expect(outputs(req.input)).toEqual(ours);
  }, 120_000);
});
