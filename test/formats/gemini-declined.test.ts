/**
 * A tool call the user declined in Gemini CLI 0.61 (test/fixtures/gemini/real-0.61.0-declined: the real
 * `gemini` in a terminal, its confirmation answered with Esc): Gemini CLI records the call with status
 * `cancelled` and the error `[Operation Cancelled] Reason: User denied execution.` as its result, says
 * "Request cancelled.", and drops the reply from the conversation (a `$set.messages` of the history
 * before it). threadbase reads that result as refused (`meta.refused`, an error; a call cancelled
 * otherwise `meta.cancelled`), the reply on the abandoned branch Gemini CLI left it on, and writes a
 * refused or cancelled call back as Gemini CLI does: status `cancelled`, the error its result.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Session, ToolResultPart } from '../../src/model/types.js';
import { chainSession, textMessage, toolResultsOf } from '../helpers/sessions.js';

// what Gemini CLI 0.61 records as the result of a declined call
const DECLINED_RESULT = '[Operation Cancelled] Reason: User denied execution.';
const REAL = resolve('test/fixtures/gemini/real-0.61.0-declined');
const ID = '1c59a639-6bc6-4c98-b8d6-1f1ebe836073';
const DECLINED_REPLY = '9fa08016-7cf6-454e-b041-6cd0174be37a';
const DECLINED_CALL = 'run_shell_command__run_shell_command_1795699065456_0';
const RAN_CALL = 'run_shell_command__run_shell_command_1795699131511_0';

const resultOf = (s: Session, callId: string): ToolResultPart | undefined => toolResultsOf(s).find((p) => p.callId === callId);

let root: string;
let env: DriverEnv;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-declined-'));
  await fs.cp(join(REAL, '.gemini'), join(root, '.gemini'), { recursive: true });
  env = { home: root, env: { GEMINI_CLI_HOME: root } };
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** The chat file written for a session, its records after the metadata line. */
async function writtenRecords(
  driver: GeminiDriver,
  session: Session,
): Promise<{ id: string; records: Record<string, unknown>[] }> {
  const info = await driver.writeSession(session);
  const text = await fs.readFile(info.path as string, 'utf8');
  return {
    id: info.id,
    records: text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const toolCallsOf = (records: Record<string, unknown>[]) =>
  records.flatMap((r) => (Array.isArray(r.toolCalls) ? (r.toolCalls as Record<string, unknown>[]) : []));

describe('gemini: a call the user declined in the real 0.61.0', () => {
  it('reads as refused, not as a call that ran; the reply is off the conversation, as Gemini CLI left it', async () => {
    const driver = new GeminiDriver(env);
    const s = (await driver.getSession(ID)) as Session;
    expect(resultOf(s, DECLINED_CALL)).toEqual({
      type: 'tool_result',
      callId: DECLINED_CALL,
      name: 'run_shell_command',
      content: DECLINED_RESULT,
      isError: true,
      meta: { refused: true },
    });
    const call = s.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_call' && p.id === DECLINED_CALL);
    expect(call?.meta?.status).toBe('cancelled');
    // the call it ran later (allowed) is no refusal
    expect(resultOf(s, RAN_CALL)?.meta?.refused).toBeUndefined();
    expect(resultOf(s, RAN_CALL)?.isError).toBeUndefined();
    // Gemini CLI took the declined reply out of its history: it is on an abandoned branch, with its "Request cancelled."
    const current = pathToLeaf(s).map((e) => e.id);
    expect(current).not.toContain(DECLINED_REPLY);
    const info = s.entries.find((e) => e.kind === 'metadata' && e.type === 'gemini:info');
    expect(info?.parentId).toBe(`${DECLINED_REPLY}:results`);
  });

  it('is written back as Gemini CLI records it: status cancelled, the error its result; read back refused', async () => {
    const driver = new GeminiDriver(env);
    const s = (await driver.getSession(ID)) as Session;
    // the branch that holds the refusal
    const { id, records } = await writtenRecords(driver, { ...s, leafId: `${DECLINED_REPLY}:results` });
    const [declined] = toolCallsOf(records);
    expect(declined).toMatchObject({
      id: DECLINED_CALL,
      status: 'cancelled',
      result: [{ functionResponse: { id: DECLINED_CALL, name: 'run_shell_command', response: { error: DECLINED_RESULT } } }],
    });
    // what Gemini CLI's own fields say is not kept again beside them
    expect(declined?.threadbase).toBeUndefined();
    const back = (await driver.getSession(id)) as Session;
    expect(resultOf(back, DECLINED_CALL)).toMatchObject({ isError: true, meta: { refused: true } });
    expect(resultOf(back, DECLINED_CALL)?.meta?.cancelled).toBeUndefined();
  });
});

describe('gemini: refused and cancelled calls of other agents', () => {
  const session = (meta: Record<string, unknown>, content: string): Session =>
    chainSession('other', 'claude', '/work/p', [
      ['u', textMessage('user', 'delete it')],
      [
        'a',
        {
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          parts: [{ type: 'tool_call', id: 'c1', name: 'Bash', input: { command: 'rm x' } }],
        },
      ],
      ['r', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content, isError: true, meta }] }],
      ['b', textMessage('assistant', 'I will not delete it.', { model: 'claude-sonnet-4-5' })],
    ]);
  const REJECTED = "The user doesn't want to proceed with this tool use. The tool use was rejected.";

  it('a refused call (in its own words) is a cancelled call in Gemini CLI, read back refused', async () => {
    const driver = new GeminiDriver(env);
    const { id, records } = await writtenRecords(driver, session({ refused: true }, REJECTED));
    expect(toolCallsOf(records)[0]).toMatchObject({
      status: 'cancelled',
      result: [{ functionResponse: { response: { error: REJECTED } } }],
    });
    const back = (await driver.getSession(id)) as Session;
    expect(resultOf(back, 'c1')).toMatchObject({ content: REJECTED, isError: true, meta: { refused: true } });
    expect(resultOf(back, 'c1')?.meta?.cancelled).toBeUndefined();
  });

  it('a cancelled call is cancelled again; an error is an error', async () => {
    const driver = new GeminiDriver(env);
    const cancelled = await writtenRecords(
      driver,
      session({ cancelled: true }, '[Operation Cancelled] Reason: User cancelled operation'),
    );
    expect(toolCallsOf(cancelled.records)[0]?.status).toBe('cancelled');
    expect(resultOf((await driver.getSession(cancelled.id)) as Session, 'c1')?.meta).toEqual({ cancelled: true });
    const failed = await writtenRecords(driver, session({}, 'exit 1'));
    expect(toolCallsOf(failed.records)[0]?.status).toBe('error');
    expect(resultOf((await driver.getSession(failed.id)) as Session, 'c1')?.meta).toBeUndefined();
  });

  it("a call left without a result gets threadbase's error result, cancelled in the chat but marked neither", async () => {
    const driver = new GeminiDriver(env);
    const s = session({}, '');
    const entries: Entry[] = s.entries.filter((e) => e.id !== 'r' && e.id !== 'b');
    const { id, records } = await writtenRecords(driver, { ...s, entries, leafId: 'a' });
    expect(toolCallsOf(records)[0]?.status).toBe('cancelled');
    const r = resultOf((await driver.getSession(id)) as Session, 'c1');
    expect(r?.meta).toEqual({ geminiSynthetic: true });
  });
});
