/**
 * A user's message found among a response's results and a result of that response recorded after it, and the
 * real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in). Copilot CLI's
 * `delivery` says only when a message came (its schema: idle, steering, queued: "the timing axis only"); an
 * older Copilot CLI, or another writer, records none. Resumed, Copilot CLI sends each call's result recorded
 * after the message, whatever its delivery (none, idle) and even after the next response, in the call's
 * place, the message after the results: the message answers no call. threadbase reads it so: the words a
 * call still open there was answered in give way to its result (no call gets two).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import {
  completionIndexes as completions,
  copilotEvent,
  copilotHomeForFile,
  type CopilotEvent as Event,
  plainTextResults,
  recordedTwoCalls,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  sentShape as shape,
  userMessageEvent as userEvent,
} from '../helpers/copilot.js';

const home = copilotHomeForFile('tb-copilot-plain-');

const replyEvent = (content: string) =>
  copilotEvent('assistant.message', { messageId: randomUUID(), apiCallId: `r-${randomUUID()}`, content, toolRequests: [] });

describe.skipIf(SKIP)("a user's message with a result recorded after it, and the real Copilot CLI", () => {
  it('answers no call: each call is sent with its real result, the message after them, as threadbase reads it', async () => {
    const cases: [string, (events: Event[]) => Event[], string[]][] = [
      [
        'plain between the results',
        (ev) => {
          ev.splice((completions(ev)[0] as number) + 1, 0, userEvent('plain between the results'));
          return ev;
        },
        ['text done'],
      ],
      [
        'plain before the results',
        (ev) => {
          ev.splice(completions(ev)[0] as number, 0, userEvent('plain before the results'));
          return ev;
        },
        ['text done'],
      ],
      [
        'idle between the results',
        (ev) => {
          ev.splice((completions(ev)[0] as number) + 1, 0, userEvent('idle between the results', 'idle'));
          return ev;
        },
        ['text done'],
      ],
      // a reply before the second result: the result still goes in its call's place
      [
        'plain, then a reply, then the result',
        (ev) => {
          ev.splice(
            (completions(ev)[0] as number) + 1,
            0,
            userEvent('plain, then a reply, then the result'),
            replyEvent('meanwhile'),
          );
          return ev;
        },
        ['text meanwhile', 'text done'],
      ],
    ];
    for (const [name, edit, last] of cases) {
      const id = await recordedTwoCalls(home, edit);
      const { sent, ours } = await resumedByCopilot(home, id, `probe ${name}`, plainTextResults);
      expect(shape(sent), name).toEqual([
        ['user', ['text go']],
        ['assistant', ['use toolu_c1', 'use toolu_c2']],
        ['user', ['result toolu_c1: out1', 'result toolu_c2: out2']],
        ['user', [`text ${name}`]],
        ['assistant', last],
      ]);
      expect(sent, name).toEqual(ours);
      // one result a call in the session read, not the interrupted words beside it
      const session = (await home.driver.getSession(id)) as Session;
      const results = buildContext(session).messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'));
      expect(
        results.map((p) => (p.type === 'tool_result' ? [p.callId, p.content] : [])),
        name,
      ).toEqual([
        ['toolu_c1', 'out1'],
        ['toolu_c2', 'out2'],
      ]);
    }
  }, 900_000);
});
