/**
 * A failed model call in Copilot CLI (formats/copilot/failed-turns.ts). copilot-failed-call.events.jsonl was
 * recorded by the real Copilot CLI 1.0.102 against a stand-in answering 400 ("PROBE-ERR messages.1.content:
 * bad block"), then resumed with "PROBE2" (its system prompt shortened): it records the failed call as a
 * session.error with the message, no usage record and no assistant.message, and resumed it sent the two
 * prompts as one user message, nothing for the error. threadbase reads it as the model's error entry and writes
 * another agent's failed call (Claude Code's API-error record) so, not as a reply Copilot CLI would send.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { copilotContext } from '../../src/formats/copilot/context.js';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { plainMessage } from '../helpers/copilot.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const RECORDED = 'eeef4383-a1fe-4d38-ba43-8a8185338869';
const ERROR = '400 PROBE-ERR messages.1.content: bad block';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-failed-'));
  const dir = join(home, '.copilot', 'session-state', RECORDED);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'events.jsonl'), readFileSync('test/formats/copilot-failed-call.events.jsonl'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

type Event = { type: string; data: Record<string, unknown> };
const messagesOf = (s: Session) => buildContext(s).messages;

/** Claude Code's API-error record as its reader reads it: the error's words as its text, stop reason `error`. */
const apiError = (text: string, extra: Partial<Message> = {}): Message => ({
  role: 'assistant',
  model: '<synthetic>',
  parts: [{ type: 'text', text }],
  stopReason: 'error',
  error: text,
  ...extra,
});

describe("Copilot CLI's failed call", () => {
  it('is read as the model’s error entry, and resumed as Copilot CLI sent it: nothing for it', async () => {
    const s = (await new CopilotDriver(homeEnv(home)).getSession(RECORDED)) as Session;
    const failed = messagesOf(s).find((m) => m.role === 'assistant' && m.error);
    expect(failed).toMatchObject({
      role: 'assistant',
      parts: [{ type: 'text', text: ERROR }],
      stopReason: 'error',
      error: ERROR,
    });
    expect(messagesOf(s).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // what the real Copilot CLI sent when resumed (its reply 'fine' came after)
    const sent = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<current_datetime>2026-11-27T04:10:25.789+00:00</current_datetime>\n\nPROBE please' },
          { type: 'text', text: '<current_datetime>2026-11-27T04:10:56.694+00:00</current_datetime>\n\nPROBE2' },
        ],
      },
    ];
    const ours = contextToAnthropic(copilotContext(s)).messages.map((m) => plainMessage(m as never));
    expect(ours.slice(0, 1)).toEqual(sent);
  });

  it("another agent's failed call is written as Copilot CLI records one, and read back as it was", async () => {
    const session = chainSession('failed', 'claude', '/p', [
      ['u1', textMessage('user', 'hello')],
      ['a1', apiError('API Error: 400 prompt is too long')],
      ['u2', textMessage('user', 'again')],
      ['a2', textMessage('assistant', 'hi', { model: 'claude-sonnet-4-5', responseId: 'msg_2', stopReason: 'end_turn' })],
    ]);
    const { records } = encodeCopilotEvents(session, { sessionId: RECORDED });
    const events = records as unknown as Event[];
    const firstUser = events.find((e) => e.type === 'user.message');
    const errors = events.filter((e) => e.type === 'session.error');
    expect(errors.map((e) => e.data)).toEqual([
      { errorType: 'query', message: 'API Error: 400 prompt is too long', originatingMessageId: firstUser?.data.messageId },
    ]);
    // no reply Copilot CLI would send for it
    expect(events.filter((e) => e.type === 'assistant.message').map((e) => e.data.content)).toEqual(['hi']);
    const copilot = new CopilotDriver(homeEnv(home));
    const info = await copilot.writeSession(session);
    const back = messagesOf((await copilot.getSession(info.id)) as Session);
    expect(back.map((m) => [m.role, m.stopReason, m.error])).toEqual([
      ['user', undefined, undefined],
      ['assistant', 'error', 'API Error: 400 prompt is too long'],
      ['user', undefined, undefined],
      ['assistant', 'end_turn', undefined],
    ]);
    expect(back[1]?.parts).toEqual([{ type: 'text', text: 'API Error: 400 prompt is too long' }]);
  });

  it('a failed call read from Copilot CLI is written back with its fields', async () => {
    const s = (await new CopilotDriver(homeEnv(home)).getSession(RECORDED)) as Session;
    const { records } = encodeCopilotEvents(s, { sessionId: RECORDED });
    const error = (records as unknown as Event[]).find((e) => e.type === 'session.error');
    expect(error?.data).toMatchObject({ errorType: 'query', message: ERROR, statusCode: 400, providerCallId: 'req_1' });
  });

  it('a failed turn with a reply so far stays a reply, its error beside it', () => {
    const session = chainSession('partial', 'pi', '/p', [
      ['u1', textMessage('user', 'hello')],
      ['a1', textMessage('assistant', 'Half an ans', { model: 'm', stopReason: 'error', error: 'connection reset' })],
    ]);
    const events = encodeCopilotEvents(session).records as unknown as Event[];
    expect(events.some((e) => e.type === 'session.error')).toBe(false);
    const reply = events.find((e) => e.type === 'assistant.message');
    expect(reply?.data).toMatchObject({ content: 'Half an ans', threadbase: { error: 'connection reset' } });
  });
});
