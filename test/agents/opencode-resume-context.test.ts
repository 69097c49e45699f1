/**
 * What the real OpenCode 1.18.33 and Kilo 7.7.7 send when they resume, where it hangs on the whole
 * message or on the user's model rather than on one step or reply (src/formats/opencode/context.ts,
 * parse.ts stepMessages):
 * - an empty text in a step of its own is sent as a single space when any step of its message holds
 *   signed reasoning (MessageV2.toModelMessages decides it per message);
 * - resumed without `-m`, they send on the model of the last user message, and a reply of another model
 *   (the last reply's own) has its signed thinking sent as text.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { sessionFromOpencode } from '../../src/formats/opencode/index.js';
import type { Message } from '../../src/model/types.js';
import { prepareKiloDatabase, prepareOpencodeDatabase } from '../helpers/agent-db-templates.js';
import { type AgentHome, runOpencode, setupAgentHome } from '../helpers/agents.js';
import { type AnthropicMessage, conversationOf } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, requestEndingWithProbe, withDriver } from '../helpers/conversions.js';
import { CLAUDE_FIXTURE_MODEL, kiloProbeRule, kiloRequestEndingWith, runKilo, setupKiloHome } from '../helpers/kilo.js';
import { twoStepSession } from '../helpers/opencode-sessions.js';
import { chainSession } from '../helpers/sessions.js';

/** Turns whose user messages name `user` (provider, model) and whose replies are `reply`'s. */
function turnsOfTwoModels(user: [string, string], reply: [string, string]): [string, Message][] {
  const u = (text: string): Message => ({ role: 'user', provider: user[0], model: user[1], parts: [{ type: 'text', text }] });
  const a = (parts: Message['parts']): Message => ({ role: 'assistant', provider: reply[0], model: reply[1], parts });
  return [
    ['u1', u('first')],
    [
      'a1',
      a([
        { type: 'thinking', thinking: 'Signed thought.', signature: 'sig-1' },
        { type: 'text', text: 'Answer one.' },
      ]),
    ],
    ['u2', u('second')],
    ['a2', a([{ type: 'text', text: 'Answer two.' }])],
  ];
}

/** The second step's message of the two-step session as sent: its texts, the empty one a space. */
const SECOND_STEP = [
  { type: 'text', text: ' ' },
  { type: 'text', text: 'Done.' },
];

// The OpenCode and the Kilo half run at the same time (each its own home and stand-in); the tests
// of one half run in turn on its home.
describe.concurrent('resumed by the real OpenCode', () => {
  let home: AgentHome;
  beforeAll(async () => {
    home = await setupAgentHome({ rules: [okProbeRule] });
    // a second model of the stand-in for the user messages to name
    const config = join(home.root, '.config', 'opencode', 'opencode.json');
    const json = JSON.parse(await fs.readFile(config, 'utf8'));
    json.provider.standin.models['claude-other'] = { name: 'Claude Other', modalities: { input: ['text'], output: ['text'] } };
    await fs.writeFile(config, JSON.stringify(json));
    await prepareOpencodeDatabase(home);
  }, 120_000);
  afterAll(async () => {
    await home?.close();
  });

  it.sequential("sends an empty text of a step without reasoning as a space when the message's other step has signed reasoning, as our context", async () => {
    const session = sessionFromOpencode(twoStepSession('ses_steps_oc', home.project), { file: 'records' });
    const written = await withDriver(home.env, 'opencode', async (d) => d.writeSession?.(session));
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'opencode', written.id)).messages as AnthropicMessage[];
    await runOpencode(home, ['run', '-s', written.id, '-m', 'standin/claude-test', 'probe', 'steps']);
    const sent = requestEndingWithProbe(home, 'probe steps', 'opencode').messages.slice(0, -1);
    expect(conversationOf(sent)).toEqual(conversationOf(ours));
    expect(conversationOf(ours).at(-1)?.content).toEqual(SECOND_STEP);
  }, 150_000);

  it.sequential('sends on the last user message’s model, the replies of another model with their thinking as text, as our context', async () => {
    const turns = turnsOfTwoModels(['standin', 'claude-other'], ['standin', 'claude-test']);
    const written = await withDriver(home.env, 'opencode', async (d) =>
      d.writeSession?.(chainSession('user-model-oc', 'pi', home.project, turns)),
    );
    if (!written) throw new Error('nothing written');
    const context = await readContext(home, 'opencode', written.id);
    await runOpencode(home, ['run', '-s', written.id, 'probe', 'model']);
    const request = requestEndingWithProbe(home, 'probe model', 'opencode');
    expect(request.model).toBe('claude-other');
    expect(context.model).toBe(request.model);
    const ours = contextToAnthropic(context).messages as AnthropicMessage[];
    expect(conversationOf(request.messages.slice(0, -1))).toEqual(conversationOf(ours));
    expect(ours[1]?.content).toEqual([
      { type: 'text', text: 'Signed thought.' },
      { type: 'text', text: 'Answer one.' },
    ]);
  }, 150_000);
});

describe.concurrent('resumed by the real Kilo CLI', () => {
  let home: AgentHome;
  beforeAll(async () => {
    home = await setupKiloHome({ rules: [kiloProbeRule] });
    await prepareKiloDatabase(home);
  }, 120_000);
  afterAll(async () => {
    await home?.close();
  });

  it.sequential("sends an empty text of a step without reasoning as a space when the message's other step has signed reasoning, as our context", async () => {
    const session = sessionFromOpencode(twoStepSession('ses_steps_kilo', home.project), { file: 'records' });
    const written = await withDriver(home.env, 'kilo', async (d) => d.writeSession?.(session));
    if (!written) throw new Error('nothing written');
    const ours = contextToAnthropic(await readContext(home, 'kilo', written.id)).messages as AnthropicMessage[];
    await runKilo(home, ['run', '-m', 'standin/claude-test', '-s', written.id, 'probe', 'steps']);
    const sent = kiloRequestEndingWith(home, 'probe steps').messages.slice(0, -1);
    expect(conversationOf(sent)).toEqual(conversationOf(ours));
    expect(conversationOf(ours).at(-1)?.content).toEqual(SECOND_STEP);
  }, 150_000);

  it.sequential('sends on the last user message’s model, the replies of another model with their thinking as text, as our context', async () => {
    const turns = turnsOfTwoModels(['anthropic', CLAUDE_FIXTURE_MODEL], ['standin', 'claude-test']);
    const written = await withDriver(home.env, 'kilo', async (d) =>
      d.writeSession?.(chainSession('user-model-kilo', 'pi', home.project, turns)),
    );
    if (!written) throw new Error('nothing written');
    const context = await readContext(home, 'kilo', written.id);
    await runKilo(home, ['run', '-s', written.id, 'probe', 'model']);
    const request = kiloRequestEndingWith(home, 'probe model');
    expect(request.model).toBe(CLAUDE_FIXTURE_MODEL);
    expect(context.model).toBe(request.model);
    const ours = contextToAnthropic(context).messages as AnthropicMessage[];
    expect(conversationOf(request.messages.slice(0, -1))).toEqual(conversationOf(ours));
    expect(ours[1]?.content).toEqual([
      { type: 'text', text: 'Signed thought.' },
      { type: 'text', text: 'Answer one.' },
    ]);
  }, 150_000);
});
