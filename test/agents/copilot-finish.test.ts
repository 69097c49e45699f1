/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in) resumes a
 * session threadbase wrote with each response's stop reason and API in its usage record (`finishReason`
 * in Copilot CLI's words, `apiEndpoint`) and what they cannot tell kept in the assistant.message's
 * `threadbase` (formats/copilot/finish.ts), with its cost in USD and another agent's reasoning and call meta: it sends the context threadbase reads, and the reply it
 * records itself reads back in the model's words (its `stop` as end_turn, `/v1/messages` as anthropic-messages).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { buildContext } from '../../src/model/tree.js';
import type { Part, Session } from '../../src/model/types.js';
import {
  copilotHomeForFile,
  plainTextResults,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
  stopsSession,
} from '../helpers/copilot.js';

const home = copilotHomeForFile('tb-copilot-finish-');

const finishes = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data: { usage?: Record<string, unknown> } })
    .flatMap((e) => (e.type === 'session.usage_record' ? [[e.data.usage?.finishReason, e.data.usage?.apiEndpoint]] : []));

describe.skipIf(SKIP)('stop reasons and APIs written into Copilot CLI, and the real Copilot CLI', () => {
  const cases: [string, [string, string, string], string, string[][]][] = [
    [
      "Claude Code's",
      ['tool_use', 'max_tokens', 'end_turn'],
      'anthropic-messages',
      [
        ['tool_calls', '/v1/messages'],
        ['length', '/v1/messages'],
        ['stop', '/v1/messages'],
      ],
    ],
    // pi's words: the same finishReasons, pi's own kept beside them; an API of no endpoint kept so too
    [
      "pi's",
      ['toolUse', 'length', 'stop'],
      'google-generative-ai',
      [
        ['tool_calls', undefined],
        ['length', undefined],
        ['stop', undefined],
      ] as unknown as string[][],
    ],
  ];
  for (const [name, stops, api, recorded] of cases)
    it(`${name} are resumed as threadbase reads them`, async () => {
      const session = stopsSession('threadbase', home.project, stops, api, 'anthropic');
      // a cost in USD too, kept beside the message
      // and usage terms the usage record has no field for, kept beside it too
      const extras = {
        cacheWrite1h: 1,
        advisors: [{ model: 'claude-opus-5', input: 9, output: 2, cacheRead: 0, cacheWrite: 0 }],
      };
      for (const e of session.entries)
        if (e.kind === 'message' && e.message.role === 'assistant' && e.message.usage) {
          e.message.cost = 0.5;
          e.message.usage = { ...e.message.usage, ...extras };
        }
      const info = await home.driver.writeSession(session);
      expect(finishes(info.path as string)).toEqual(recorded);
      const { sent, ours } = await resumedByCopilot(home, info.id, `probe ${name}`, plainTextResults);
      expect(sent).toEqual(ours);
      expect(sent).toHaveLength(6);
      // the resumed file: ours as written, then Copilot CLI's own reply in the model's words
      const resumed = (await home.driver.getSession(info.id)) as Session;
      const replies = buildContext(resumed).messages.filter((m) => m.role === 'assistant');
      expect(replies.slice(0, 3).map((m) => m.usage?.advisors)).toEqual([extras.advisors, extras.advisors, extras.advisors]);
      expect(replies.map((m) => [m.stopReason, m.api, m.cost])).toEqual([
        ...stops.map((s) => [s, api, 0.5]),
        ['end_turn', 'anthropic-messages', undefined],
      ]);
    }, 240_000);

  it("a response with another agent's reasoning and call meta kept beside it is resumed as threadbase reads it", async () => {
    const session = stopsSession('threadbase', home.project, ['toolUse', 'length', 'stop'], 'openai-responses', 'openai');
    for (const e of session.entries)
      if (e.kind === 'message' && e.message.role === 'assistant')
        e.message.parts = e.message.parts.flatMap((p): Part[] =>
          p.type === 'tool_call'
            ? [
                { type: 'thinking' as const, thinking: 'Reasoned.', meta: { encryptedContent: 'ENC-1', codexItemId: 'rs_1' } },
                { ...p, meta: { piItemId: 'fc_1' } },
              ]
            : [p],
        );
    const info = await home.driver.writeSession(session);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe meta', plainTextResults);
    expect(sent).toEqual(ours);
    expect(sent).toHaveLength(6);
    const read = (await home.driver.getSession(info.id)) as Session;
    const parts = buildContext(read).messages.flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === 'thinking')?.meta).toEqual({ encryptedContent: 'ENC-1', codexItemId: 'rs_1' });
    expect(parts.find((p) => p.type === 'tool_call')?.meta).toEqual({ piItemId: 'fc_1' });
  }, 240_000);
});
