/**
 * A user's message typed while a response's calls ran, and the real GitHub Copilot CLI (@github/copilot
 * 1.0.102, offline against the Anthropic stand-in). Copilot CLI records it among the calls' results
 * (`user.message`, `delivery: "steering"`) and, resumed (`copilot --resume=<id> -p …`), sends all the
 * response's results, in call order, as one message, then the user's message as another: wherever among
 * the results it was recorded, a queued one or a plain one (no `delivery`) too; a call of the response still
 * open when the next response comes is sent in its interrupted words. threadbase's context of such a session is
 * what it sends; a Claude Code response split over records with the user's message between them, written
 * into Copilot CLI, is resumed with its calls in one message and their real results.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { COPILOT_INTERRUPTED } from '../../src/formats/copilot/denials.js';
import type { AnthropicMessage } from '../helpers/anthropic-standin.js';
import {
  echoCall as call,
  completionIndexes as completions,
  copilotHomeForFile,
  type CopilotEvent as Event,
  plainTextResults,
  recordedTwoCalls,
  modelReply as reply,
  toolResult as result,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  sentShape,
  userMessageEvent as userEvent,
} from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-steering-');

/** each message sent as its role and its blocks in short: a text's last line, a result's content as JSON */
const shape = (ms: readonly AnthropicMessage[]) => sentShape(ms, { lastLine: true, json: true });
const expected = (said: string, second = '"out2"') => [
  ['user', ['text go']],
  ['assistant', ['use toolu_c1', 'use toolu_c2']],
  ['user', ['result toolu_c1: "out1"', `result toolu_c2: ${second}`]],
  ['user', [`text ${said}`]],
  ['assistant', ['text done']],
];

describe.skipIf(SKIP)("a user's message among a response's results and the real Copilot CLI", () => {
  it('is sent after all the results, in call order, as threadbase reads it', async () => {
    const interrupted = JSON.stringify(COPILOT_INTERRUPTED);
    /** the second call's result left out: it never ended */
    const unended = (events: Event[]) => {
      events.splice(completions(events)[1] as number, 1);
      return events;
    };
    const cases: [string, (events: Event[]) => Event[], string?][] = [
      [
        'steering between the results, the second call first',
        (events) => {
          const [a, b] = completions(events) as [number, number];
          const [first, second] = [events[a] as Event, events[b] as Event];
          events.splice(a, 2, second, userEvent('steering between', 'steering'), first);
          return events;
        },
      ],
      [
        'steering before the results',
        (events) => {
          events.splice(completions(events)[0] as number, 0, userEvent('steering before', 'steering'));
          return events;
        },
      ],
      [
        'queued between the results',
        (events) => {
          events.splice((completions(events)[0] as number) + 1, 0, userEvent('queued between', 'queued'));
          return events;
        },
      ],
      // a call still open when the next response comes: sent in the interrupted words, before the message
      [
        'steering after one result, the other call never ended',
        (events) => {
          const out = unended(events);
          out.splice((completions(out)[0] as number) + 1, 0, userEvent('steering after', 'steering'));
          return out;
        },
        interrupted,
      ],
      [
        'queued after one result, the other call never ended',
        (events) => {
          const out = unended(events);
          out.splice((completions(out)[0] as number) + 1, 0, userEvent('queued after', 'queued'));
          return out;
        },
        interrupted,
      ],
    ];
    for (const [name, edit, second] of cases) {
      const said = name.split(' ').slice(0, 2).join(' ').replace(/,$/, '');
      const id = await recordedTwoCalls(home, edit);
      const { sent, ours } = await resumedByCopilot(home, id, `probe ${name}`, plainTextResults);
      expect(shape(sent), name).toEqual(expected(said, second));
      expect(sent, name).toEqual(ours);
    }
  }, 900_000);

  it("Claude Code's split response with the user's message between its records, written by threadbase", async () => {
    const claude = chainSession('claude', 'claude', home.project, [
      ['u1', textMessage('user', 'go')],
      ['a1', reply('msg_r1', call('toolu_c1', 1))],
      ['u2', textMessage('user', 'typed meanwhile')],
      ['a2', reply('msg_r1', call('toolu_c2', 2))],
      ['t1', result('toolu_c1', 'out1')],
      ['t2', result('toolu_c2', 'out2')],
      ['a3', reply('msg_r2', { type: 'text', text: 'done' })],
    ]);
    const info = await home.driver.writeSession(claude);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe written', plainTextResults);
    expect(shape(sent)).toEqual(expected('typed meanwhile'));
    expect(sent).toEqual(ours);
  }, 240_000);
});
