/**
 * Another agent's thinking in a session written into Claude Code (signed thinking, unsigned thinking
 * with text, blank unsigned thinking, signed thinking of empty and of blank text, redacted thinking, a
 * response of unsigned thinking only): the real claude resuming it on the session's model sends the
 * signed (empty and blank included) and redacted thinking as they are, the unsigned as text and no blank
 * unsigned thinking, as threadbase's context of it says (no change needed).
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { Message } from '../../src/model/types.js';
import { agentHomeForFile, runClaude } from '../helpers/agents.js';
import { conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, requestEndingWithProbe, withDriver } from '../helpers/conversions.js';
import { chainSession, thinkingTurnsToFourth } from '../helpers/sessions.js';

const MODEL = 'claude-sonnet-4-5';
const assistant = (parts: Message['parts']): Message => ({ role: 'assistant', model: MODEL, parts });

const messages = () => thinkingTurnsToFourth(assistant);

describe('thinking without a signature, resumed by the real claude', () => {
  const home = agentHomeForFile({ rules: [okProbeRule], timeout: 120_000 });

  it('claude sends signed and redacted thinking as they are and the unsigned as text, as our context', async () => {
    const written = await withDriver(home.env, 'claude', async (d) =>
      d.writeSession?.(chainSession('unsigned-claude', 'pi', home.project, messages())),
    );
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'claude', written.id)).messages;
    await runClaude(home, ['--resume', written.id, '--model', MODEL], 'probe');
    const sent = conversationOf(requestEndingWithProbe(home, 'probe', 'claude').messages.slice(0, -1)).map((m) => ({
      ...m,
      content: m.content.filter((b) => !(b.type === 'text' && String(b.text).startsWith('<system-reminder>'))),
    }));
    expect(sent).toEqual(conversationOf(ours));
  }, 150_000);
});
