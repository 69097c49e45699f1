/**
 * Qwen Code's context sends thinking as its Anthropic generator does: unsigned thinking as a thinking
 * block without a signature (not as text), thinking of empty text only in the latest assistant message,
 * no redacted thinking. The real qwen: test/agents/unsigned-thinking-qwen.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { qwenContext } from '../../src/formats/qwen/context.js';
import type { Message } from '../../src/model/types.js';
import { chainSession } from '../helpers/sessions.js';

const assistant = (parts: Message['parts']): Message => ({ role: 'assistant', model: 'm', parts });
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

const session = () =>
  chainSession('s', 'qwen', '/p', [
    ['u1', user('hi')],
    [
      'a1',
      assistant([
        { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
        { type: 'thinking', thinking: 'Unsigned.' },
        { type: 'thinking', thinking: '', signature: 'sig-empty' },
        { type: 'thinking', thinking: '' },
        { type: 'thinking', thinking: ' ', signature: 'sig-blank' },
        { type: 'redacted_thinking', data: 'RED' },
        { type: 'text', text: 'Answer.' },
      ]),
    ],
    ['u2', user('again')],
    ['a2', assistant([{ type: 'redacted_thinking', data: 'RED2' }])],
    ['u3', user('third')],
    [
      'a3',
      assistant([
        { type: 'thinking', thinking: '', signature: 'sig-latest' },
        { type: 'thinking', thinking: '' },
      ]),
    ],
    ['a4', assistant([{ type: 'text', text: 'Latest.' }])],
  ]);

describe('thinking in Qwen Code context', () => {
  it('goes as thinking blocks, unsigned without a signature; empty only in the latest response; no redacted', () => {
    const { messages } = contextToAnthropic(qwenContext(session()));
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[1]?.content).toEqual([
      { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
      { type: 'thinking', thinking: 'Unsigned.' },
      { type: 'thinking', thinking: ' ', signature: 'sig-blank' },
      { type: 'text', text: 'Answer.' },
    ]);
    // the latest response (two assistant messages sent as one) keeps its empty thinking
    expect(messages[3]?.content).toEqual([
      { type: 'thinking', thinking: '', signature: 'sig-latest' },
      { type: 'thinking', thinking: '' },
      { type: 'text', text: 'Latest.' },
    ]);
  });
});
