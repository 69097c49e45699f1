/**
 * Property: a session written as a Codex rollout and read back gives the same Responses API input
 * (what codex would send on resume), for random conversations of text, images, tool calls with
 * results, errors and OpenAI reasoning; and usage survives, counted once per response.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Entry, Message, Part, Session, Usage } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';

let home: string;
beforeAll(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-codex-prop-'));
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const text = fc.string({ minLength: 1, maxLength: 40 });
const usage: fc.Arbitrary<Usage> = fc.record({
  input: fc.nat(5000),
  output: fc.nat(500),
  cacheRead: fc.nat(5000),
  cacheWrite: fc.constant(0),
  reasoning: fc.nat(100),
});

/** One user turn and the assistant's answer: optionally reasoning, tool calls (each answered), final text. */
const turn = fc.record({
  user: text,
  image: fc.boolean(),
  reasoning: fc.option(
    fc.record({ summary: text, encrypted: fc.option(fc.base64String({ minLength: 4, maxLength: 16 }), { nil: undefined }) }),
    {
      nil: undefined,
    },
  ),
  calls: fc.array(
    fc.record({ name: fc.constantFrom('exec_command', 'shell', 'read_file'), arg: text, result: text, isError: fc.boolean() }),
    { maxLength: 3 },
  ),
  answer: text,
  usage,
});

type Turn = typeof turn extends fc.Arbitrary<infer T> ? T : never;

function sessionOf(turns: Turn[]): Session {
  const entries: Entry[] = [];
  const t = '2026-05-06T07:08:09.000Z';
  const add = (message: Message) => {
    entries.push({ id: `e${entries.length}`, parentId: entries.at(-1)?.id ?? null, timestamp: t, kind: 'message', message });
  };
  turns.forEach((tu, i) => {
    const userParts: Part[] = [{ type: 'text', text: tu.user }];
    if (tu.image) userParts.push({ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' });
    add({ role: 'user', parts: userParts });
    const first: Part[] = [];
    if (tu.reasoning) {
      first.push({
        type: 'thinking',
        thinking: tu.reasoning.summary,
        ...(tu.reasoning.encrypted ? { meta: { encryptedContent: tu.reasoning.encrypted } } : {}),
      });
    }
    const calls = tu.calls.map((c, k) => ({ ...c, id: `call_${i}_${k}` }));
    if (calls.length) {
      add({
        role: 'assistant',
        api: 'openai-responses',
        responseId: `r${i}a`,
        usage: tu.usage,
        parts: [...first, ...calls.map((c): Part => ({ type: 'tool_call', id: c.id, name: c.name, input: { cmd: c.arg } }))],
      });
      add({ role: 'tool', parts: calls.map((c): Part => ({ type: 'tool_result', callId: c.id, content: c.result })) });
      add({ role: 'assistant', api: 'openai-responses', responseId: `r${i}b`, parts: [{ type: 'text', text: tu.answer }] });
    } else {
      add({
        role: 'assistant',
        api: 'openai-responses',
        responseId: `r${i}a`,
        usage: tu.usage,
        parts: [...first, { type: 'text', text: tu.answer }],
      });
    }
  });
  return { id: 'prop', source: 'threadbase', project: '/p', createdAt: t, updatedAt: t, messageCount: entries.length, entries };
}

describe('codex rollout round trip (property)', () => {
  it('keeps the Responses input and the usage of any conversation', async () => {
    const driver = new CodexDriver({ home, env: {} });
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 4 }), async (turns) => {
        const session = sessionOf(turns);
        const written = await driver.writeSession(session);
        const back = (await driver.getSession(written.id)) as Session;
        expect(back.warnings).toEqual([]);
        const before = contextToResponses(buildContext(session)).input;
        const after = contextToResponses(await driver.getContext(written.id)).input;
        expect(after).toEqual(before);
        const u = summarizeUsage(session.entries).usage;
        expect(back.usage).toEqual(u);
      }),
      { numRuns: 40 },
    );
  });
});
