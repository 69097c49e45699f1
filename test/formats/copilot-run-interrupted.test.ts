/**
 * A sub-agent run the user interrupted (test/fixtures/copilot/interrupted-1.0.102, 330fb555-…: Esc Esc
 * while the run's own `bash` call ran; the real Copilot CLI 1.0.102 wrote the `abort`, then
 * `subagent.completed {cancelled: true}`, and no result for the run's call). The run's call is answered as
 * the main chain's interrupted calls are (Copilot CLI's words, cancelled, no error), in the run's side
 * chain and in the run's session, so `show` and an export do not list it as a call with no result.
 * Copilot CLI sends nothing of the run when it resumes: the session's context is unchanged.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import { CopilotDriver, copilotContext } from '../../src/formats/copilot/index.js';
import { SPAWNED_BY } from '../../src/model/side-chains.js';
import { buildContext, pairToolCalls } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';

const HOME = resolve('test/fixtures/copilot/interrupted-1.0.102/.copilot');
const SESSION = '330fb555-100e-405f-923d-c33039a3e2a9';
const RUN = 'ef491deb-7301-48f3-bb04-f2d8b8a027fa';
const TASK = 'toolu_standin_0006';
const RUN_CALL = 'toolu_standin_0007';

const driver = () => new CopilotDriver({ home: '/nonexistent', env: { COPILOT_HOME: HOME } });
const messages = (s: Session): Message[] => s.entries.flatMap((e) => (e.kind === 'message' ? [e.message] : []));

describe('a sub-agent run the user interrupted (real Copilot CLI 1.0.102)', () => {
  it("answers the run's own open call as interrupted in the session's side chain", async () => {
    const session = (await driver().getSession(SESSION)) as Session;
    const answer = session.entries.find(
      (e) => e.kind === 'message' && e.message.parts.some((p) => p.type === 'tool_result' && p.callId === RUN_CALL),
    );
    expect(answer?.sidechain).toBe(true);
    expect(answer?.kind === 'message' && answer.message.meta?.[SPAWNED_BY]).toBe(TASK);
    expect(answer?.kind === 'message' && answer.message.parts).toEqual([
      { type: 'tool_result', callId: RUN_CALL, name: 'bash', content: COPILOT_INTERRUPTED, meta: { cancelled: true } },
    ]);
    // after the run's call and its start, the run's last events
    const start = session.entries.find(
      (e) =>
        e.kind === 'metadata' && e.type === 'tool.execution_start' && (e.data as { toolCallId?: string }).toolCallId === RUN_CALL,
    );
    expect(start?.sidechain).toBe(true);
    expect(answer?.parentId).toBe(start?.id);
    expect(pairToolCalls(messages(session)).unanswered).toEqual([]);
    // resumed, Copilot CLI sends the main chain only: the task call interrupted, nothing of the run
    expect(JSON.stringify(copilotContext(session).messages)).not.toContain(RUN_CALL);
  });

  it('the run as a session of its own has its call answered so', async () => {
    const run = (await driver().getSession(RUN)) as Session;
    expect(run.parentId).toBe(SESSION);
    const ctx = buildContext(run).messages;
    expect(pairToolCalls(ctx).unanswered).toEqual([]);
    expect(ctx.at(-1)?.parts).toEqual([
      { type: 'tool_result', callId: RUN_CALL, name: 'bash', content: COPILOT_INTERRUPTED, meta: { cancelled: true } },
    ]);
  });
});
