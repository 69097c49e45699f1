/**
 * pi's send view (context.ts piSendView): blank thinking is not sent, signed or not, by every pi-ai
 * provider but OpenAI's Responses, which replays a blank reasoning item by its encrypted content.
 * Unsigned thinking with text stays (sent as text on the Messages API); another model's response has
 * its thinking as text and no redacted thinking. The real pi:
 * test/agents/unsigned-thinking-pi.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { piSendView } from '../../src/formats/pi/context.js';
import type { Message } from '../../src/model/types.js';

const assistant = (api: string, parts: Message['parts']): Message => ({
  role: 'assistant',
  api,
  model: 'm',
  provider: 'p',
  parts,
});
const thinkingOf = (messages: Message[]) =>
  messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'thinking' ? [p.thinking || `<${p.signature ?? 'none'}>`] : [])));

describe('blank thinking in what pi sends', () => {
  it('a signed blank thinking is not sent on the Messages API, Bedrock or Gemini', () => {
    for (const api of ['anthropic-messages', 'bedrock-converse-stream', 'google-generative-ai', 'openai-completions']) {
      const sent = piSendView([
        { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        assistant(api, [
          { type: 'thinking', thinking: '', signature: 'sig-empty', meta: { thoughtSignature: 'ts', thinkingSignature: 'kept' } },
          { type: 'thinking', thinking: '  ' },
          { type: 'thinking', thinking: 'Unsigned.' },
          { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
          { type: 'text', text: 'Answer.' },
        ]),
      ]);
      expect(thinkingOf(sent), api).toEqual(['Unsigned.', 'Signed.']);
    }
  });

  it('a blank reasoning item with encrypted content is sent on OpenAI Responses', () => {
    const sent = piSendView([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      assistant('openai-responses', [
        { type: 'thinking', thinking: '', meta: { encryptedContent: 'gAAA', codexItemId: 'rs_1' } },
        { type: 'thinking', thinking: '' },
        { type: 'text', text: 'Answer.' },
      ]),
    ]);
    expect(sent[1]?.parts.map((p) => p.type)).toEqual(['thinking', 'text']);
  });

  it("another model's response: thinking as text, blank and redacted thinking left out", () => {
    const sent = piSendView([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        parts: [
          { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
          { type: 'thinking', thinking: ' ', signature: 'sig-blank' },
          { type: 'redacted_thinking', data: 'RED' },
          { type: 'text', text: 'Answer.' },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'again' }] },
      assistant('anthropic-messages', [{ type: 'thinking', thinking: 'Mine.', signature: 'sig2' }]),
    ]);
    expect(sent[1]?.parts).toEqual([
      { type: 'text', text: 'Signed.' },
      { type: 'text', text: 'Answer.' },
    ]);
    expect(sent[3]?.parts).toEqual([{ type: 'thinking', thinking: 'Mine.', signature: 'sig2' }]);
  });

  it('a response of the same provider and model recorded under another API is the same model (a copy back from Codex)', () => {
    const sent = piSendView([
      { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      assistant('anthropic-messages', [
        { type: 'thinking', thinking: 'Kept.', signature: 'sig' },
        { type: 'text', text: 'Answer.' },
      ]),
      { role: 'user', parts: [{ type: 'text', text: 'again' }] },
      assistant('openai-responses', [{ type: 'text', text: 'Later.' }]),
    ]);
    expect(thinkingOf(sent)).toEqual(['Kept.']);
  });
});
