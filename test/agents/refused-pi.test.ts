/**
 * Refused and cancelled calls and the real pi (`pi -p`, against the loopback stand-in):
 * - an extension blocking a call from its `tool_call` handler with pi's documented permission-gate
 *   reason ("Blocked by user") makes pi record an error result of that reason: it reads as refused,
 *   and resumed pi sends it as threadbase's context has it;
 * - Gemini CLI's refused and cancelled calls written into pi become pi's own ("Blocked by user",
 *   "Operation aborted"): read back marked so, and resumed, pi sends them as our context says.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ABORTED_TOOL_RESULT, BLOCKED_BY_USER } from '../../src/formats/pi/denials.js';
import { PiDriver } from '../../src/formats/pi/driver.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { agentHomeForFile, piResumeRequest, runPi } from '../helpers/agents.js';
import { type AnthropicRequest, sentToolResults } from '../helpers/anthropic-standin.js';
import { wireMessages } from '../helpers/claude-requests.js';
import { runCliOk } from '../helpers/cli.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

const home = agentHomeForFile({ timeout: 60_000 });
let driver: PiDriver;
beforeAll(() => {
  driver = new PiDriver(home.env);
});

async function ourContext(id: string): Promise<AnthropicRequest> {
  return JSON.parse(await runCliOk(home.env, ['context', id, '--source', 'pi', '--format', 'anthropic'])) as AnthropicRequest;
}

/** Resumes the session file with `probe`; the first request pi sent for it, without the probe. */
async function resumed(path: string, probe: string): Promise<ReturnType<typeof wireMessages>> {
  const sent = wireMessages((await piResumeRequest(home, path, probe)).messages);
  expect(sent.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: probe }] });
  return sent.slice(0, -1);
}

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await driver.getSession(id));
}

describe('refused calls and the real pi', () => {
  it("a call pi's permission gate blocked reads as refused and is resumed as threadbase says", async () => {
    const gate = join(home.root, 'gate.ts');
    // pi's permission-gate example, answering "No"
    await fs.writeFile(
      gate,
      `export default function (pi) { pi.on('tool_call', async () => ({ block: true, reason: ${JSON.stringify(BLOCKED_BY_USER)} })); }\n`,
    );
    await runPi(home, ['-e', gate, '-p', 'RUN: touch made.txt']);
    const [listed] = await driver.listSessions();
    if (!listed?.path) throw new Error('no session');
    const [result] = await results(listed.id);
    expect(result?.isError).toBe(true);
    expect(result?.meta?.refused).toBe(true);
    const ours = wireMessages((await ourContext(listed.id)).messages);
    const sent = await resumed(listed.path, 'probe own block');
    expect(sentToolResults(sent).map((b) => [b.content, b.is_error])).toEqual([
      [[{ type: 'text', text: BLOCKED_BY_USER }], true],
    ]);
    expect(sent).toEqual(ours);
  }, 120_000);

  it("Gemini CLI's refused and cancelled calls are written as pi's own and resumed so", async () => {
    const session = geminiDeclinedSession({ project: home.project, model: 'claude-standin', tool: 'bash', cancelledToo: true });
    const info = await driver.writeSession(session);
    const back = await results(info.id);
    expect(back.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [[{ type: 'text', text: BLOCKED_BY_USER }], true, true, undefined],
      [[{ type: 'text', text: ABORTED_TOOL_RESULT }], true, undefined, true],
    ]);
    const ours = wireMessages((await ourContext(info.id)).messages);
    if (!info.path) throw new Error('no path');
    const sent = await resumed(info.path, 'probe gemini refusal');
    expect(sentToolResults(sent).map((b) => [b.content, b.is_error])).toEqual([
      [[{ type: 'text', text: BLOCKED_BY_USER }], true],
      [[{ type: 'text', text: ABORTED_TOOL_RESULT }], true],
    ]);
    expect(sent).toEqual(ours);
  }, 120_000);
});
