/**
 * Another agent's thinking (pi's, Gemini's, Codex's: no Anthropic signature) in a session written into
 * OpenCode and Kilo CLI, beside signed thinking, signed thinking of empty text, redacted thinking and
 * blank unsigned thinking: the real OpenCode 1.18.33 and Kilo 7.7.7, resuming on the session's own model
 * (the stand-in through @ai-sdk/anthropic), send the signed, empty signed and redacted thinking as they
 * are and none of the unsigned (the AI SDK's 'unsupported reasoning metadata'), as threadbase's context
 * says (src/formats/opencode/context.ts withoutUnsignedThinking; it sent the unsigned as text).
 * A response of unsigned thinking only, which both would send as an assistant message with no content (the
 * Messages API refuses it), threadbase writes as text parts (encode.ts thinkingAsText), which both send as
 * text; one of blank unsigned thinking only stays reasoning, which both leave out (OpenCode's ProviderTransform
 * removes blank unsigned reasoning and a message it leaves empty). No message either
 * sends is empty, and threadbase's context is what each sends. Responses of another model than the one
 * resumed with have their thinking sent as text (blank and redacted thinking not at all: OpenCode's
 * toModelMessages differentModel), as threadbase's context says (asFromAnotherModel).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { Message } from '../../src/model/types.js';
import { prepareKiloDatabase, prepareOpencodeDatabase } from '../helpers/agent-db-templates.js';
import { type AgentHome, agentHomeForFile, runOpencode } from '../helpers/agents.js';
import { type AnthropicMessage, conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, requestEndingWithProbe, withDriver } from '../helpers/conversions.js';
import { KILO_MODEL, kiloProbeRule, kiloRequestEndingWith, runKilo, setupKiloHome } from '../helpers/kilo.js';
import { chainSession, thinkingTurns } from '../helpers/sessions.js';

const MODEL = 'standin/claude-test';
const [PROVIDER = '', MODEL_ID = ''] = MODEL.split('/');
const assistant = (parts: Message['parts']): Message => ({ role: 'assistant', provider: PROVIDER, model: MODEL_ID, parts });

function messages(): [string, Message][] {
  return [
    ...thinkingTurns(assistant),
    ['a4', assistant([{ type: 'text', text: 'Answer four.' }])],
    ['u5', { role: 'user', parts: [{ type: 'text', text: 'fifth' }] }],
    [
      'a5',
      assistant([
        { type: 'thinking', thinking: '' },
        { type: 'thinking', thinking: ' ' },
      ]),
    ],
    ['u6', { role: 'user', parts: [{ type: 'text', text: 'sixth' }] }],
    ['a6', assistant([{ type: 'text', text: 'Answer six.' }])],
  ];
}

/** The same turns, the first response by another model (Claude Code's) than the one resumed with. */
function messagesOfTwoModels(): [string, Message][] {
  const all = messages();
  return all.map(([id, m]) => [id, id === 'a1' ? { ...m, provider: 'anthropic', model: 'claude-sonnet-4-5' } : m]);
}

/** What the agent sent before the probe, and how many messages it sent of no content (the Messages API refuses them). */
function sentBeforeProbe(sent: AnthropicMessage[]): { conversation: ReturnType<typeof conversationOf>; empty: number } {
  return {
    conversation: conversationOf(sent.slice(0, -1)),
    empty: conversationOf(sent).filter((m) => m.content.length === 0).length,
  };
}

/** The reply of unsigned thinking only (thinkingTurns' third), as the text the agent sends it as. */
const LONE_UNSIGNED = { role: 'assistant', content: [{ type: 'text', text: 'Lone unsigned.' }] };

// The OpenCode and the Kilo half run at the same time (each its own home and stand-in); the tests
// of one half run in turn on its home.
describe.concurrent('thinking without a signature, resumed by the real OpenCode', () => {
  const home = agentHomeForFile({ rules: [okProbeRule], timeout: 120_000 });
  beforeAll(() => prepareOpencodeDatabase(home), 120_000);

  it.sequential('OpenCode sends the signed, empty signed and redacted thinking, a reply of unsigned thinking only as text, as our context', async () => {
    const written = await withDriver(home.env, 'opencode', async (d) =>
      d.writeSession?.(chainSession('unsigned-oc', 'pi', home.project, messages())),
    );
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'opencode', written.id)).messages;
    await runOpencode(home, ['run', '-s', written.id, '-m', MODEL, 'probe']);
    const sent = sentBeforeProbe(requestEndingWithProbe(home, 'probe', 'opencode').messages);
    expect(sent.empty).toBe(0);
    expect(sent.conversation).toContainEqual(LONE_UNSIGNED);
    expect(sent.conversation).toEqual(conversationOf(ours));
    expect(JSON.stringify(ours)).not.toContain('An unsigned thought.');
    expect(JSON.stringify(ours)).not.toContain('Only unsigned.');
    expect(JSON.stringify(ours)).toContain('REDACTED-DATA');
  }, 150_000);

  it.sequential("OpenCode sends another model's thinking as text, none of its redacted or blank thinking, as our context", async () => {
    const written = await withDriver(home.env, 'opencode', async (d) =>
      d.writeSession?.(chainSession('two-models-oc', 'pi', home.project, messagesOfTwoModels())),
    );
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'opencode', written.id)).messages;
    await runOpencode(home, ['run', '-s', written.id, '-m', MODEL, 'probe', 'two']);
    const sent = sentBeforeProbe(requestEndingWithProbe(home, 'probe two', 'opencode').messages);
    expect(sent.empty).toBe(0);
    expect(sent.conversation).toEqual(conversationOf(ours));
    expect(ours[1]?.content).toEqual([
      { type: 'text', text: 'Signed thought.' },
      { type: 'text', text: 'An unsigned thought.' },
      { type: 'text', text: 'Answer one.' },
    ]);
  }, 150_000);
});

describe.concurrent('thinking without a signature, resumed by the real Kilo CLI', () => {
  let home: AgentHome;
  beforeAll(async () => {
    home = await setupKiloHome({ rules: [kiloProbeRule] });
    await prepareKiloDatabase(home);
  }, 120_000);
  afterAll(async () => {
    await home?.close();
  });

  it.sequential('Kilo sends the signed, empty signed and redacted thinking, a reply of unsigned thinking only as text, as our context', async () => {
    const written = await withDriver(home.env, 'kilo', async (d) =>
      d.writeSession?.(chainSession('unsigned-kilo', 'pi', home.project, messages())),
    );
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'kilo', written.id)).messages;
    await runKilo(home, ['run', '-m', KILO_MODEL, '-s', written.id, 'probe']);
    const sent = sentBeforeProbe(kiloRequestEndingWith(home, 'probe').messages);
    expect(sent.empty).toBe(0);
    expect(sent.conversation).toContainEqual(LONE_UNSIGNED);
    expect(sent.conversation).toEqual(conversationOf(ours));
    expect(JSON.stringify(ours)).not.toContain('An unsigned thought.');
    expect(JSON.stringify(ours)).not.toContain('Only unsigned.');
  }, 150_000);

  it.sequential("Kilo sends another model's thinking as text, none of its redacted or blank thinking, as our context", async () => {
    const written = await withDriver(home.env, 'kilo', async (d) =>
      d.writeSession?.(chainSession('two-models-kilo', 'pi', home.project, messagesOfTwoModels())),
    );
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'kilo', written.id)).messages;
    await runKilo(home, ['run', '-m', KILO_MODEL, '-s', written.id, 'probe', 'two']);
    const sent = sentBeforeProbe(kiloRequestEndingWith(home, 'probe two').messages);
    expect(sent.empty).toBe(0);
    expect(sent.conversation).toEqual(conversationOf(ours));
    expect(JSON.stringify(ours[1]?.content)).not.toContain('REDACTED-DATA');
  }, 150_000);
});
