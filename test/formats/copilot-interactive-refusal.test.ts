/**
 * A call the user rejected at Copilot CLI's interactive prompt (test/fixtures/copilot/rejected-1.0.102: the
 * real 1.0.102 in its terminal UI on a pseudo-terminal, "No, and tell Copilot what to do differently" with
 * the feedback "no thanks"): Copilot CLI records a failed `tool.execution_complete` whose error is
 * `{message: "The user rejected this tool call. User feedback: no thanks", code: "denied"}`, the words
 * denials.ts took from its binary; it reads as refused. A call the user interrupted while it ran (Esc Esc)
 * gets no result there, only an `abort`: it reads as cancelled in the words Copilot CLI sends on resume, no error.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import {
  COPILOT_DENIED_CODE,
  COPILOT_INTERRUPTED,
  COPILOT_REJECTED,
  copilotDeclinedMark,
} from '../../src/formats/copilot/denials.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { resultText } from '../../src/model/tree.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/copilot/rejected-1.0.102');
const ID = 'aa0c5821-7165-403c-87c6-8d5567547cc6';
const WRITTEN = 'The user rejected this tool call. User feedback: no thanks';

describe("Copilot CLI's interactive rejection (real 1.0.102)", () => {
  it('reads as refused in the words Copilot CLI wrote', async () => {
    const driver = new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });
    const results = toolResultsOf(await driver.getSession(ID));
    expect(results.map((r) => [resultText(r.content), r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [WRITTEN, true, true, undefined],
    ]);
    // the words alone (without the code) are the refusal too
    expect(WRITTEN.startsWith(COPILOT_REJECTED)).toBe(true);
    expect(copilotDeclinedMark(WRITTEN)).toBe('refused');
    expect(COPILOT_DENIED_CODE).toBe('denied');
  });
});

describe("Copilot CLI's interrupted call (real 1.0.102)", () => {
  // Copilot CLI writes no result for it (an `abort` after the approval) and, resumed, sends "The execution
  // of this tool, or a previous tool was interrupted." with no is_error (test/agents/copilot-interrupted.test.ts)
  it('a call the user interrupted while it ran (5e9e3f07-…, no tool.execution_complete) reads as cancelled in those words, no error', async () => {
    const driver = new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });
    const id = '5e9e3f07-dc4c-4efa-a81e-50c87dfa2b5b';
    const session = await driver.getSession(id);
    const results = toolResultsOf(session);
    expect(results.map((r) => [r.callId, r.name, resultText(r.content), r.isError, r.meta?.cancelled])).toEqual([
      ['toolu_standin_0029', 'bash', COPILOT_INTERRUPTED, undefined, true],
    ]);
    // the result stands where the abort was, on the main chain before the resumed turn
    const abort = session?.entries.find((e) => e.kind === 'message' && e.message.role === 'tool');
    expect((abort?.raw as { type?: string } | undefined)?.type).toBe('abort');
    const sent = (await driver.getContext(id)).messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'));
    expect(sent).toEqual([expect.objectContaining({ callId: 'toolu_standin_0029', content: COPILOT_INTERRUPTED })]);
    expect(sent[0]).not.toHaveProperty('isError');
  });
});
