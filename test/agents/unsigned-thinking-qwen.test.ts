/**
 * Another agent's thinking in a session written into Qwen Code (signed thinking, unsigned thinking with
 * text, blank unsigned thinking, signed thinking of empty and of blank text, redacted thinking, a
 * response of unsigned thinking only, and empty thinking in the latest response): the real qwen 0.24.4
 * with its Anthropic generator sends a thought as a thinking block, the unsigned without a signature,
 * drops a thinking block of empty text but in the latest assistant message, and sends no redacted
 * thinking, as threadbase's context says (src/formats/qwen/context.ts thinkingAsSent; it sent the
 * unsigned as text, the empty signed and the redacted thinking).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { Message } from '../../src/model/types.js';
import type { AgentHome } from '../helpers/agents.js';
import { conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, requestEndingWithProbe, withDriver } from '../helpers/conversions.js';
import { isQwenReminder, QWEN_MODEL, runQwen, setupQwenHome } from '../helpers/qwen.js';
import { chainSession, thinkingTurnsToFourth } from '../helpers/sessions.js';

const assistant = (parts: Message['parts']): Message => ({
  role: 'assistant',
  model: QWEN_MODEL,
  api: 'anthropic-messages',
  parts,
});
const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

function messages(): [string, Message][] {
  return [
    ...thinkingTurnsToFourth(assistant),
    ['u5', user('fifth')],
    [
      'a5',
      assistant([
        { type: 'thinking', thinking: '', signature: 'sig-latest' },
        { type: 'thinking', thinking: '' },
        { type: 'text', text: 'Answer five.' },
      ]),
    ],
  ];
}

describe('thinking without a signature, resumed by the real qwen', () => {
  let home: AgentHome;
  beforeAll(async () => {
    home = await setupQwenHome({ rules: [okProbeRule] });
  }, 120_000);
  afterAll(async () => {
    await home?.close();
  });

  it('qwen sends thoughts as thinking blocks, signed or not, empty ones only in the latest response, no redacted thinking, as our context', async () => {
    const written = await withDriver(home.env, 'qwen', async (d) =>
      d.writeSession?.(chainSession('unsigned-qwen', 'pi', home.project, messages())),
    );
    if (!written?.path) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'qwen', written.id)).messages;
    await runQwen(home, ['--resume', written.id, 'probe']);
    // Qwen Code's own reminders aside (the first user message's leading texts)
    const sent = conversationOf(requestEndingWithProbe(home, 'probe', 'qwen').messages.slice(0, -1)).map((m) => ({
      ...m,
      content: m.content.filter((b) => !isQwenReminder(b)),
    }));
    expect(sent).toEqual(conversationOf(ours));
    const text = JSON.stringify(ours);
    for (const kept of ['sig-1', 'sig-blank', 'sig-latest']) expect(text).toContain(kept);
    for (const left of ['sig-empty', 'REDACTED-DATA']) expect(text).not.toContain(left);
    expect(ours[3]?.content).toContainEqual({ type: 'thinking', thinking: 'Only unsigned.' });
  }, 150_000);
});
