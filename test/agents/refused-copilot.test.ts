/**
 * Refused and cancelled calls and the real GitHub Copilot CLI (@github/copilot 1.0.102, offline against
 * the Anthropic stand-in):
 * - a call its permission rules deny (`--deny-tool 'shell(touch)'`) Copilot CLI records as a failed
 *   `tool.execution_complete` with `error.code: "denied"` and its words for it: it reads as refused, and
 *   resumed (`copilot --resume=<id> -p …`), Copilot CLI sends it as threadbase's context has it;
 * - another agent's refused and cancelled calls written into Copilot CLI become its own ("The user
 *   rejected this tool call", code `denied` / "The execution of this tool, or a previous tool was
 *   interrupted."): read back marked so, and resumed, Copilot CLI sends those words.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { COPILOT_INTERRUPTED, COPILOT_REJECTED } from '../../src/formats/copilot/denials.js';
import { resultText } from '../../src/model/tree.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import {
  copilotHomeForFile,
  COPILOT_MODEL as MODEL,
  plainTextResults,
  resumedByCopilot,
  runCopilot,
  COPILOT_SKIP as SKIP,
} from '../helpers/copilot.js';
import { declinedCallsSession, declinedResult, toolResultsOf } from '../helpers/sessions.js';

// the stand-in's default replies, a cut "Tool finished: …" ending in a space among them: Copilot CLI resends them trimmed, as threadbase's context has them
const home = copilotHomeForFile('tb-copilot-refused-');

/** Resumes session `id` with `probe`: the messages Copilot CLI sent before it, and threadbase's context of the session. */
const resumed = (id: string, probe: string) => resumedByCopilot(home, id, probe, plainTextResults);

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await home.driver.getSession(id));
}

describe.skipIf(SKIP)('refused calls and the real Copilot CLI', () => {
  it('a call its permission rules denied reads as refused and is resumed as threadbase says', async () => {
    await runCopilot(home, ['-p', 'RUN: touch made.txt', '--allow-all-tools', '--deny-tool', 'shell(touch)']);
    expect(existsSync(join(home.project, 'made.txt'))).toBe(false);
    const [listed] = await home.driver.listSessions();
    if (!listed) throw new Error('no session');
    const [result] = await results(listed.id);
    expect(resultText(result?.content ?? '')).toMatch(/^Permission to run this tool was denied due to the following rules/);
    expect(result).toMatchObject({ isError: true, meta: { refused: true } });
    // the stand-in's reply, its words cut after 60 characters, ends in a space as recorded; sent trimmed
    const session = await home.driver.getSession(listed.id);
    const replies = (session?.entries ?? []).flatMap((e) =>
      e.kind === 'message' && e.message.role === 'assistant'
        ? e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))
        : [],
    );
    expect(replies.at(-1)).toBe('Tool finished: Permission to run this tool was denied due to the following ');
    const { sent, ours } = await resumed(listed.id, 'probe own denial');
    expect(sentToolResults(sent)).toHaveLength(1);
    expect(sent.at(-1)?.content).toEqual([
      { type: 'text', text: 'Tool finished: Permission to run this tool was denied due to the following' },
    ]);
    expect(sent).toEqual(ours);
  }, 240_000);

  it("another agent's refused and cancelled calls are written in Copilot CLI's words and resumed so", async () => {
    const declined = [
      declinedResult('call_a', 'bash', "The user doesn't want to proceed with this tool use.", 'refused'),
      declinedResult('call_b', 'bash', 'Operation aborted', 'cancelled'),
    ];
    const info = await home.driver.writeSession(declinedCallsSession(home.project, declined, MODEL));
    expect((await results(info.id)).map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [COPILOT_REJECTED, true, true, undefined],
      [COPILOT_INTERRUPTED, true, undefined, true],
    ]);
    const { sent, ours } = await resumed(info.id, 'probe foreign refusal');
    expect(sentToolResults(sent).map((b) => b.content)).toEqual([COPILOT_REJECTED, COPILOT_INTERRUPTED]);
    expect(sent).toEqual(ours);
  }, 240_000);
});
