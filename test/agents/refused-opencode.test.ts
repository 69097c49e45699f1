/**
 * Refused and cancelled calls and the real OpenCode (`opencode run`, against the loopback stand-in):
 * - a bash call a `deny` permission rule stops is recorded as an `error` tool state of its
 *   DeniedError; it reads as refused, and resumed OpenCode sends it as threadbase's context has it;
 * - Gemini CLI's refused and cancelled calls written into OpenCode become OpenCode's own (its
 *   PermissionRejectedError's words; "Tool execution aborted" with `metadata.interrupted`): read back
 *   marked so, and resumed, OpenCode sends them as our context says.
 * Kilo CLI records the same (its binary has the same words; src/formats/kilo/FORMAT.md).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ABORTED_TOOL_ERROR, REJECTED_TOOL_ERROR } from '../../src/formats/opencode/denials.js';
import { OpenCodeDriver } from '../../src/formats/opencode/index.js';
import type { ToolResultPart } from '../../src/model/types.js';
import { type AgentHome, OPENCODE_MODEL, runOpencode, setupAgentHome } from '../helpers/agents.js';
import { type AnthropicRequest, sentToolResults, withoutCacheControl } from '../helpers/anthropic-standin.js';
import { geminiDeclinedSession, toolResultsOf } from '../helpers/sessions.js';

let home: AgentHome;
let driver: OpenCodeDriver;
beforeAll(async () => {
  home = await setupAgentHome();
  const file = join(home.root, '.config', 'opencode', 'opencode.json');
  const config = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  // bash offered, `touch …` denied by a rule
  config.permission = { bash: { '*': 'allow', 'touch *': 'deny' } };
  await fs.writeFile(file, JSON.stringify(config));
  driver = new OpenCodeDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

/** What OpenCode sent before `probe` when it resumed `id` with it. */
async function resumed(id: string, probe: string): Promise<AnthropicRequest['messages']> {
  await runOpencode(home, ['run', '-s', id, '-m', OPENCODE_MODEL, probe]);
  const req = home.standIn
    .messageRequests()
    .filter((r) => (r.tools?.length ?? 0) > 0)
    .find((r) => JSON.stringify(r.messages.at(-1)).includes(probe));
  if (!req) throw new Error(`no request carried ${probe}`);
  return withoutCacheControl(req.messages.slice(0, -1));
}

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await driver.getSession(id));
}

describe('refused calls and the real OpenCode', () => {
  it('a call a deny rule stopped reads as refused and is resumed as threadbase says', async () => {
    await runOpencode(home, ['run', '-m', OPENCODE_MODEL, 'RUN: touch made.txt']);
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no session');
    const [result] = await results(listed.id);
    expect(result?.isError).toBe(true);
    expect(String(result?.content)).toContain('The user has specified a rule which prevents you');
    expect(result?.meta?.refused).toBe(true);
    const ours = withoutCacheControl(contextToAnthropic(await driver.getContext(listed.id)).messages);
    expect(await resumed(listed.id, 'probe-own-denial')).toEqual(ours);
  }, 120_000);

  it("Gemini CLI's refused and cancelled calls are written as OpenCode's own and resumed so", async () => {
    const session = geminiDeclinedSession({ project: home.project, model: 'claude-test', tool: 'bash', cancelledToo: true });
    const info = await driver.writeSession(session);
    const back = await results(info.id);
    expect(back.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [REJECTED_TOOL_ERROR, true, true, undefined],
      [ABORTED_TOOL_ERROR, true, undefined, true],
    ]);
    const ours = withoutCacheControl(contextToAnthropic(await driver.getContext(info.id)).messages);
    const sent = await resumed(info.id, 'probe-gemini-refusal');
    expect(sentToolResults(sent).map((b) => [b.content, b.is_error])).toEqual([
      [REJECTED_TOOL_ERROR, true],
      [ABORTED_TOOL_ERROR, true],
    ]);
    expect(sent).toEqual(ours);
  }, 120_000);
});
