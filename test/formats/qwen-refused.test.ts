/**
 * Qwen Code 0.24.4's records of calls that did not run, read as refused / cancelled (denials.ts): a
 * `tool_result` of status `cancelled` with `[Operation Cancelled] Reason: <reason>` (the user declined:
 * "User did not allow tool call"; aborted: "Tool call cancelled by user." …), one of status `error`
 * in a permission check's words; and a marked result written back in Qwen Code's words, status
 * `cancelled`. The real Qwen Code resuming such chats: test/agents/refused-qwen.test.ts.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import '../../src/formats/all.js';
import { QWEN_CANCELLED_RESULT, QWEN_REFUSED_RESULT, qwenDeclinedMark } from '../../src/formats/qwen/denials.js';
import { QwenDriver, sanitizeCwd } from '../../src/formats/qwen/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session, ToolResultPart } from '../../src/model/types.js';
import {
  chainSession,
  declinedResult,
  GEMINI_REFUSED_TEXT,
  geminiDeclinedSession,
  textMessage,
  toolResultsOf,
} from '../helpers/sessions.js';

const PROJECT = '/tmp/qwen-refused-proj';
const DENIED_BY_RULE =
  'This "run_shell_command" invocation was denied by permission rules. Matching deny rule: "Bash(touch *)". Other uses of this tool are still permitted.';
const NON_INTERACTIVE =
  'Qwen Code requires permission to use "run_shell_command", but that permission was declined (non-interactive mode cannot prompt for confirmation).';
const CLAUDE_REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected.";

let dir: string;
let env: DriverEnv;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-qwen-refused-'));
  env = { home: dir, env: { HOME: dir, QWEN_HOME: join(dir, '.qwen') } };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const marks = (rs: ToolResultPart[]) => rs.map((r) => [r.callId, r.isError === true, r.meta?.refused, r.meta?.cancelled]);

describe('qwen: the words of a call that did not run', () => {
  it('are refused when the user or a permission check declined it, cancelled when it was aborted', () => {
    expect(qwenDeclinedMark(QWEN_REFUSED_RESULT)).toBe('refused');
    // a host's own reason for its refusal (the stream-json permission controller's cancelMessage)
    expect(qwenDeclinedMark('[Operation Cancelled] Reason: not in this repo')).toBe('refused');
    expect(qwenDeclinedMark(DENIED_BY_RULE)).toBe('refused');
    expect(qwenDeclinedMark(NON_INTERACTIVE)).toBe('refused');
    expect(qwenDeclinedMark(`Tool "run_shell_command" is denied: the tool's default permission is 'deny'.`)).toBe('refused');
    expect(qwenDeclinedMark('Permission denied by hook for "edit"')).toBe('refused');
    expect(qwenDeclinedMark(QWEN_CANCELLED_RESULT)).toBe('cancelled');
    expect(qwenDeclinedMark('[Operation Cancelled] Reason: Tool call cancelled before execution.')).toBe('cancelled');
    expect(
      qwenDeclinedMark(
        '[tool_call bridge cancelled] [Operation Cancelled] Reason: User intentionally cancelled this tool call. Stop and await further instructions; do not retry or work around it.\n\nhook context',
      ),
    ).toBe('cancelled');
    expect(qwenDeclinedMark('command not found: tuch')).toBeUndefined();
  });
});

describe('qwen: reading refused and cancelled calls', () => {
  it('marks results by their status and words', async () => {
    const sessionId = 'a1b2c3d4-0000-4000-8000-000000000001';
    const base = { sessionId, cwd: PROJECT, version: '0.24.4', timestamp: '2026-01-01T00:00:00.000Z' };
    const call = (id: string) => ({ functionCall: { id, name: 'run_shell_command', args: { command: 'touch x' } } });
    const response = (id: string, error: string) => ({
      functionResponse: { id, name: 'run_shell_command', response: { error } },
    });
    const result = (uuid: string, parent: string, id: string, error: string, status?: string) => ({
      ...base,
      uuid,
      parentUuid: parent,
      type: 'tool_result',
      message: { role: 'user', parts: [response(id, error)] },
      toolCallResult: { callId: id, ...(status ? { status, executionStatus: 'not_started' } : {}) },
    });
    const records = [
      { ...base, uuid: 'u', parentUuid: null, type: 'user', message: { role: 'user', parts: [{ text: 'make files' }] } },
      {
        ...base,
        uuid: 'a',
        parentUuid: 'u',
        type: 'assistant',
        model: 'm',
        message: { role: 'model', parts: ['declined', 'aborted', 'ruled', 'failed', 'other', 'sub'].map(call) },
      },
      result('r1', 'a', 'declined', QWEN_REFUSED_RESULT, 'cancelled'),
      result('r2', 'r1', 'aborted', QWEN_CANCELLED_RESULT, 'cancelled'),
      {
        ...result('r3', 'r2', 'ruled', DENIED_BY_RULE, 'error'),
        toolCallResult: { status: 'error', errorType: 'execution_denied' },
      },
      result('r4', 'r3', 'failed', 'exit code 1', 'error'),
      // cancelled in words Qwen Code does not use for it: still a call that did not run
      result('r5', 'r4', 'other', 'stopped', 'cancelled'),
      // a sub-agent's transcript records no status: its words alone
      result('r6', 'r5', 'sub', QWEN_CANCELLED_RESULT),
    ];
    const chats = join(dir, '.qwen', 'projects', sanitizeCwd(PROJECT), 'chats');
    await mkdir(chats, { recursive: true });
    await writeFile(join(chats, `${sessionId}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const s = await new QwenDriver(env).getSession(sessionId);
    expect(marks(toolResultsOf(s))).toEqual([
      ['declined', true, true, undefined],
      ['aborted', true, undefined, true],
      ['ruled', true, true, undefined],
      ['failed', true, undefined, undefined],
      ['other', true, undefined, true],
      ['sub', true, undefined, true],
    ]);
  });
});

describe('qwen: writing refused and cancelled calls', () => {
  type Rec = Record<string, unknown> & { type: string; message?: { parts: { functionResponse?: { response: unknown } }[] } };
  const written = async (session: Session): Promise<{ id: string; records: Rec[] }> => {
    const info = await new QwenDriver(env).writeSession(session);
    const text = await readFile(info.path as string, 'utf8');
    return {
      id: info.id,
      records: text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Rec),
    };
  };
  const toolRecords = (records: Rec[]) => records.filter((r) => r.type === 'tool_result');

  it("writes another agent's words as Qwen Code's, status cancelled, and reads them back marked", async () => {
    const declined = (callId: string, content: string, mark: 'refused' | 'cancelled') =>
      declinedResult(callId, 'Bash', content, mark);
    const messages: [string, Message][] = [
      ['c1', textMessage('user', 'make two files')],
      [
        'c2',
        {
          role: 'assistant',
          model: 'm',
          parts: ['a', 'b'].map((id) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command: `touch ${id}` } })),
        },
      ],
      [
        'c3',
        { role: 'tool', parts: [declined('a', CLAUDE_REJECTED, 'refused'), declined('b', 'Operation aborted', 'cancelled')] },
      ],
      ['c4', textMessage('assistant', 'Neither was made.', { model: 'm' })],
    ];
    const session = chainSession('claude-declined', 'claude', PROJECT, messages);
    const { id, records } = await written(session);
    // a record per result, as Qwen Code records each call's (one status or several)
    const tools = toolRecords(records);
    expect(tools.map((t) => t.toolCallResult)).toEqual([
      { callId: 'a', status: 'cancelled' },
      { callId: 'b', status: 'cancelled' },
    ]);
    expect(tools.map((t) => t.message?.parts.map((p) => p.functionResponse?.response))).toEqual([
      [{ error: QWEN_REFUSED_RESULT }],
      [{ error: QWEN_CANCELLED_RESULT }],
    ]);
    // the marks are Qwen Code's own records': nothing kept beside them for them (the first names the last only)
    expect(tools.map((t) => t.threadbase && Object.keys(t.threadbase))).toEqual([['resultsWith'], undefined]);
    const back = toolResultsOf(await new QwenDriver(env).getSession(id));
    expect(back.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled])).toEqual([
      [QWEN_REFUSED_RESULT, true, true, undefined],
      [QWEN_CANCELLED_RESULT, true, undefined, true],
    ]);
    expect(conversionLosses(session, 'qwen').join('\n')).toMatch(/written in Qwen Code's words.*\(2\)/);
  });

  it("keeps words already Qwen Code's form (Gemini CLI's, which it forked), and a result beside an unmarked error", async () => {
    const gemini = geminiDeclinedSession({ project: PROJECT, model: 'm', tool: 'run_shell_command', cancelledToo: false });
    const { id, records } = await written(gemini);
    expect(toolRecords(records)[0]?.message?.parts.map((p) => p.functionResponse?.response)).toEqual([
      { error: GEMINI_REFUSED_TEXT },
    ]);
    expect(marks(toolResultsOf(await new QwenDriver(env).getSession(id)))).toEqual([['call_declined', true, true, undefined]]);
    expect(conversionLosses(gemini, 'qwen').join('\n')).not.toMatch(/Qwen Code's words/);

    // a refused result, a failed one and one that ran: a record each, each of its status, as Qwen Code
    // records every call's result; read back as the one message they were
    const mixed = chainSession('mixed', 'pi', PROJECT, [
      ['m1', textMessage('user', 'go')],
      [
        'm2',
        {
          role: 'assistant',
          model: 'm',
          parts: ['x', 'y', 'z'].map((cid) => ({ type: 'tool_call' as const, id: cid, name: 'bash', input: {} })),
        },
      ],
      [
        'm3',
        {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              callId: 'x',
              name: 'bash',
              content: 'Blocked by user',
              isError: true,
              meta: { refused: true },
            },
            { type: 'tool_result', callId: 'y', name: 'bash', content: 'exit 1', isError: true },
            { type: 'tool_result', callId: 'z', name: 'bash', content: 'done' },
          ],
        },
      ],
      ['m4', textMessage('assistant', 'One ran.', { model: 'm' })],
    ]);
    const w = await written(mixed);
    const tools = toolRecords(w.records);
    expect(tools.map((r) => [r.toolCallResult, r.message?.parts.map((p) => p.functionResponse?.response)])).toEqual([
      [{ callId: 'x', status: 'cancelled' }, [{ error: QWEN_REFUSED_RESULT }]],
      [{ callId: 'y', status: 'error' }, [{ error: 'exit 1' }]],
      [{ callId: 'z', status: 'success' }, [{ output: 'done' }]],
    ]);
    // chained, each naming the last (the entry's own uuid), which nothing else needs beside it
    expect(tools.map((r) => [r.uuid, r.threadbase])).toEqual([
      [expect.any(String), { resultsWith: 'm3' }],
      [expect.any(String), { resultsWith: 'm3' }],
      ['m3', undefined],
    ]);
    expect(tools.map((r) => r.parentUuid)).toEqual(['m2', tools[0]?.uuid, tools[1]?.uuid]);
    const back = (await new QwenDriver(env).getSession(w.id)) as Session;
    expect(marks(toolResultsOf(back))).toEqual([
      ['x', true, true, undefined],
      ['y', true, undefined, undefined],
      ['z', false, undefined, undefined],
    ]);
    expect(back.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['m1', null],
      ['m2', 'm1'],
      ['m3', 'm2'],
      ['m4', 'm3'],
    ]);
  });
});
