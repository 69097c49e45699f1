/** Property tests: conversions keep what the target can carry. */
import { modelMessageSchema } from 'ai';
import fc from 'fast-check';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { messagesFromAiSdk, messagesToAiSdk } from '../../src/convert/ai-sdk.js';
import { type AnthropicMessage, messagesFromAnthropic, messagesToAnthropic } from '../../src/convert/anthropic.js';
import { messagesFromOpenAI, messagesToOpenAI } from '../../src/convert/openai.js';

const id = fc.stringMatching(/^toolu_[A-Za-z0-9]{4,10}$/);
const text = fc.string({ maxLength: 40 });
const b64 = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((b) => Buffer.from(b).toString('base64'));
const json: fc.Arbitrary<Record<string, unknown>> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 6 }),
  fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 })),
  { maxKeys: 4 },
);

const textBlock = text.map((t) => ({ type: 'text' as const, text: t }));
const imageBlock = fc
  .tuple(fc.constantFrom('image/png', 'image/jpeg'), b64)
  .map(([media_type, data]) => ({ type: 'image' as const, source: { type: 'base64' as const, media_type, data } }));
const toolUse = fc
  .tuple(id, fc.constantFrom('Bash', 'Read', 'edit'), json)
  .map(([i, name, input]) => ({ type: 'tool_use' as const, id: i, name, input }));

/** What OpenAI chat can carry: text, images in user turns, tool calls/results with text, unsigned reasoning first. */
function openAiCarriable(): fc.Arbitrary<AnthropicMessage[]> {
  const toolResult = fc
    .tuple(id, fc.oneof(text, fc.array(textBlock, { minLength: 1, maxLength: 2 })))
    .map(([tid, content]) => ({ type: 'tool_result' as const, tool_use_id: tid, content }));
  const user = fc
    .tuple(fc.array(toolResult, { maxLength: 2 }), fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 3 }))
    .filter(([r, c]) => r.length + c.length > 0)
    .map(([r, c]): AnthropicMessage => ({ role: 'user', content: [...r, ...c] }));
  const assistant = fc
    .tuple(
      fc.option(
        text.map((t) => ({ type: 'thinking' as const, thinking: t })),
        { nil: undefined },
      ),
      fc.array(textBlock, { maxLength: 2 }),
      fc.array(toolUse, { maxLength: 2 }),
    )
    .filter(([, t, u]) => t.length + u.length > 0)
    // OpenAI has no empty reasoning; reasoning that is '' is simply absent
    .map(
      ([th, t, u]): AnthropicMessage => ({ role: 'assistant', content: [...(th && th.thinking !== '' ? [th] : []), ...t, ...u] }),
    );
  return fc.array(fc.tuple(user, assistant), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.flat());
}

/** Everything the Anthropic converter knows, for model and AI SDK round trips. */
function fullAnthropic(): fc.Arbitrary<AnthropicMessage[]> {
  const doc = fc.oneof(
    fc.tuple(text, fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined })).map(([data, title]) => ({
      type: 'document' as const,
      source: { type: 'text' as const, media_type: 'text/plain' as const, data },
      ...(title !== undefined ? { title } : {}),
    })),
    b64.map((data) => ({ type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf', data } })),
  );
  // AI SDK tool output media has no title
  const untitledDoc = doc.map(({ title: _t, ...d }: { title?: string } & Record<string, unknown>) => d);
  const resultContent = fc.oneof(text, fc.array(fc.oneof(textBlock, imageBlock, untitledDoc), { minLength: 1, maxLength: 3 }));
  const toolResult = fc.tuple(id, resultContent, fc.boolean()).map(([tid, content, err]) => ({
    type: 'tool_result' as const,
    tool_use_id: tid,
    content,
    ...(err ? { is_error: true } : {}),
  }));
  const user = fc
    .tuple(fc.array(toolResult, { maxLength: 2 }), fc.array(fc.oneof(textBlock, imageBlock, doc), { maxLength: 3 }))
    .filter(([r, c]) => r.length + c.length > 0)
    .map(([r, c]): AnthropicMessage => ({ role: 'user', content: [...r, ...c] }));
  const thinking = fc
    .tuple(text, fc.option(b64, { nil: undefined }))
    .map(([t, sig]) => ({ type: 'thinking' as const, thinking: t, ...(sig ? { signature: sig } : {}) }));
  const redacted = b64.map((data) => ({ type: 'redacted_thinking' as const, data }));
  const assistant = fc
    .array(fc.oneof(thinking, redacted, textBlock, toolUse), { minLength: 1, maxLength: 5 })
    .map((content): AnthropicMessage => ({ role: 'assistant', content }));
  return fc.array(fc.tuple(user, assistant), { minLength: 1, maxLength: 4 }).map((pairs) => pairs.flat());
}

describe('converter round trips', () => {
  it('Anthropic → model → OpenAI → model → Anthropic is the identity on what OpenAI carries', () => {
    fc.assert(
      fc.property(openAiCarriable(), (msgs) => {
        const model = messagesFromAnthropic(msgs);
        const openai = messagesToOpenAI(model);
        // OpenAI's own rules: arguments are JSON strings, results answer by tool_call_id
        for (const m of openai) {
          if (m.role === 'assistant') for (const tc of m.tool_calls ?? []) expect(typeof tc.function.arguments).toBe('string');
          if (m.role === 'tool') expect(typeof m.tool_call_id).toBe('string');
        }
        const back = messagesToAnthropic(messagesFromOpenAI(JSON.parse(JSON.stringify(openai)))).messages;
        // the output type-checks as the official OpenAI SDK's request params
        const asOpenAI: ChatCompletionMessageParam[] = openai;
        expect(asOpenAI.length).toBeGreaterThan(0);
        expect(back).toEqual(msgs);
      }),
      { numRuns: 200 },
    );
  });

  it('Anthropic → model → Anthropic is the identity', () => {
    fc.assert(
      fc.property(fullAnthropic(), (msgs) => {
        expect(messagesToAnthropic(messagesFromAnthropic(msgs)).messages).toEqual(msgs);
      }),
      { numRuns: 200 },
    );
  });

  it('Anthropic → model → AI SDK → model → Anthropic is the identity (signatures and redacted thinking ride in providerOptions)', () => {
    fc.assert(
      fc.property(fullAnthropic(), (msgs) => {
        const ai = messagesToAiSdk(messagesFromAnthropic(msgs));
        for (const m of ai) {
          if (m.role === 'tool')
            for (const p of m.content) expect(['text', 'json', 'error-text', 'error-json', 'content']).toContain(p.output.type);
        }
        // the AI SDK's own schema accepts every message
        for (const m of ai) expect(modelMessageSchema.safeParse(m).error).toBeUndefined();
        const back = messagesToAnthropic(messagesFromAiSdk(JSON.parse(JSON.stringify(ai)))).messages;
        expect(back).toEqual(msgs);
      }),
      { numRuns: 200 },
    );
  });
});
