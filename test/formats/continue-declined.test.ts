/**
 * Calls Continue did not run: a call cn refused (test/fixtures/continue/refused-1.5.47, the real cn 1.5.47
 * with `--exclude Bash`: states `canceled`, "Command blocked by security policy"; the user's refusal is
 * "Permission denied by user") reads as refused; a state without output (a call stopped before it answered,
 * for which cn sends "Tool cancelled") as cancelled; another agent's refused and cancelled calls are written
 * as cn records its own.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { conversionLosses } from '../../src/convert/losses.js';
import { TOOL_ITEM } from '../../src/formats/continue/history.js';
import { ContinueDriver, continueContext } from '../../src/formats/continue/index.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import {
  chainSession,
  declinedResult,
  geminiDeclinedSession,
  textMessage,
  toolResultsIn,
  toolResultsOf,
} from '../helpers/sessions.js';

const REFUSED = 'afcfdd0e-40a6-4ea2-b1d6-b1f3e740665e';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-continue-declined-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const marks = (rs: ToolResultPart[]) => rs.map((r) => [r.content, r.isError, r.meta?.refused, r.meta?.cancelled]);
const sentResults = (s: Session) => toolResultsIn(continueContext(s).messages).map((p) => [p.callId, p.content]);

describe('calls Continue did not run', () => {
  it('a call its permission rules refused (real cn 1.5.47) reads as refused', async () => {
    const root = resolve('test/fixtures/continue/refused-1.5.47/.continue');
    const driver = new ContinueDriver({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: root } });
    const s = await driver.getSession(REFUSED);
    const blocked = 'Command blocked by security policy';
    expect(marks(toolResultsOf(s))).toEqual([
      [blocked, true, true, undefined],
      [blocked, true, true, undefined],
    ]);
  });

  it('a state without output reads as cn\'s "Tool cancelled", cancelled; the user\'s refusal as refused', async () => {
    const root = join(dir, 'own');
    await mkdir(join(root, 'sessions'), { recursive: true });
    const call = (id: string) => ({ id, type: 'function', function: { name: 'Bash', arguments: '{"command":"rm x"}' } });
    const state = (id: string, status: string, out?: string) => ({
      toolCallId: id,
      toolCall: call(id),
      status,
      ...(out ? { output: [{ content: out, name: 'Tool Result', description: 'Tool execution result' }] } : {}),
    });
    const id = '55555555-2222-4333-8444-555555555555';
    const history = [
      { message: { role: 'user', content: 'remove it' }, contextItems: [] },
      {
        message: { role: 'assistant', content: '', toolCalls: [call('d1'), call('d2'), call('d3')] },
        contextItems: [],
        toolCallStates: [
          state('d1', 'canceled', 'Permission denied by user'),
          state('d2', 'calling'),
          state('d3', 'errored', 'Permission denied by user'),
        ],
      },
    ];
    await writeFile(
      join(root, 'sessions', `${id}.json`),
      JSON.stringify({ sessionId: id, title: 't', workspaceDirectory: '/p', history }),
    );
    const driver = new ContinueDriver({ home: join(dir, 'nohome'), env: { CONTINUE_GLOBAL_DIR: root } });
    const s = (await driver.getSession(id)) as Session;
    expect(marks(toolResultsOf(s))).toEqual([
      ['Permission denied by user', true, true, undefined],
      ['Tool cancelled', true, undefined, true],
      // not a refusal cn recorded (its refusals are `canceled`): a plain error
      ['Permission denied by user', true, undefined, undefined],
    ]);
    expect(sentResults(s)).toEqual([
      ['d1', 'Permission denied by user'],
      ['d2', 'Tool cancelled'],
      ['d3', 'Permission denied by user'],
    ]);
  });
});

describe("another agent's refused and cancelled calls written into Continue", () => {
  it('are written as cn records its own, read back marked, sent in its words; convert says it reworded them', async () => {
    const driver = new ContinueDriver({ home: join(dir, 'writes'), env: {} });
    const source = geminiDeclinedSession({ project: '/p', model: 'claude-standin', tool: 'Bash', cancelledToo: true });
    const info = await driver.writeSession(source);
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as {
      history: { toolCallStates?: { status: string; output?: { content: string }[] }[] }[];
    };
    expect(doc.history.flatMap((h) => h.toolCallStates ?? []).map((t) => [t.status, t.output?.map((o) => o.content)])).toEqual([
      ['canceled', ['Permission denied by user']],
      ['canceled', undefined],
    ]);
    const back = (await driver.getSession(info.id)) as Session;
    expect(toolResultsOf(back).map((r) => [r.meta?.refused, r.meta?.cancelled])).toEqual([
      [true, undefined],
      [undefined, true],
    ]);
    expect(sentResults(back)).toEqual([
      ['call_a', 'Permission denied by user'],
      ['call_b', 'Tool cancelled'],
    ]);
    expect(conversionLosses(source, 'continue').filter((l) => l.includes('refused or cancelled'))).toEqual([
      expect.stringMatching(/refused or cancelled calls' results written in Continue's words .*\(2\)$/),
    ]);
  });
});

describe('refused and cancelled results of `tool` items written into Continue', () => {
  it("are written in cn's words (it sends a tool item's content), read back marked, and sent so", async () => {
    const driver = new ContinueDriver({ home: join(dir, 'tool-items'), env: {} });
    const item = (p: ToolResultPart): ToolResultPart => ({ ...p, meta: { ...p.meta, [TOOL_ITEM]: true } });
    const source = chainSession('tool-items', 'pi', '/p', [
      ['t1', textMessage('user', 'remove them')],
      [
        't2',
        {
          role: 'assistant',
          model: 'claude-standin',
          parts: ['r', 'c', 'k'].map((id) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command: `rm ${id}` } })),
        },
      ],
      [
        't3',
        {
          role: 'tool',
          parts: [
            item(declinedResult('r', 'Bash', 'Blocked by user', 'refused')),
            item(declinedResult('c', 'Bash', 'Operation aborted', 'cancelled')),
            // already cn's words for its rules' refusal: kept
            item(declinedResult('k', 'Bash', 'Command blocked by security policy', 'refused')),
          ],
        },
      ],
    ]);
    const info = await driver.writeSession(source);
    const doc = JSON.parse(await readFile(info.path as string, 'utf8')) as {
      history: { message: { role: string; content: unknown } }[];
    };
    expect(doc.history.filter((h) => h.message.role === 'tool').map((h) => h.message.content)).toEqual([
      'Permission denied by user',
      'Tool cancelled',
      'Command blocked by security policy',
    ]);
    const back = (await driver.getSession(info.id)) as Session;
    expect(toolResultsOf(back).map((r) => [r.callId, r.meta?.refused, r.meta?.cancelled])).toEqual([
      ['r', true, undefined],
      ['c', undefined, true],
      ['k', true, undefined],
    ]);
    // the calls' states (no output: "Tool cancelled"), then the tool items where they stand, in cn's words
    expect(sentResults(back)).toEqual([
      ['r', 'Tool cancelled'],
      ['c', 'Tool cancelled'],
      ['k', 'Tool cancelled'],
      ['r', 'Permission denied by user'],
      ['c', 'Tool cancelled'],
      ['k', 'Command blocked by security policy'],
    ]);
  });
});
