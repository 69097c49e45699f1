/**
 * OpenCode's context (and Kilo's, which is OpenCode's) leaves out thinking the AI SDK does not send:
 * no Anthropic signature, no encrypted content, no other provider metadata. Signed thinking (empty
 * text included), redacted thinking and OpenAI's encrypted reasoning stay. The real binaries:
 * test/agents/unsigned-thinking-opencode.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { kiloContext } from '../../src/formats/kilo/context.js';
import { opencodeContext } from '../../src/formats/opencode/context.js';
import { encodeSession } from '../../src/formats/opencode/encode.js';
import { sessionFromOpencode } from '../../src/formats/opencode/parse.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession } from '../helpers/sessions.js';

const assistant = (parts: Message['parts']): Message => ({
  role: 'assistant',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  parts,
});
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

function session(): Session {
  return chainSession('s', 'opencode', '/p', [
    ['u1', user('hi')],
    [
      'a1',
      assistant([
        { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
        { type: 'thinking', thinking: 'Unsigned.' },
        { type: 'thinking', thinking: '  ' },
        { type: 'thinking', thinking: '', signature: 'sig-empty' },
        { type: 'redacted_thinking', data: 'RED' },
        { type: 'thinking', thinking: 'Encrypted summary.', meta: { encryptedContent: 'gAAA' } },
        { type: 'thinking', thinking: 'Gemini thought.', meta: { providerMetadata: { google: { thoughtSignature: 'ts' } } } },
        { type: 'text', text: 'Answer.' },
      ]),
    ],
    ['u2', user('again')],
    ['a2', assistant([{ type: 'thinking', thinking: 'Only unsigned.' }])],
    ['u3', user('third')],
  ]);
}

const thinkingOf = (messages: Message[]) =>
  messages.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'thinking' ? [p.thinking] : p.type === 'redacted_thinking' ? [p.data] : [])),
  );

describe('thinking without a signature in OpenCode and Kilo contexts', () => {
  it('is left out; signed, empty signed, redacted and provider-kept thinking stay', () => {
    const ctx = opencodeContext(session());
    expect(thinkingOf(ctx.messages)).toEqual(['Signed.', '', 'RED', 'Encrypted summary.', 'Gemini thought.']);
    const sent = JSON.stringify(contextToAnthropic(ctx));
    expect(sent).not.toContain('Unsigned.');
    expect(sent).not.toContain('Only unsigned.');
  });

  it('a response of unsigned thinking only is not sent: the users around it are one turn', () => {
    const roles = contextToAnthropic(opencodeContext(session())).messages.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user']);
    expect(opencodeContext(session()).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
  });

  it("another model's response: thinking as text, blank and redacted thinking and provider metadata left out", () => {
    const other = chainSession('t', 'opencode', '/p', [
      ['u1', user('hi')],
      [
        'a1',
        {
          role: 'assistant',
          provider: 'openai',
          model: 'gpt-5',
          parts: [
            { type: 'thinking', thinking: 'Signed.', signature: 'sig' },
            { type: 'thinking', thinking: 'Encrypted.', meta: { encryptedContent: 'gAAA' } },
            { type: 'thinking', thinking: ' ', signature: 'sig-blank' },
            { type: 'redacted_thinking', data: 'RED' },
            { type: 'text', text: 'Answer.', meta: { providerMetadata: { openai: { itemId: 'msg_1' } } } },
          ],
        },
      ],
      ['u2', user('again')],
      [
        'a2',
        assistant([
          { type: 'thinking', thinking: 'Mine.', signature: 'sig2' },
          { type: 'text', text: 'Two.' },
        ]),
      ],
    ]);
    const ctx = opencodeContext(other);
    expect(ctx.messages[1]?.parts).toEqual([
      { type: 'text', text: 'Signed.' },
      { type: 'text', text: 'Encrypted.' },
      { type: 'text', text: 'Answer.' },
    ]);
    // the model resumed with (the last response's) keeps its signed thinking
    expect(ctx.messages[3]?.parts[0]).toEqual({ type: 'thinking', thinking: 'Mine.', signature: 'sig2' });
  });

  it("Kilo, OpenCode's fork, sends no unsigned thinking either", () => {
    const sent = JSON.stringify(contextToAnthropic(kiloContext(session())));
    expect(sent).not.toContain('Unsigned.');
    expect(sent).not.toContain('Only unsigned.');
    expect(sent).toContain('sig-empty');
  });
});

describe('a reply of unsigned thinking only, written into OpenCode', () => {
  const pi = (parts: Message['parts']): Message => ({
    role: 'assistant',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    parts,
  });
  const source = chainSession('pi-s', 'pi', '/p', [
    ['u1', user('hi')],
    ['a1', pi([{ type: 'thinking', thinking: 'Lone unsigned.' }])],
    ['u2', user('again')],
    [
      'a2',
      pi([
        { type: 'thinking', thinking: ' ' },
        { type: 'thinking', thinking: 'Unsigned after a blank.' },
      ]),
    ],
    ['u3', user('third')],
    [
      'a3',
      pi([
        { type: 'thinking', thinking: '' },
        { type: 'thinking', thinking: '  ' },
      ]),
    ],
    ['u4', user('fourth')],
    ['a4', pi([{ type: 'text', text: 'Answer four.' }])],
  ]);
  const written = () => encodeSession(source, { sessionId: 'ses_pi', projectID: 'global', worktree: '/', directory: '/p' }).data;
  const replies = (data: ReturnType<typeof written>) =>
    data.messages
      .filter((m) => m.info.role === 'assistant')
      .map((m) =>
        m.parts.filter((p) => p.type !== 'step-finish').map(({ type, text, threadbase }) => ({ type, text, threadbase })),
      );

  it('is written as text parts OpenCode sends, marked as thinking; blank thinking as reasoning, which OpenCode leaves out', () => {
    expect(replies(written())).toEqual([
      [{ type: 'step-start' }, { type: 'text', text: 'Lone unsigned.', threadbase: { thinking: true } }],
      [
        { type: 'step-start' },
        { type: 'reasoning', text: ' ' },
        { type: 'text', text: 'Unsigned after a blank.', threadbase: { thinking: true } },
      ],
      [{ type: 'step-start' }, { type: 'reasoning', text: '' }, { type: 'reasoning', text: '  ' }],
      [{ type: 'step-start' }, { type: 'text', text: 'Answer four.' }],
    ]);
  });

  it('is read back as the thinking it was', () => {
    const back = sessionFromOpencode(written(), { file: 'encoded' });
    const thinking = back.entries.flatMap((e) =>
      e.kind === 'message' && e.message.role === 'assistant' ? [e.message.parts.map(({ meta: _sent, ...p }) => p)] : [],
    );
    expect(thinking).toEqual(
      source.entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e.message.parts] : [])),
    );
  });

  it('the context is what OpenCode sends: the thinking as text, no message of empty content', () => {
    const sent = contextToAnthropic(opencodeContext(sessionFromOpencode(written(), { file: 'encoded' }))).messages;
    expect(sent.filter((m) => m.content.length === 0)).toEqual([]);
    expect(sent.map((m) => (m.role === 'assistant' ? m.content : m.role))).toEqual([
      'user',
      [{ type: 'text', text: 'Lone unsigned.' }],
      'user',
      [{ type: 'text', text: 'Unsigned after a blank.' }],
      'user',
      [{ type: 'text', text: 'Answer four.' }],
    ]);
  });

  it('written before (reasoning, no mark): still left out, as OpenCode sends it with no content', () => {
    const before = written();
    for (const m of before.messages)
      m.parts = m.parts.map((p) =>
        p.type === 'text' && p.threadbase !== undefined ? { id: p.id, type: 'reasoning', text: p.text } : p,
      );
    const ctx = opencodeContext(sessionFromOpencode(before, { file: 'encoded' }));
    expect(JSON.stringify(ctx)).not.toContain('Lone unsigned.');
    expect(ctx.messages.map((m) => m.role)).toEqual(['user', 'user', 'user', 'user', 'assistant']);
  });
});
