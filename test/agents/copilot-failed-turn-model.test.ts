/**
 * A failed turn that names no model (another agent's, or one that failed before any model was reported)
 * written into Copilot CLI: its usage records name the model the session runs on as the session tells it
 * (the one named last before it, else the next one named, else the session's), not a made-up 'unknown' that
 * Copilot CLI's usage lists and ours would show as a model of its own. The real GitHub Copilot CLI (1.0.102,
 * offline against the Anthropic stand-in) resumes the copy sending nothing of the failed turns, and its
 * session.shutdown counts their tokens under the session's model. Without the binary the resume test skips.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/encode.js';
import type { Entry, Message, Session, Usage } from '../../src/model/types.js';
import { COPILOT_MODEL, copilotHomeForFile, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { chainSession, messageEntry, textMessage } from '../helpers/sessions.js';
import { withTask } from '../helpers/sub-agents.js';

const FAILED = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const usage: Usage = { input: 12, output: 5, cacheRead: 3, cacheWrite: 4, reasoning: 0 };

/** A failed turn with tokens spent and no model named. */
const failed = (): Message => ({
  role: 'assistant',
  parts: [{ type: 'text', text: FAILED }],
  stopReason: 'error',
  error: FAILED,
  usage,
});
const answered = (model: string, id: string): Message =>
  textMessage('assistant', `answered ${id}`, { model, responseId: id, stopReason: 'end_turn', usage });

type Event = { type: string; data: Record<string, unknown> };
const recordModels = (events: readonly Event[]) =>
  events.filter((e) => e.type === 'session.usage_record').map((e) => (e.data.usage as { model: string }).model);

describe('the model of a failed turn that names none, written into Copilot CLI', () => {
  it('is the one named last before it, else the next one named, else the one the session names', () => {
    const session = chainSession('failed-model', 'claude', '/w', [
      ['u1', textMessage('user', 'first')],
      ['a1', failed()],
      ['u2', textMessage('user', 'second')],
      ['a2', answered('model-b', 'msg_2')],
      ['u3', textMessage('user', 'third')],
      ['a3', failed()],
      ['u4', textMessage('user', 'fourth')],
      ['a4', answered('model-c', 'msg_4')],
    ]);
    const events = encodeCopilotEvents(session).records as Event[];
    // a1: the next named (model-b); a3: the last named before it (model-b), not the later model-c
    expect(recordModels(events)).toEqual(['model-b', 'model-b', 'model-b', 'model-c']);
    // only failed turns: the session's own model (SessionInfo.models), else the stand-in name
    const onlyFailed = chainSession('only-failed', 'claude', '/w', [
      ['u1', textMessage('user', 'first')],
      ['a1', failed()],
    ]);
    expect(recordModels(encodeCopilotEvents({ ...onlyFailed, models: ['model-s'] }).records as Event[])).toEqual(['model-s']);
    expect(recordModels(encodeCopilotEvents(onlyFailed).records as Event[])).toEqual(['unknown']);
  });

  it("in a sub-agent's run that names no model, is its parent's", () => {
    const task = { type: 'tool_call' as const, id: 'task1', name: 'Task', input: { prompt: 'count the files' } };
    const spawned = { meta: { parent_tool_use_id: 'task1' } };
    const entries: Entry[] = [
      messageEntry('u', null, 1, textMessage('user', 'how many files?')),
      messageEntry('a', 'u', 2, { role: 'assistant', model: 'model-main', parts: [task], usage }),
      { ...messageEntry('s1', null, 3, textMessage('user', 'count the files', spawned)), sidechain: true },
      { ...messageEntry('s2', 's1', 4, { ...failed(), ...spawned }), sidechain: true },
      messageEntry('r', 'a', 5, { role: 'tool', parts: [{ type: 'tool_result', callId: 'task1', content: 'failed' }] }),
      messageEntry('b', 'r', 6, textMessage('assistant', 'It failed.', { model: 'model-main', usage })),
    ];
    const session: Session = {
      id: 'sdk',
      source: 'threadbase',
      project: '/w',
      createdAt: entries[0]?.timestamp as string,
      updatedAt: entries[5]?.timestamp as string,
      messageCount: 5,
      entries,
      leafId: 'b',
    };
    const events = encodeCopilotEvents(session).records as (Event & { agentId?: string })[];
    const inRun = events.filter((e) => e.agentId !== undefined);
    expect(inRun.some((e) => e.type === 'session.error')).toBe(true);
    expect(recordModels(inRun)).toEqual(['model-main']);
    expect(recordModels(events)).toEqual(['model-main', 'model-main', 'model-main']);
  });
});

const home = copilotHomeForFile('tb-copilot-failed-model-');

describe.skipIf(SKIP)('a sub-agent written into a Copilot session threadbase wrote (writeChildSession)', () => {
  it('writes a failed turn of the run that names no model with the model its parent ran the call on', async () => {
    const parent = { ...withTask('P', 'plan it', 'call_p', 'all done'), project: home.project };
    const info = await home.driver.writeSession(parent);
    const child: Session = {
      id: 'C',
      source: 'threadbase',
      project: home.project,
      createdAt: '2026-01-01T00:00:02.000Z',
      updatedAt: '2026-01-01T00:00:03.000Z',
      messageCount: 2,
      parentId: 'P',
      parentToolCallId: 'call_p',
      entries: [messageEntry('C-u', null, 2, textMessage('user', 'plan it, deeper')), messageEntry('C-a', 'C-u', 3, failed())],
      leafId: 'C-a',
    };
    const run = await home.driver.writeChildSession?.(info, child);
    expect(run?.meta?.warnings).toBeUndefined();
    const events = (await readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event & { agentId?: string });
    const inRun = events.filter((e) => e.agentId !== undefined);
    expect(inRun.some((e) => e.type === 'session.error')).toBe(true);
    // withTask's parent runs on claude-sonnet-4-5; the run names none of its own
    expect(recordModels(inRun)).toEqual(['claude-sonnet-4-5']);
  });
});

describe.skipIf(SKIP)('a failed turn without a model, and the real Copilot CLI', () => {
  it("resumed by Copilot CLI, its tokens counted under the session's model, no 'unknown' one", async () => {
    const session: Session = chainSession('failed-model-real', 'claude', home.project, [
      ['u1', textMessage('user', 'first try')],
      ['a1', failed()],
      ['u2', textMessage('user', 'second try')],
      ['a2', answered(COPILOT_MODEL, 'msg_2')],
      ['u3', textMessage('user', 'third try')],
      ['a3', failed()],
      ['u4', textMessage('user', 'fourth try')],
      ['a4', answered(COPILOT_MODEL, 'msg_4')],
    ]);
    const info = await home.driver.writeSession(session);
    const written = (await readFile(info.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    expect(recordModels(written)).toEqual([COPILOT_MODEL, COPILOT_MODEL, COPILOT_MODEL, COPILOT_MODEL]);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe failed model');
    expect(sent).toEqual(ours);
    expect(JSON.stringify(sent)).not.toContain('Overloaded');
    const resumed = (await home.driver.getSession(info.id)) as Session;
    expect(Object.keys(resumed.usageByModel ?? {})).not.toContain('unknown');
    expect(resumed.models).toEqual([COPILOT_MODEL]);
    // Copilot CLI's own count after the resume: one model, the session's
    const events = (await readFile(resumed.path as string, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    const metrics = events.filter((e) => e.type === 'session.shutdown').at(-1)?.data.modelMetrics as Record<string, unknown>;
    expect(Object.keys(metrics ?? {})).toEqual([COPILOT_MODEL]);
  }, 240_000);
});
