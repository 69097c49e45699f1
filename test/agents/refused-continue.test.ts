/**
 * Refused and cancelled calls and the real cn (@continuedev/cli 1.5.47, against the loopback stand-in):
 * - calls cn's permission rules refused (`--exclude Bash`, the model calling Bash anyway) read as refused,
 *   and `cn --fork` sends them as threadbase's context has them;
 * - Gemini CLI's refused and cancelled calls written into Continue become cn's own (a `canceled` state of
 *   "Permission denied by user"; a state without output, which cn sends as "Tool cancelled"): read back
 *   marked so, and cn sends them as our context says.
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver } from '../../src/formats/continue/index.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { anthropicRequestItems, contextItems } from '../helpers/agent-fixtures.js';
import { type AgentHome, runBinary, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest, Rule } from '../helpers/anthropic-standin.js';
import { textOf as standinText } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, textOf } from '../helpers/conversions.js';
import { geminiDeclinedSession } from '../helpers/sessions.js';

const CN_BIN = resolve('node_modules/.bin/cn');
let home: AgentHome;
let driver: ContinueDriver;

/** "CALL: <command>": a Bash call, offered or not. */
const callRule: Rule = (req) => {
  const last = req.messages.at(-1);
  const m = /CALL: (.+)/.exec(standinText(last));
  const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result');
  return m && !answered ? { toolUse: { name: 'Bash', input: { command: (m[1] as string).trim() } } } : undefined;
};

beforeAll(async () => {
  home = await setupAgentHome({ rules: [callRule, okProbeRule] });
  await fs.mkdir(join(home.root, '.continue'), { recursive: true });
  await fs.writeFile(
    join(home.root, '.continue', 'config.yaml'),
    [
      'name: standin',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: Stand-in',
      '    provider: anthropic',
      '    model: claude-standin',
      '    apiKey: offline',
      `    apiBase: ${home.standIn.url}/v1/`,
      '    roles: [chat]',
      '',
    ].join('\n'),
  );
  driver = new ContinueDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

async function runCn(args: string[]): Promise<string> {
  const env = { PATH: `${resolve('node_modules/.bin')}:${process.env.PATH ?? ''}`, HOME: home.root, NO_COLOR: '1', TERM: 'dumb' };
  const r = await runBinary(process.execPath, [CN_BIN, '-p', ...args], home.project, env);
  return r.stdout + r.stderr;
}

function requestEndingWith(probe: string): AnthropicRequest {
  const req = home.standIn.messageRequests().find((r) => {
    const last = r.messages.at(-1);
    return last?.role === 'user' && textOf(last.content as Parameters<typeof textOf>[0]).at(-1) === probe;
  });
  if (!req) throw new Error(`cn sent no request ending with ${probe}`);
  return req;
}

const resultsOf = (s: Session | undefined): ToolResultPart[] =>
  (s?.entries ?? []).flatMap((e) =>
    e.kind === 'message' ? e.message.parts.filter((p): p is ToolResultPart => p.type === 'tool_result') : [],
  );

/** `cn --fork <id> <probe>`: what it sent before the probe, and threadbase's context of the session. */
async function forked(id: string, probe: string): Promise<{ sent: string[]; ours: string[] }> {
  const ours = contextItems(await readContext(home, 'continue', id), { trimResults: true });
  await runCn(['--auto', '--fork', id, probe]);
  const sent = anthropicRequestItems(requestEndingWith(probe).messages, { trimResults: true });
  expect(sent.at(-1)).toBe(`user:${probe}`);
  return { sent: sent.slice(0, -1), ours };
}

describe('refused calls and the real cn', () => {
  it("a call cn's permission rules refused reads as refused and is sent on --fork as threadbase says", async () => {
    await runCn(['--exclude', 'Bash', 'CALL: touch made.txt']);
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no session');
    const results = resultsOf(await driver.getSession(listed.id));
    expect(results.map((r) => [r.content, r.isError, r.meta?.refused])).toEqual([
      ['Command blocked by security policy', true, true],
    ]);
    const { sent, ours } = await forked(listed.id, 'probe own refusal');
    expect(sent.filter((s) => s.startsWith('result:'))).toEqual([
      expect.stringMatching(/^result:[^:]+:Command blocked by security policy$/),
    ]);
    expect(sent).toEqual(ours);
  }, 180_000);

  it("Gemini CLI's refused and cancelled calls are written as cn's own and sent so", async () => {
    const session = geminiDeclinedSession({ project: home.project, model: 'claude-standin', tool: 'Bash', cancelledToo: true });
    const info = await driver.writeSession(session);
    expect(resultsOf(await driver.getSession(info.id)).map((r) => [r.meta?.refused, r.meta?.cancelled])).toEqual([
      [true, undefined],
      [undefined, true],
    ]);
    const { sent, ours } = await forked(info.id, 'probe gemini refusal');
    expect(sent.filter((s) => s.startsWith('result:'))).toEqual([
      'result:call_a:Permission denied by user',
      'result:call_b:Tool cancelled',
    ]);
    expect(sent).toEqual(ours);
  }, 180_000);
});
