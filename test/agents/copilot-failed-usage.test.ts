/**
 * A failed turn's tokens written into Copilot CLI as it records its own (formats/copilot-failed-usage): usage
 * records with no assistant.message before the session.error. The real GitHub Copilot CLI (1.0.102, offline
 * against the Anthropic stand-in) loads the copy (Claude Code's failed turn, the entry's id and time in the
 * session.error's `threadbase`; a copy of Copilot CLI's own failed call after a response cut short), resumes it
 * sending nothing of the failed call, and its session.shutdown counts the usage records as threadbase does.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the test skips.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Message, Session, Usage } from '../../src/model/types.js';
import {
  COPILOT_MODEL,
  copilotEvent,
  copilotHomeForFile,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  userMessageEvent,
  writeCopilotEvents,
} from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-failed-usage-');
const FAILED = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

type Event = { type: string; data: Record<string, unknown> };

/** The usage the last session.shutdown of a Copilot CLI session counts (its modelMetrics), in the model's terms. */
async function shutdownUsage(s: Session): Promise<Usage> {
  const events = (await readFile(s.path as string, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Event);
  const metrics = events.filter((e) => e.type === 'session.shutdown').at(-1)?.data.modelMetrics as Record<
    string,
    { usage: Record<string, number> }
  >;
  const total = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  for (const { usage: u } of Object.values(metrics ?? {})) {
    total.input += (u.inputTokens ?? 0) - (u.cacheReadTokens ?? 0) - (u.cacheWriteTokens ?? 0);
    total.output += u.outputTokens ?? 0;
    total.cacheRead += u.cacheReadTokens ?? 0;
    total.cacheWrite += u.cacheWriteTokens ?? 0;
    total.reasoning += u.reasoningTokens ?? 0;
  }
  return total;
}

const failedCalls = (s: Session): Message[] =>
  s.entries.flatMap((e) => (e.kind === 'message' && e.message.stopReason === 'error' ? [e.message] : []));

describe.skipIf(SKIP)("a failed turn's tokens in Copilot CLI, and the real Copilot CLI", () => {
  it("another agent's: loaded, resumed without it, its tokens counted by Copilot CLI as by threadbase", async () => {
    const usage = { input: 12, output: 5, cacheRead: 3, cacheWrite: 4, reasoning: 0 };
    const session = chainSession('failed-usage', 'claude', home.project, [
      ['u1', textMessage('user', 'first try')],
      [
        'a1',
        {
          role: 'assistant',
          model: COPILOT_MODEL,
          parts: [{ type: 'text', text: FAILED }],
          stopReason: 'error',
          error: FAILED,
          usage,
        },
      ],
      ['u2', textMessage('user', 'second try')],
      ['a2', textMessage('assistant', 'answered', { model: COPILOT_MODEL, responseId: 'msg_2', stopReason: 'end_turn', usage })],
    ]);
    const info = await home.driver.writeSession(session);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe failed usage');
    expect(sent).toEqual(ours);
    expect(JSON.stringify(sent)).not.toContain('Overloaded');
    const resumed = (await home.driver.getSession(info.id)) as Session;
    // the failed call still read with its usage, the copy's entry (its id and time) as threadbase wrote it
    expect(failedCalls(resumed).map((m) => [m.error, m.usage])).toEqual([[FAILED, usage]]);
    expect(resumed.entries.find((e) => e.kind === 'message' && e.message.error)?.id).toBe('a1');
    // Copilot CLI's own count after the resume: our two records and its reply's, as threadbase's
    expect(resumed.usage).toEqual(await shutdownUsage(resumed));
    expect(resumed.usage?.output).toBeGreaterThan(2 * usage.output);
  }, 240_000);

  it("Copilot CLI's own, copied into Copilot CLI: the same records, resumed and counted alike", async () => {
    // as the real 1.0.102 recorded it: a response cut short (max_tokens), then its "Please continue" refused (400)
    const user = userMessageEvent('please');
    const record = copilotEvent('session.usage_record', {
      usage: {
        model: COPILOT_MODEL,
        inputTokens: 151,
        outputTokens: 7,
        cacheReadTokens: 30,
        cacheWriteTokens: 20,
        modelProvider: 'anthropic',
        apiEndpoint: '/v1/messages',
        apiCallId: 'msg_probe_1',
        finishReason: 'length',
      },
    });
    const error = copilotEvent('session.error', {
      errorType: 'query',
      message: '400 PROBE continuation refused',
      statusCode: 400,
      providerCallId: 'req_2',
      originatingMessageId: user.data.messageId,
    });
    const id = 'a0c4d7e2-5b6f-4a81-9c3d-2e1f0a9b8c7d';
    await writeCopilotEvents(home, id, [
      copilotEvent('session.start', {
        sessionId: id,
        version: 1,
        producer: 'copilot-agent',
        copilotVersion: '1.0.102',
        startTime: '2026-01-01T00:00:00.000Z',
        context: { cwd: home.project },
      }),
      user,
      record,
      error,
      // then resumed with another message and answered
      userMessageEvent('again'),
      copilotEvent('session.usage_record', {
        usage: {
          model: COPILOT_MODEL,
          inputTokens: 40,
          outputTokens: 3,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          apiCallId: 'msg_probe_3',
          finishReason: 'stop',
        },
      }),
      copilotEvent('assistant.message', { messageId: 'm-3', content: 'fine', toolRequests: [], apiCallId: 'msg_probe_3' }),
    ]);
    const original = (await home.driver.getSession(id)) as Session;
    const copied = await home.driver.writeSession(original);
    const { sent, ours } = await resumedByCopilot(home, copied.id, 'probe copied failed call');
    expect(sent).toEqual(ours);
    // nothing of the failed call: the user's two messages as one, the reply
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant']);
    const resumed = (await home.driver.getSession(copied.id)) as Session;
    // the cut-short response's tokens, the failed call's in the original and in the resumed copy
    const spent = { input: 101, output: 7, cacheRead: 30, cacheWrite: 20, reasoning: 0 };
    expect(failedCalls(original).map((m) => [m.error, m.usage])).toEqual([['400 PROBE continuation refused', spent]]);
    expect(failedCalls(resumed).map((m) => [m.error, m.usage])).toEqual(failedCalls(original).map((m) => [m.error, m.usage]));
    expect(resumed.usage).toEqual(await shutdownUsage(resumed));
  }, 240_000);
});
