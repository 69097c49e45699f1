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
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { COPILOT_INTERRUPTED, COPILOT_REJECTED } from '../../src/formats/copilot/denials.js';
import { CopilotDriver } from '../../src/formats/copilot/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { resultText } from '../../src/model/tree.js';
import type { Message, ToolResultPart } from '../../src/model/types.js';
import { copilotOfflineEnv } from '../helpers/agents.js';
import { type AnthropicBlock, type AnthropicMessage, type StandIn, startAnthropicStandIn } from '../helpers/anthropic-standin.js';
import { chainSession, textMessage, toolResultsOf } from '../helpers/sessions.js';

const run = promisify(execFile);
const BIN = [resolve('node_modules/.bin/copilot'), process.env.THREADBASE_COPILOT_BIN ?? ''].find((p) => p && existsSync(p));
const SKIP = BIN ? false : 'no copilot binary: node_modules/.bin/copilot or $THREADBASE_COPILOT_BIN';
const MODEL = 'claude-sonnet-4.5';

let dir: string;
let project: string;
let env: DriverEnv;
let standIn: StandIn;
let driver: CopilotDriver;
beforeAll(async () => {
  if (SKIP) return;
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-copilot-refused-'));
  project = join(dir, 'proj');
  await fs.mkdir(project, { recursive: true });
  // the stand-in's default replies, a cut "Tool finished: …" ending in a space among them: Copilot CLI resends them trimmed, as threadbase's context has them
  standIn = await startAnthropicStandIn();
  env = { home: dir, env: { HOME: dir, COPILOT_HOME: join(dir, '.copilot') } };
  driver = new CopilotDriver(env);
});
afterAll(async () => {
  await standIn?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const copilot = (args: string[]) =>
  run(BIN as string, [...args, '--no-auto-update'], { cwd: project, timeout: 180_000, env: copilotOfflineEnv(dir, standIn.url) });

/** A message as sent, without what only steers caching, a tool result's text as a string. */
function plain(m: AnthropicMessage): AnthropicMessage {
  const blocks: AnthropicBlock[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  return {
    role: m.role,
    content: blocks.map(({ cache_control: _c, ...b }) =>
      b.type === 'tool_result' && Array.isArray(b.content) && b.content.length === 1 && b.content[0]?.type === 'text'
        ? { ...b, content: b.content[0].text }
        : b,
    ),
  };
}

/** Resumes session `id` with `probe`: the messages Copilot CLI sent before it, and threadbase's context of the session. */
async function resumed(id: string, probe: string): Promise<{ sent: AnthropicMessage[]; ours: AnthropicMessage[] }> {
  const ours = (contextToAnthropic(await driver.getContext(id)).messages as AnthropicMessage[]).map(plain);
  const before = standIn.messageRequests().length;
  await copilot([`--resume=${id}`, '-p', probe, '--allow-all-tools']);
  const sent = (standIn.messageRequests()[before]?.messages ?? []).map(plain);
  expect(JSON.stringify(sent.pop())).toContain(probe);
  return { sent, ours };
}

const sentResults = (ms: AnthropicMessage[]) =>
  ms.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result')));

async function results(id: string): Promise<ToolResultPart[]> {
  return toolResultsOf(await driver.getSession(id));
}

describe.skipIf(SKIP)('refused calls and the real Copilot CLI', () => {
  it('a call its permission rules denied reads as refused and is resumed as threadbase says', async () => {
    await copilot(['-p', 'RUN: touch made.txt', '--allow-all-tools', '--deny-tool', 'shell(touch)']);
    expect(existsSync(join(project, 'made.txt'))).toBe(false);
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no session');
    const [result] = await results(listed.id);
    expect(resultText(result?.content ?? '')).toMatch(/^Permission to run this tool was denied due to the following rules/);
    expect(result).toMatchObject({ isError: true, meta: { refused: true } });
    // the stand-in's reply, its words cut after 60 characters, ends in a space as recorded; sent trimmed
    const session = await driver.getSession(listed.id);
    const replies = (session?.entries ?? []).flatMap((e) =>
      e.kind === 'message' && e.message.role === 'assistant'
        ? e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))
        : [],
    );
    expect(replies.at(-1)).toBe('Tool finished: Permission to run this tool was denied due to the following ');
    const { sent, ours } = await resumed(listed.id, 'probe own denial');
    expect(sentResults(sent)).toHaveLength(1);
    expect(sent.at(-1)?.content).toEqual([
      { type: 'text', text: 'Tool finished: Permission to run this tool was denied due to the following' },
    ]);
    expect(sent).toEqual(ours);
  }, 240_000);

  it("another agent's refused and cancelled calls are written in Copilot CLI's words and resumed so", async () => {
    const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'bash', input: { command: `touch ${id}` } });
    const declined = (callId: string, content: string, mark: string): ToolResultPart => ({
      type: 'tool_result',
      callId,
      name: 'bash',
      content,
      isError: true,
      meta: { [mark]: true },
    });
    const messages: [string, Message][] = [
      ['c1', textMessage('user', 'make two files')],
      ['c2', { role: 'assistant', model: MODEL, parts: [call('call_a'), call('call_b')] }],
      [
        'c3',
        {
          role: 'tool',
          parts: [
            declined('call_a', "The user doesn't want to proceed with this tool use.", 'refused'),
            declined('call_b', 'Operation aborted', 'cancelled'),
          ],
        },
      ],
      ['c4', textMessage('assistant', 'Neither was made.', { model: MODEL })],
    ];
    const info = await driver.writeSession(chainSession('declined', 'claude', project, messages));
    expect((await results(info.id)).map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [COPILOT_REJECTED, true, true, undefined],
      [COPILOT_INTERRUPTED, true, undefined, true],
    ]);
    const { sent, ours } = await resumed(info.id, 'probe foreign refusal');
    expect(sentResults(sent).map((b) => b.content)).toEqual([COPILOT_REJECTED, COPILOT_INTERRUPTED]);
    expect(sent).toEqual(ours);
  }, 240_000);
});
