/**
 * OpenCode's context where what it sends hangs on the whole message or on the user's model: an empty
 * text is a single space in any step of a message holding signed reasoning; resumed, it sends on the
 * last user message's model and a reply of another model has its thinking as text. Live against the
 * real OpenCode and Kilo: test/agents/opencode-resume-context.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { encodeSession, opencodeContext, sessionFromOpencode } from '../../src/formats/opencode/index.js';
import type { Message } from '../../src/model/types.js';
import { twoStepSession } from '../helpers/opencode-sessions.js';
import { chainSession } from '../helpers/sessions.js';

describe('an empty text in a step of a message with signed reasoning', () => {
  it('is a single space in the step without reasoning too', () => {
    const context = opencodeContext(sessionFromOpencode(twoStepSession('ses_steps', '/p'), { file: 'records' }));
    const replies = context.messages.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => m.parts.map((p) => p.type))).toEqual([
      ['thinking', 'tool_call'],
      ['text', 'text'],
    ]);
    expect(replies[1]?.parts).toEqual([
      { type: 'text', text: ' ' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  it('stays empty where the message holds no signed reasoning', () => {
    const data = twoStepSession('ses_unsigned', '/p');
    const reply = data.messages[1];
    if (!reply) throw new Error('no reply');
    reply.parts = reply.parts.map((p) => (p.type === 'reasoning' ? { ...p, metadata: {} } : p));
    const context = opencodeContext(sessionFromOpencode(data, { file: 'records' }));
    expect(context.messages.at(-1)?.parts).toEqual([
      { type: 'text', text: '' },
      { type: 'text', text: 'Done.' },
    ]);
  });
});

describe('the model OpenCode resumes with', () => {
  const user = (text: string): Message => ({
    role: 'user',
    provider: 'standin',
    model: 'claude-other',
    parts: [{ type: 'text', text }],
  });
  const reply = (parts: Message['parts']): Message => ({ role: 'assistant', provider: 'standin', model: 'claude-test', parts });
  const written = (userModel: boolean) => {
    const u = (text: string) => (userModel ? user(text) : { role: 'user' as const, parts: [{ type: 'text' as const, text }] });
    const session = chainSession('two-models', 'pi', '/p', [
      ['u1', u('first')],
      [
        'a1',
        reply([
          { type: 'thinking', thinking: 'Signed thought.', signature: 'sig-1' },
          { type: 'text', text: 'Answer one.' },
        ]),
      ],
      ['u2', u('second')],
      ['a2', reply([{ type: 'text', text: 'Answer two.' }])],
    ]);
    const { data } = encodeSession(session, { sessionId: 'ses_two_models', projectID: 'global', worktree: '/', directory: '/p' });
    return sessionFromOpencode(data, { file: 'encoded' });
  };

  it("is the last user message's: a reply of another model has its signed thinking as text", () => {
    const context = opencodeContext(written(true));
    expect([context.provider, context.model]).toEqual(['standin', 'claude-other']);
    expect(context.messages[1]?.parts).toEqual([
      { type: 'text', text: 'Signed thought.' },
      { type: 'text', text: 'Answer one.' },
    ]);
  });

  it('is the last reply’s where the user messages named none (written with it), its thinking kept', () => {
    const context = opencodeContext(written(false));
    expect([context.provider, context.model]).toEqual(['standin', 'claude-test']);
    expect(context.messages[1]?.parts[0]).toMatchObject({ type: 'thinking', thinking: 'Signed thought.', signature: 'sig-1' });
  });
});
