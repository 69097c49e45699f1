/**
 * Another agent's thinking in a session written into pi (an Anthropic model's turns: signed thinking,
 * unsigned thinking with text, blank unsigned thinking, signed thinking of empty and of blank text,
 * redacted thinking, a response of unsigned thinking only): the real pi resuming it on the session's
 * own model sends the signed and redacted thinking as they are, the unsigned as text, and no blank
 * thinking, signed or not (pi-ai's anthropic.js convertMessages skips `thinking.trim() === ''`), as
 * threadbase's context says (src/formats/pi/context.ts withoutEmptyThinking; it sent the signed blank).
 * A response of another model than the one resumed with has its thinking sent as text, signed or not,
 * and no redacted thinking (transformMessages isSameModel; asFromAnotherModel).
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { Message } from '../../src/model/types.js';
import { agentHomeForFile, PI_MODEL, PI_PROVIDER, runPi } from '../helpers/agents.js';
import { conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, requestEndingWithProbe, withDriver } from '../helpers/conversions.js';
import { chainSession, thinkingTurnsToFourth } from '../helpers/sessions.js';

const assistant = (parts: Message['parts']): Message => ({
  role: 'assistant',
  provider: PI_PROVIDER,
  model: PI_MODEL,
  api: 'anthropic-messages',
  parts,
});

const messages = () => thinkingTurnsToFourth(assistant);

describe('thinking without a signature, resumed by the real pi', () => {
  const home = agentHomeForFile({ rules: [okProbeRule], timeout: 120_000 });

  it('pi sends the signed and redacted thinking, the unsigned as text and no blank thinking, as our context', async () => {
    const written = await withDriver(home.env, 'pi', async (d) =>
      d.writeSession?.(chainSession('unsigned-pi', 'opencode', home.project, messages())),
    );
    if (!written?.path) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'pi', written.id)).messages;
    await runPi(home, ['--session', written.path, '-p', 'probe']);
    const sent = conversationOf(requestEndingWithProbe(home, 'probe', 'pi').messages.slice(0, -1));
    expect(sent).toEqual(conversationOf(ours));
    const text = JSON.stringify(ours);
    for (const kept of ['sig-1', 'REDACTED-DATA', 'An unsigned thought.', 'Lone unsigned.']) expect(text).toContain(kept);
    for (const left of ['sig-empty', 'sig-blank']) expect(text).not.toContain(left);
  }, 150_000);

  it("pi sends another model's thinking as text, none of its redacted or blank thinking, as our context", async () => {
    const twoModels = messages().map(([id, m]): [string, Message] => [
      id,
      id === 'a1' ? { ...m, provider: 'anthropic', model: 'claude-sonnet-4-5' } : m,
    ]);
    const written = await withDriver(home.env, 'pi', async (d) =>
      d.writeSession?.(chainSession('two-models-pi', 'opencode', home.project, twoModels)),
    );
    if (!written?.path) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'pi', written.id)).messages;
    await runPi(home, ['--session', written.path, '-p', 'probe two']);
    const sent = conversationOf(requestEndingWithProbe(home, 'probe two', 'pi').messages.slice(0, -1));
    expect(sent).toEqual(conversationOf(ours));
    expect(ours[1]?.content).toEqual([
      { type: 'text', text: 'Signed thought.' },
      { type: 'text', text: 'An unsigned thought.' },
      { type: 'text', text: 'Answer one.' },
    ]);
  }, 150_000);
});
