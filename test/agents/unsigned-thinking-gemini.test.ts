/**
 * Another agent's thinking in a session written into Gemini CLI (signed, unsigned, empty and redacted
 * thinking, before a text and before a call): the real gemini resuming it sends none of it (stripThoughts)
 * and gives the first call of a reply that had thinking the synthetic thought signature, as threadbase's
 * context says (src/formats/gemini/context.ts contextToGeminiContents).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToGeminiContents } from '../../src/formats/gemini/index.js';
import type { Message } from '../../src/model/types.js';
import { readContext, withDriver } from '../helpers/conversions.js';
import { type GeminiHome, resumedContents, runGemini, setupGeminiHome } from '../helpers/gemini.js';
import { chainSession, firstThinkingTurn } from '../helpers/sessions.js';

const MODEL = 'gemini-2.5-pro';
const assistant = (parts: Message['parts']): Message => ({ role: 'assistant', model: MODEL, parts });
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

function messages(): [string, Message][] {
  return [
    ...firstThinkingTurn(assistant),
    ['u2', user('run it')],
    [
      'a2',
      assistant([
        { type: 'thinking', thinking: 'Only unsigned.' },
        { type: 'tool_call', id: 'call-1', name: 'run_shell_command', input: { command: 'echo hi' } },
      ]),
    ],
    ['t2', { role: 'tool', parts: [{ type: 'tool_result', callId: 'call-1', name: 'run_shell_command', content: 'hi' }] }],
    [
      'a3',
      assistant([
        { type: 'redacted_thinking', data: 'R2' },
        { type: 'text', text: 'It said hi.' },
      ]),
    ],
  ];
}

describe('thinking without a signature, resumed by the real gemini', () => {
  let home: GeminiHome;
  beforeAll(async () => {
    home = await setupGeminiHome();
  }, 120_000);
  afterAll(async () => {
    await home?.close();
  });

  it('gemini sends no thinking and signs the first call after it, as our context', async () => {
    const written = await withDriver(home.env, 'gemini', async (d) =>
      d.writeSession?.(chainSession('unsigned-gemini', 'pi', home.project, messages())),
    );
    if (!written) throw new Error('nothing written');
    const expected = contextToGeminiContents(await readContext(home, 'gemini', written.id));
    await runGemini(home, ['--resume', written.id, '-p', 'probe']);
    const sent = resumedContents(home, 'probe');
    expect(sent).toEqual(expected);
    const text = JSON.stringify(sent);
    for (const left of ['thought"', 'Signed thought', 'unsigned', 'REDACTED']) expect(text).not.toContain(left);
  }, 180_000);
});
