/**
 * Refused and cancelled calls and the real Qwen Code (0.24.4, `--auth-type anthropic` on the loopback
 * stand-in):
 * - a call its permission rules deny (`permissions.deny: ["Bash(touch *)"]` in ~/.qwen/settings.json)
 *   Qwen Code records as a result of status `error` in its words ("This "run_shell_command" invocation
 *   was denied by permission rules. …"): it reads as refused, and resumed, Qwen Code sends it as
 *   threadbase's context has it;
 * - another agent's refused and cancelled calls written into Qwen Code become its own
 *   ("[Operation Cancelled] Reason: User did not allow tool call" / "… Tool call cancelled by user.",
 *   status `cancelled`): read back marked so, and resumed, Qwen Code sends those words;
 * - a refused result beside a failed one and one that ran, a record each of its own status (as Qwen Code
 *   records each call's result): Qwen Code resumes them as threadbase's context has them.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { QWEN_CANCELLED_RESULT, QWEN_REFUSED_RESULT } from '../../src/formats/qwen/denials.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { resultText } from '../../src/model/tree.js';
import type { Message, ToolResultPart } from '../../src/model/types.js';
import { anthropicRequestItems, contextItems } from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicBlock, type AnthropicRequest, type Rule, sentToolResults } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, textOf } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';
import { chainSession, declinedResult, textMessage, toolResultsOf } from '../helpers/sessions.js';

// Claude Code's and pi's words for a refused and a cancelled call
const CLAUDE_REJECTED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
const PI_ABORTED = 'Operation aborted';

/** `RUN: <command>` → a run_shell_command call (Qwen Code's shell tool), before the probe's answer. */
const shellRule: Rule = (req: AnthropicRequest) => {
  const last = req.messages.at(-1);
  const m = /^RUN: (.+)/.exec(textOf((last?.content ?? '') as string | AnthropicBlock[]).at(-1) ?? '');
  if (!m || last?.role !== 'user' || !req.tools?.some((t) => t.name === 'run_shell_command')) return undefined;
  return { toolUse: { name: 'run_shell_command', input: { command: (m[1] as string).trim(), is_background: false } } };
};

let home: AgentHome;
let driver: QwenDriver;
beforeAll(async () => {
  home = await setupQwenHome({ rules: [shellRule, okProbeRule] });
  driver = new QwenDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

/** The same of the Anthropic messages Qwen Code sent, less its own `<system-reminder>` texts. */
const requestItems = (messages: AnthropicRequest['messages']) =>
  anthropicRequestItems(messages, {
    drop: isQwenReminder,
  });

const results = async (id: string) => toolResultsOf(await driver.getSession(id));

/** Resumes chat `id` with `probe`: the request Qwen Code sent, as items, without the probe; its tool results. */
async function resumed(id: string, probe: string): Promise<{ items: string[]; sentResults: AnthropicBlock[] }> {
  await runQwen(home, ['--resume', id, probe]);
  const sent = requestEndingWith(home, probe).messages;
  const items = requestItems(sent);
  expect(items.at(-1)).toBe(`user:${probe}`);
  return { items: items.slice(0, -1), sentResults: sentToolResults(sent) };
}

describe('refused calls and the real Qwen Code', () => {
  it('a call its permission rules denied reads as refused and is resumed as threadbase says', async () => {
    await fs.mkdir(join(home.root, '.qwen'), { recursive: true });
    await fs.writeFile(join(home.root, '.qwen', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(touch *)'] } }));
    try {
      await runQwen(home, ['RUN: touch made.txt']);
    } finally {
      await fs.rm(join(home.root, '.qwen', 'settings.json'));
    }
    await expect(fs.access(join(home.project, 'made.txt'))).rejects.toThrow();
    const [listed] = await driver.listSessions();
    if (!listed) throw new Error('no chat');
    const [result] = await results(listed.id);
    expect(resultText(result?.content ?? '')).toMatch(/^This "run_shell_command" invocation was denied by permission rules\./);
    expect(result).toMatchObject({ isError: true, meta: { refused: true } });
    const ours = contextItems(await readContext(home, 'qwen', listed.id));
    const { items, sentResults } = await resumed(listed.id, 'probe own denial');
    expect(sentResults.map((b) => b.is_error)).toEqual([true]);
    expect(items).toEqual(ours);
  }, 180_000);

  it("another agent's refused and cancelled calls are written in Qwen Code's words and resumed so", async () => {
    const model = 'claude-standin';
    const call = (id: string, command: string) => ({
      type: 'tool_call' as const,
      id,
      name: 'run_shell_command',
      input: { command },
    });
    const declined = (callId: string, content: string, mark: 'refused' | 'cancelled') =>
      declinedResult(callId, 'run_shell_command', content, mark);
    const messages: [string, Message][] = [
      ['c1', textMessage('user', 'make two files')],
      ['c2', { role: 'assistant', model, parts: [call('call_a', 'touch call_a'), call('call_b', 'touch call_b')] }],
      [
        'c3',
        { role: 'tool', parts: [declined('call_a', CLAUDE_REJECTED, 'refused'), declined('call_b', PI_ABORTED, 'cancelled')] },
      ],
      ['c4', textMessage('assistant', 'Neither was made.', { model })],
    ];
    const info = await driver.writeSession(chainSession('declined', 'claude', home.project, messages));
    const back = await results(info.id);
    expect(back.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [QWEN_REFUSED_RESULT, true, true, undefined],
      [QWEN_CANCELLED_RESULT, true, undefined, true],
    ]);
    const ours = contextItems(await readContext(home, 'qwen', info.id));
    const { items, sentResults } = await resumed(info.id, 'probe foreign refusal');
    expect(sentResults.map((b) => [resultText(b.content as ToolResultPart['content']), b.is_error])).toEqual([
      [QWEN_REFUSED_RESULT, true],
      [QWEN_CANCELLED_RESULT, true],
    ]);
    expect(items).toEqual(ours);
  }, 180_000);

  it('results of several statuses in one message are a record each, resumed as threadbase says', async () => {
    const model = 'claude-standin';
    const call = (id: string) => ({
      type: 'tool_call' as const,
      id,
      name: 'run_shell_command',
      input: { command: `touch ${id}` },
    });
    const result = (callId: string, content: string, isError?: boolean): ToolResultPart => ({
      type: 'tool_result',
      callId,
      name: 'run_shell_command',
      content,
      ...(isError ? { isError } : {}),
    });
    const messages: [string, Message][] = [
      ['s1', textMessage('user', 'make three files')],
      ['s2', { role: 'assistant', model, parts: [call('call_r'), call('call_f'), call('call_d')] }],
      [
        's3',
        {
          role: 'tool',
          parts: [
            declinedResult('call_r', 'run_shell_command', CLAUDE_REJECTED, 'refused'),
            result('call_f', 'exit 1', true),
            result('call_d', 'made'),
          ],
        },
      ],
      ['s4', textMessage('assistant', 'One was made.', { model })],
    ];
    const info = await driver.writeSession(chainSession('mixed', 'claude', home.project, messages));
    const lines = (await fs.readFile(info.path as string, 'utf8')).trim().split('\n');
    const statuses = lines
      .map((l) => JSON.parse(l) as { type: string; toolCallResult?: { status: string } })
      .filter((r) => r.type === 'tool_result')
      .map((r) => r.toolCallResult?.status);
    expect(statuses).toEqual(['cancelled', 'error', 'success']);
    expect((await results(info.id)).map((r) => [r.callId, r.meta?.refused])).toEqual([
      ['call_r', true],
      ['call_f', undefined],
      ['call_d', undefined],
    ]);
    const ours = contextItems(await readContext(home, 'qwen', info.id));
    const { items, sentResults } = await resumed(info.id, 'probe mixed statuses');
    expect(sentResults.map((b) => [b.tool_use_id, resultText(b.content as ToolResultPart['content'])])).toEqual([
      ['call_r', QWEN_REFUSED_RESULT],
      ['call_f', 'exit 1'],
      ['call_d', 'made'],
    ]);
    expect(items).toEqual(ours);
  }, 180_000);
});
