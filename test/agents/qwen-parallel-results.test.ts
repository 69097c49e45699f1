/**
 * Parallel calls and the real Qwen Code (0.24.4, `--auth-type anthropic` on the loopback stand-in):
 * Qwen Code records each call's result as a `tool_result` record of its own (recordToolResults: one
 * record per completed call, each with its `toolCallResult`), results of one status too. threadbase
 * writes a message of several results so, and reads them back as the one message; resumed, Qwen Code
 * sends them as threadbase's context has them.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import { resultText } from '../../src/model/tree.js';
import type { Message, ToolResultPart } from '../../src/model/types.js';
import { anthropicRequestItems, contextItems } from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicBlock, type AnthropicRequest, type Rule, sentToolResults } from '../helpers/anthropic-standin.js';
import { newestSession, okProbeRule, readContext, textOf } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';
import { chainSession, textMessage, toolResultsOf } from '../helpers/sessions.js';

/** `TWO: <a> | <b>` → two run_shell_command calls in one response. */
const twoRule: Rule = (req: AnthropicRequest) => {
  const last = req.messages.at(-1);
  const m = /^TWO: (.+) \| (.+)/.exec(textOf((last?.content ?? '') as string | AnthropicBlock[]).at(-1) ?? '');
  if (!m || last?.role !== 'user' || !req.tools?.some((t) => t.name === 'run_shell_command')) return undefined;
  return {
    toolUses: [m[1], m[2]].map((c) => ({
      name: 'run_shell_command',
      input: { command: (c as string).trim(), is_background: false },
    })),
  };
};

let home: AgentHome;
let driver: QwenDriver;
beforeAll(async () => {
  home = await setupQwenHome({ rules: [twoRule, okProbeRule] });
  driver = new QwenDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

interface Rec {
  type: string;
  message?: { parts?: { functionResponse?: { id?: string } }[] };
  toolCallResult?: { callId: string; status: string };
}
const records = async (path: string): Promise<Rec[]> =>
  (await fs.readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);
/** Each tool_result record's result ids (its functionResponse parts) and its toolCallResult's call id and status. */
const resultRecords = (recs: Rec[]) =>
  recs
    .filter((r) => r.type === 'tool_result')
    .map((r) => [
      (r.message?.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse.id] : [])),
      r.toolCallResult?.callId,
      r.toolCallResult?.status,
    ]);

const requestItems = (messages: AnthropicRequest['messages']) =>
  anthropicRequestItems(messages, {
    drop: isQwenReminder,
  });

describe('parallel calls and the real Qwen Code', () => {
  it('Qwen Code records each result of a response of two calls as a record of its own', async () => {
    await runQwen(home, ['TWO: echo one | echo two']);
    const info = await newestSession(home, 'qwen');
    const recs = await records(info.path as string);
    const rows = resultRecords(recs);
    expect(rows).toHaveLength(2);
    for (const [ids, callId, status] of rows) {
      expect(ids).toEqual([callId]);
      expect(status).toBe('success');
    }
    // read as one message of both results
    const s = await driver.getSession(info.id);
    const tools = s?.entries.filter((e) => e.kind === 'message' && e.message.role === 'tool') ?? [];
    expect(toolResultsOf(s).map((r) => r.callId)).toEqual(rows.map((r) => r[1]));
    expect(tools.length).toBeLessThanOrEqual(2);
  }, 180_000);

  it('a message of two results of one status is written a record each, as Qwen Code writes them, and resumed so', async () => {
    const model = 'claude-standin';
    const call = (id: string) => ({
      type: 'tool_call' as const,
      id,
      name: 'run_shell_command',
      input: { command: `echo ${id}` },
    });
    const result = (callId: string, content: string): ToolResultPart => ({
      type: 'tool_result',
      callId,
      name: 'run_shell_command',
      content,
    });
    const messages: [string, Message][] = [
      ['p1', textMessage('user', 'echo twice')],
      ['p2', { role: 'assistant', model, parts: [call('call_a'), call('call_b')] }],
      ['p3', { role: 'tool', parts: [result('call_a', 'a'), result('call_b', 'b')] }],
      ['p4', textMessage('assistant', 'Both echoed.', { model })],
    ];
    const info = await driver.writeSession(chainSession('parallel', 'claude', home.project, messages));
    expect(resultRecords(await records(info.path as string))).toEqual([
      [['call_a'], 'call_a', 'success'],
      [['call_b'], 'call_b', 'success'],
    ]);
    // read back as the one message it was
    const back = await driver.getSession(info.id);
    expect(back?.entries.map((e) => e.id)).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(toolResultsOf(back).map((r) => [r.callId, r.content])).toEqual([
      ['call_a', 'a'],
      ['call_b', 'b'],
    ]);
    const ours = contextItems(await readContext(home, 'qwen', info.id));
    await runQwen(home, ['--resume', info.id, 'probe parallel']);
    const sent = requestEndingWith(home, 'probe parallel').messages;
    const items = requestItems(sent);
    expect(items.at(-1)).toBe('user:probe parallel');
    expect(sentToolResults(sent).map((b) => [b.tool_use_id, resultText(b.content as ToolResultPart['content'])])).toEqual([
      ['call_a', 'a'],
      ['call_b', 'b'],
    ]);
    expect(items.slice(0, -1)).toEqual(ours);
  }, 180_000);
});
