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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABORTED_TOOL_RESULT, BLOCKED_BY_USER } from '../../src/formats/pi/denials.js';
import { PiDriver } from '../../src/formats/pi/driver.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { type AgentHome, runPi, setupAgentHome } from '../helpers/agents.js';
import { type AnthropicRequest, sentToolResults } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

let home: AgentHome;
let driver: PiDriver;
beforeAll(async () => {
  home = await setupAgentHome();
  driver = new PiDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

type Block = Record<string, unknown>;
/** A message list as the API takes it: no cache markers, string content as one text block, neighbours of a role joined. */
function wire(messages: readonly { role: string; content: unknown }[]): { role: string; content: Block[] }[] {
  const out: { role: string; content: Block[] }[] = [];
  for (const m of messages) {
    const blocks = (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as Block[])).map((b) => {
      const { cache_control: _c, ...rest } = b;
      if (rest.type === 'tool_result' && typeof rest.content === 'string') rest.content = [{ type: 'text', text: rest.content }];
      if (rest.type === 'tool_result' && rest.is_error === false) delete rest.is_error;
      return rest;
    });
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) prev.content.push(...blocks);
    else out.push({ role: m.role, content: blocks });
  }
  return out;
}

async function ourContext(id: string): Promise<AnthropicRequest> {
  return JSON.parse(await runCliOk(home.env, ['context', id, '--source', 'pi', '--format', 'anthropic'])) as AnthropicRequest;
}

/** Resumes the session file with `probe`; the first request pi sent for it, without the probe. */
async function resumed(path: string, probe: string): Promise<ReturnType<typeof wire>> {
  const mark = home.standIn.messageRequests().length;
  await runPi(home, ['--session', path, '-p', probe]);
  const req = home.standIn.messageRequests().slice(mark)[0];
  if (!req) throw new Error('pi sent no request');
  const sent = wire(req.messages);
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
    const ours = wire((await ourContext(listed.id)).messages);
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
    const ours = wire((await ourContext(info.id)).messages);
    if (!info.path) throw new Error('no path');
    const sent = await resumed(info.path, 'probe gemini refusal');
    expect(sentToolResults(sent).map((b) => [b.content, b.is_error])).toEqual([
      [[{ type: 'text', text: BLOCKED_BY_USER }], true],
      [[{ type: 'text', text: ABORTED_TOOL_RESULT }], true],
    ]);
    expect(sent).toEqual(ours);
  }, 120_000);
});
