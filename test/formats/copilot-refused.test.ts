/**
 * Copilot CLI 1.0.102's records of calls that did not run, read as refused / cancelled (denials.ts): a
 * failed `tool.execution_complete` whose error has `code: "denied"` (a permission it refused: the events
 * below are the real `copilot -p`'s, denied by `--deny-tool 'shell(touch)'` and with no one to approve),
 * or its words for the user's rejection / interruption; and a marked result written back in Copilot CLI's
 * words. The real Copilot CLI resuming such sessions: test/agents/refused-copilot.test.ts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import '../../src/formats/all.js';
import { COPILOT_INTERRUPTED, COPILOT_REJECTED, copilotDeclinedMark } from '../../src/formats/copilot/denials.js';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { declinedCallsSession, declinedResult, toolResultsOf } from '../helpers/sessions.js';

const BY_RULE = 'Permission to run this tool was denied due to the following rules: `shell(touch)`';
const NO_APPROVER =
  'Permission denied because no interactive user response was available. Retry in an interactive session so the user can approve it, or try an alternative that does not require this permission.';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-refused-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const marks = (rs: ToolResultPart[]) => rs.map((r) => [r.callId, r.isError === true, r.meta?.refused, r.meta?.cancelled]);

async function driverWith(name: string, id: string, events: Record<string, unknown>[]): Promise<CopilotDriver> {
  const root = join(dir, name);
  await mkdir(join(root, 'session-state', id), { recursive: true });
  await writeFile(join(root, 'session-state', id, 'events.jsonl'), `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: root } });
}

describe('Copilot CLI: the words of a call that did not run', () => {
  it('are refused when a permission check or the user refused it, cancelled when it was interrupted', () => {
    expect(copilotDeclinedMark('anything', 'denied')).toBe('refused');
    expect(copilotDeclinedMark(BY_RULE)).toBe('refused');
    expect(copilotDeclinedMark(NO_APPROVER)).toBe('refused');
    expect(copilotDeclinedMark(COPILOT_REJECTED)).toBe('refused');
    expect(copilotDeclinedMark(`${COPILOT_REJECTED}. User feedback: not there`)).toBe('refused');
    expect(copilotDeclinedMark(COPILOT_INTERRUPTED)).toBe('cancelled');
    expect(copilotDeclinedMark('The pending permission request was cancelled before the tool could continue.')).toBe('cancelled');
    expect(copilotDeclinedMark('touch: cannot touch: Permission denied', 'failure')).toBeUndefined();
  });
});

describe('Copilot CLI: reading refused and cancelled calls', () => {
  it('marks failed results by their error code and words', async () => {
    const id = '5e4e5e9c-3029-4748-b87c-550c009a7dbe';
    let n = 0;
    const ev = (type: string, data: Record<string, unknown>) => {
      n++;
      return {
        type,
        data,
        id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
        timestamp: new Date(Date.parse('2026-11-26T16:32:00.000Z') + n * 1000).toISOString(),
        parentId: n === 1 ? null : `00000000-0000-4000-8000-${String(n - 1).padStart(12, '0')}`,
      };
    };
    const calls = ['ruled', 'unapproved', 'rejected', 'interrupted', 'failed'];
    const complete = (toolCallId: string, error: Record<string, unknown>) =>
      ev('tool.execution_complete', { toolCallId, success: false, error });
    const events = [
      ev('session.start', { sessionId: id, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102' }),
      ev('user.message', { content: 'RUN: touch a.txt' }),
      ev('assistant.message', {
        content: '',
        toolRequests: calls.map((toolCallId) => ({ toolCallId, name: 'bash', arguments: { command: 'touch a.txt' } })),
      }),
      // as the real 1.0.102 records a denial by --deny-tool and one with no one to approve
      complete('ruled', { message: BY_RULE, code: 'denied' }),
      complete('unapproved', { message: NO_APPROVER, code: 'denied' }),
      complete('rejected', { message: `${COPILOT_REJECTED}. User feedback: not now` }),
      complete('interrupted', { message: COPILOT_INTERRUPTED }),
      complete('failed', { message: 'exit code 1', code: 'failure' }),
    ];
    const driver = await driverWith('read', id, events);
    expect(marks(toolResultsOf(await driver.getSession(id)))).toEqual([
      ['ruled', true, true, undefined],
      ['unapproved', true, true, undefined],
      ['rejected', true, true, undefined],
      ['interrupted', true, undefined, true],
      ['failed', true, undefined, undefined],
    ]);
  });
});

describe('Copilot CLI: writing refused and cancelled calls', () => {
  const declined = (callId: string, content: string, mark: 'refused' | 'cancelled') =>
    declinedResult(callId, 'bash', content, mark);
  const session = (results: ToolResultPart[]): Session => declinedCallsSession('/tmp/p', results, 'claude-sonnet-4.5');
  const completions = (s: Session) =>
    encodeCopilotEvents(s, { sessionId: '11111111-1111-4111-8111-111111111111' })
      .records.filter((r) => r.type === 'tool.execution_complete')
      .map((r) => r.data);

  it("writes another agent's words as Copilot CLI's and reads them back marked; its own words stay", async () => {
    const s = session([
      declined('a', "The user doesn't want to proceed with this tool use.", 'refused'),
      declined('b', 'Operation aborted', 'cancelled'),
      declined('c', BY_RULE, 'refused'),
    ]);
    const data = completions(s);
    expect(data).toEqual([
      { toolCallId: 'a', success: false, error: { message: COPILOT_REJECTED, code: 'denied' } },
      { toolCallId: 'b', success: false, error: { message: COPILOT_INTERRUPTED } },
      { toolCallId: 'c', success: false, error: { message: BY_RULE, code: 'denied' } },
    ]);
    const id = '22222222-2222-4222-8222-222222222222';
    const encoded = encodeCopilotEvents(s, { sessionId: id });
    const driver = await driverWith('write', id, encoded.records);
    expect(toolResultsOf(await driver.getSession(id)).map((r) => [r.content, ...(marks([r])[0] ?? []).slice(1)])).toEqual([
      [COPILOT_REJECTED, true, true, undefined],
      [COPILOT_INTERRUPTED, true, undefined, true],
      [BY_RULE, true, true, undefined],
    ]);
    expect(conversionLosses(s, 'copilot').join('\n')).toMatch(/written in Copilot CLI's words.*\(2\)/);
  });
});
