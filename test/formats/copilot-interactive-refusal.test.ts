/**
 * A call the user rejected at Copilot CLI's interactive prompt (test/fixtures/copilot/rejected-1.0.102: the
 * real 1.0.102 in its terminal UI on a pseudo-terminal, "No, and tell Copilot what to do differently" with
 * the feedback "no thanks"): Copilot CLI records a failed `tool.execution_complete` whose error is
 * `{message: "The user rejected this tool call. User feedback: no thanks", code: "denied"}`, the words
 * denials.ts took from its binary; it reads as refused. A call the user interrupted while it ran (Esc Esc)
 * gets no result there, only an `abort`: it reads as cancelled in the words Copilot CLI sends on resume, no error.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import {
  COPILOT_DENIED_CODE,
  COPILOT_INTERRUPTED,
  COPILOT_REJECTED,
  copilotDeclinedMark,
} from '../../src/formats/copilot/denials.js';
import { initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import { resultText } from '../../src/model/tree.js';
import { toolResultsOf } from '../helpers/sessions.js';

const FIXTURE = resolve('test/fixtures/copilot/rejected-1.0.102');
const ID = 'aa0c5821-7165-403c-87c6-8d5567547cc6';
const INTERRUPTED = '5e9e3f07-dc4c-4efa-a81e-50c87dfa2b5b';
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
    const id = INTERRUPTED;
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

  it("the abort's result and the resumed turn's message go as two user messages, as Copilot CLI sends them", async () => {
    const driver = new CopilotDriver({ home: FIXTURE, env: { HOME: FIXTURE, COPILOT_HOME: `${FIXTURE}/.copilot` } });
    const request = contextToAnthropic(await driver.getContext(INTERRUPTED));
    const blocks = request.messages.map((m) => [m.role, (m.content as { type: string }[]).map((b) => b.type)]);
    expect(blocks).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['user', ['text']],
      ['assistant', ['text']],
    ]);
  });

  it('an abort read in an appended read (the state from the read before it) answers the call read before', async () => {
    const file = `${FIXTURE}/.copilot/session-state/${INTERRUPTED}/events.jsonl`;
    const text = await readFile(file, 'utf8');
    const dir = await mkdtemp(join(tmpdir(), 'tb-copilot-abort-'));
    try {
      const copy = join(dir, 'events.jsonl');
      const cut = text.indexOf('{"type":"abort"');
      await writeFile(copy, text.slice(0, cut));
      const before = await parseEvents(copy, initialState(INTERRUPTED, '2026-11-26T00:00:00.000Z'));
      expect(before.entries.some((e) => e.kind === 'message' && e.message.role === 'tool')).toBe(false);
      await writeFile(copy, text);
      // the index keeps the state as JSON between reads
      const state = JSON.parse(JSON.stringify(before.state)) as typeof before.state;
      const after = await parseEvents(copy, state, { start: before.offset });
      const results = after.entries.flatMap((e) =>
        e.kind === 'message' ? e.message.parts.filter((p) => p.type === 'tool_result') : [],
      );
      expect(results).toEqual([
        {
          type: 'tool_result',
          callId: 'toolu_standin_0029',
          name: 'bash',
          content: COPILOT_INTERRUPTED,
          meta: { cancelled: true },
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
