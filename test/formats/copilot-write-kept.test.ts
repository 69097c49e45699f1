/**
 * What a session written into Copilot CLI keeps where Copilot CLI keeps it (its event schema,
 * 1.0.102), read back as it was, and left out of the resume context where Copilot CLI does not send
 * it (seen against the stand-in: test/agents/copilot.test.ts):
 * - a system message: a system.message event (named `threadbase`, apart from Copilot CLI's own prompt);
 * - thinking without a signature: the assistant.message's `reasoningText`;
 * - a tool result's image: its `result.binaryResultsForLlm`, the bytes inline (a failed one's in a `result` beside its error).
 * An image in an assistant message has no place there (a text note; the conversion says so once).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { conversionLosses } from '../../src/convert/losses.js';
import { CopilotDriver, copilotContext } from '../../src/formats/copilot/index.js';
import type { Session } from '../../src/model/types.js';
import { homeEnv } from '../helpers/fixture-homes.js';
import { messageEntry, ONE_PIXEL_PNG } from '../helpers/sessions.js';

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-copilot-kept-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

const model = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
const session: Session = {
  id: 'kept',
  source: 'threadbase',
  project: '/p',
  createdAt: '2026-01-01T00:00:01.000Z',
  updatedAt: '2026-01-01T00:00:06.000Z',
  messageCount: 5,
  leafId: 'a2',
  entries: [
    messageEntry('s', null, 1, { role: 'system', parts: [{ type: 'text', text: 'be brief' }] }),
    messageEntry('u', 's', 2, { role: 'user', parts: [{ type: 'text', text: 'look at it' }] }),
    messageEntry('a1', 'u', 3, {
      role: 'assistant',
      ...model,
      parts: [
        { type: 'thinking', thinking: 'which file?' },
        { type: 'tool_call', id: 'toolu_v', name: 'view', input: { path: 'a.png' } },
      ],
    }),
    messageEntry('r', 'a1', 4, {
      role: 'tool',
      parts: [
        {
          type: 'tool_result',
          callId: 'toolu_v',
          content: [
            { type: 'text', text: 'Viewed image file successfully.' },
            { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
          ],
        },
      ],
    }),
    messageEntry('a2', 'r', 5, {
      role: 'assistant',
      ...model,
      parts: [
        { type: 'text', text: 'a pixel' },
        { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
      ],
    }),
  ],
};

describe('a session written into Copilot CLI', () => {
  it('keeps system messages, unsigned thinking and tool-result images, and reads them back', async () => {
    const driver = new CopilotDriver(homeEnv(home));
    const info = await driver.writeSession(session);
    expect(info.meta?.warnings).toBeUndefined();
    const back = await driver.getSession(info.id);
    const messages = (back?.entries ?? []).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(messages[0]?.parts).toEqual([{ type: 'text', text: 'be brief' }]);
    expect(messages[2]?.parts[0]).toEqual({ type: 'thinking', thinking: 'which file?' });
    expect(messages[3]?.parts[0]).toMatchObject({
      callId: 'toolu_v',
      content: [
        { type: 'text', text: 'Viewed image file successfully.' },
        { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
      ],
    });
    // no image in Copilot CLI's assistant messages: its note, a text of its own (sent joined to the text before it)
    expect(messages[4]?.parts).toEqual([
      { type: 'text', text: 'a pixel' },
      { type: 'text', text: '[image omitted]' },
    ]);

    // resumed, Copilot CLI sends none of the three
    const sent = copilotContext(back as Session).messages;
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(sent[1]?.parts.map((p) => p.type)).toEqual(['tool_call']);
    expect(sent[2]?.parts[0]).toMatchObject({ content: 'Viewed image file successfully.' });
    expect(sent[3]?.parts).toEqual([{ type: 'text', text: 'a pixel[image omitted]' }]);
  });

  it('a conversion says once what Copilot CLI keeps but does not send, and the image it cannot keep', () => {
    const said = conversionLosses(session, 'copilot');
    expect(said.filter((w) => /system message/.test(w))).toHaveLength(1);
    expect(said.filter((w) => /without a signature/.test(w))).toHaveLength(1);
    expect(said.filter((w) => /images in assistant messages/.test(w))).toHaveLength(1);
  });
});

describe('a failed tool result with an image, written into Copilot CLI', () => {
  it("keeps the image in the completion's result beside its error, read back as it was and sent as the error alone", async () => {
    const failed: Session = {
      ...session,
      id: 'failed-image',
      leafId: 'a2',
      entries: [
        messageEntry('u', null, 1, { role: 'user', parts: [{ type: 'text', text: 'look at it' }] }),
        messageEntry('a1', 'u', 2, {
          role: 'assistant',
          ...model,
          parts: [{ type: 'tool_call', id: 'toolu_f', name: 'screenshot', input: {} }],
        }),
        messageEntry('r', 'a1', 3, {
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              callId: 'toolu_f',
              isError: true,
              content: [
                { type: 'text', text: 'screen locked' },
                { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
              ],
            },
          ],
        }),
        messageEntry('a2', 'r', 4, { role: 'assistant', ...model, parts: [{ type: 'text', text: 'locked' }] }),
      ],
    };
    const driver = new CopilotDriver(homeEnv(home));
    const info = await driver.writeSession(failed);
    expect(info.meta?.warnings).toBeUndefined();
    const complete = readFileSync(info.path as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; data: Record<string, unknown> })
      .find((e) => e.type === 'tool.execution_complete');
    expect(complete?.data).toMatchObject({
      success: false,
      error: { message: 'screen locked' },
      result: { content: 'screen locked', binaryResultsForLlm: [{ type: 'image', mimeType: 'image/png', data: ONE_PIXEL_PNG }] },
    });
    const back = (await driver.getSession(info.id)) as Session;
    const result = back.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p) => p.type === 'tool_result');
    expect(result).toMatchObject({
      isError: true,
      content: [
        { type: 'text', text: 'screen locked' },
        { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG },
      ],
    });
    const sent = copilotContext(back)
      .messages.flatMap((m) => m.parts)
      .find((p) => p.type === 'tool_result');
    expect(sent).toEqual({ type: 'tool_result', callId: 'toolu_f', name: 'screenshot', content: 'screen locked' });
  });
});
