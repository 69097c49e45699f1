/**
 * Codex rollouts as codex 0.169 records a compaction (`compacted` with its replacement history) and a
 * failed shell command (the exit code only in the UI event beside its output), and a compaction that
 * another agent laid out codex's way (its kept messages copied after the summary) written back into codex.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codexContext, contextToResponses, encodeRollout, SUMMARY_PREFIX } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { itemText, type ResponsesItem } from '../helpers/openai-responses-standin.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const ts = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}.000Z`;
const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

async function rollout(lines: object[]): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-failed-'));
  temps.push(dir);
  const file = join(dir, 'rollout-2026-11-20T10-00-00-01a20600-0000-7000-8000-00000000fa11.jsonl');
  await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

const meta = { timestamp: ts(0), type: 'session_meta', payload: { id: '01a20600-0000-7000-8000-00000000fa11', cwd: '/w' } };
const call = (id: string, cmd: string) => ({
  type: 'function_call',
  name: 'exec_command',
  arguments: JSON.stringify({ cmd }),
  call_id: id,
});
const output = (id: string, code: number) => ({
  type: 'function_call_output',
  call_id: id,
  output: `Process exited with code ${code}\nOutput:\n${code ? 'ls: cannot access' : 'ok'}\n`,
});

describe('codex: a failed shell command', () => {
  it("is an error result: codex 0.169's CommandExecution event, an older exec_command_end, not a command that exited 0", async () => {
    const file = await rollout([
      meta,
      { timestamp: ts(1), type: 'response_item', payload: user('run three') },
      { timestamp: ts(2), type: 'response_item', payload: call('call_1', 'ls /none') },
      {
        timestamp: ts(3),
        type: 'event_msg',
        payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'call_1', status: 'failed', exit_code: 2 } },
      },
      { timestamp: ts(3), type: 'response_item', payload: output('call_1', 2) },
      { timestamp: ts(4), type: 'response_item', payload: call('call_2', 'false') },
      { timestamp: ts(5), type: 'event_msg', payload: { type: 'exec_command_end', call_id: 'call_2', exit_code: 1 } },
      { timestamp: ts(5), type: 'response_item', payload: output('call_2', 1) },
      { timestamp: ts(6), type: 'response_item', payload: call('call_3', 'true') },
      {
        timestamp: ts(7),
        type: 'event_msg',
        payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'call_3', status: 'completed', exit_code: 0 } },
      },
      { timestamp: ts(7), type: 'response_item', payload: output('call_3', 0) },
    ]);
    const s = await readRollout(file);
    const results = s.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .filter((p) => p.type === 'tool_result');
    expect(results.map((p) => [p.callId, p.isError ?? false])).toEqual([
      ['call_1', true],
      ['call_2', true],
      ['call_3', false],
    ]);
    // codex has no error flag to send: the output goes to the model as it was
    const outputs = contextToResponses(codexContext(s)).input.filter((i) => i.type === 'function_call_output');
    expect(outputs.map((o) => Object.keys(o).sort())).toEqual([
      ['call_id', 'output', 'type'],
      ['call_id', 'output', 'type'],
      ['call_id', 'output', 'type'],
    ]);
  });
});

describe("codex: another agent's compaction with codex's kept messages after it", () => {
  const t = (s: number) => new Date(Date.UTC(2026, 0, 5, 0, 0, s)).toISOString();
  const msg = (id: string, parentId: string | null, s: number, role: Message['role'], text: string): Entry =>
    messageEntry(id, parentId, t(s), textMessage(role, text));
  const env = '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>';
  /** As Claude Code, pi or OpenCode hold a converted codex compaction: the summary, then copies of the messages codex kept. */
  const session: Session = {
    id: 'claude-from-codex',
    source: 'claude',
    project: '/w',
    createdAt: t(0),
    updatedAt: t(9),
    messageCount: 7,
    entries: [
      msg('e0', null, 1, 'user', env),
      msg('u1', 'e0', 2, 'user', 'first question'),
      msg('a1', 'u1', 3, 'assistant', 'first answer'),
      { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(4), summary: 'SUMMARY' },
      { kind: 'metadata', id: 'm', parentId: 'c', timestamp: t(4), type: 'bookkeeping', data: {} },
      msg('k1', 'm', 4, 'user', env),
      msg('k2', 'k1', 4, 'user', 'first question'),
      msg('u2', 'k2', 5, 'user', 'second question'),
      msg('a2', 'u2', 6, 'assistant', 'second answer'),
    ],
  };

  it("is written as codex's own compaction: the copies in its replacement history, before the summary, sent once", async () => {
    const { lines } = encodeRollout(session, '01a20600-0000-7000-8000-00000000c0c0');
    const compacted = lines.find((l) => l.type === 'compacted') as { payload: { replacement_history: ResponsesItem[] } };
    expect(compacted.payload.replacement_history.map((i) => itemText(i))).toEqual([
      env,
      'first question',
      `${SUMMARY_PREFIX}\nSUMMARY`,
    ]);
    // the copies are not written again after it
    const after = lines.slice(lines.indexOf(compacted as (typeof lines)[number]) + 1);
    expect(after.filter((l) => l.type === 'response_item').map((l) => itemText(l.payload as ResponsesItem))).toEqual([
      'second question',
      'second answer',
    ]);
    const file = await rollout(lines);
    const back = await readRollout(file);
    const input = contextToResponses(codexContext(back)).input;
    expect(input.map((i) => itemText(i))).toEqual([
      env,
      'first question',
      `${SUMMARY_PREFIX}\nSUMMARY`,
      'second question',
      'second answer',
    ]);
  });

  it('a compaction codex made mid-turn: its environment context copied between the prompts it kept goes back before the summary too', async () => {
    // codex injects its initial context again before the turn's prompt (after the earlier prompts), so
    // that copy repeats the session's first message, out of order with the prompts
    const toolCall = (id: string, parentId: string, s: number, cmd: string): Entry => ({
      kind: 'message',
      id,
      parentId,
      timestamp: t(s),
      message: { role: 'assistant', parts: [{ type: 'tool_call', id: `call_${id}`, name: 'exec_command', input: { cmd } }] },
    });
    const toolResult = (id: string, parentId: string, s: number): Entry => ({
      kind: 'message',
      id,
      parentId,
      timestamp: t(s),
      message: { role: 'tool', parts: [{ type: 'tool_result', callId: `call_${id.replace('o', 'c')}`, content: 'done' }] },
    });
    const midTurn: Session = {
      ...session,
      id: 'claude-from-codex-midturn',
      entries: [
        msg('e0', null, 1, 'user', env),
        msg('u1', 'e0', 2, 'user', 'first question'),
        msg('a1', 'u1', 3, 'assistant', 'first answer'),
        msg('u2', 'a1', 4, 'user', 'run the steps'),
        toolCall('c1', 'u2', 5, 'echo one'),
        toolResult('o1', 'c1', 6),
        { kind: 'compaction', id: 'c', parentId: 'o1', timestamp: t(7), summary: 'SUMMARY' },
        msg('k1', 'c', 7, 'user', 'first question'),
        msg('k2', 'k1', 7, 'user', env),
        msg('k3', 'k2', 7, 'user', 'run the steps'),
        toolCall('c2', 'k3', 8, 'echo two'),
        toolResult('o2', 'c2', 9),
        msg('a2', 'o2', 10, 'assistant', 'steps done'),
      ],
    };
    const { lines } = encodeRollout(midTurn, '01a20600-0000-7000-8000-00000000c0c2');
    const compacted = lines.find((l) => l.type === 'compacted') as { payload: { replacement_history: ResponsesItem[] } };
    expect(compacted.payload.replacement_history.map((i) => itemText(i))).toEqual([
      'first question',
      env,
      'run the steps',
      `${SUMMARY_PREFIX}\nSUMMARY`,
    ]);
    const back = await readRollout(await rollout(lines));
    const input = contextToResponses(codexContext(back)).input;
    expect(input.map((i) => (i.type === 'function_call' ? `call ${i.arguments}` : itemText(i)))).toEqual([
      'first question',
      env,
      'run the steps',
      `${SUMMARY_PREFIX}\nSUMMARY`,
      'call {"cmd":"echo two"}',
      'done',
      'steps done',
    ]);
  });

  it('a first prompt after the compaction that repeats none from before it stays after the summary', () => {
    const own = { ...session, entries: session.entries.filter((e) => e.id !== 'k1' && e.id !== 'k2') };
    own.entries = own.entries.map((e) => (e.id === 'u2' ? { ...e, parentId: 'm' } : e));
    const { lines } = encodeRollout(own, '01a20600-0000-7000-8000-00000000c0c1');
    // the summary alone: codex sends no earlier prompt again
    expect(lines.find((l) => l.type === 'compacted')?.payload).toEqual({
      message: `${SUMMARY_PREFIX}\nSUMMARY`,
      replacement_history: [user(`${SUMMARY_PREFIX}\nSUMMARY`)],
    });
  });
});
