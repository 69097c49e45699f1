/**
 * OpenAI Responses reasoning in AI SDK messages: a thinking part with OpenAI's encrypted content
 * (meta.encryptedContent and its item id, as the Codex, pi and OpenCode readers keep them) is rendered
 * with the `providerOptions.openai` keys @ai-sdk/openai reads back, and read again into the same meta.
 *
 * What @ai-sdk/openai reads (2.0.131, the AI SDK v5 provider, dist/index.js; 4.0.118 reads the same keys):
 * src/responses/convert-to-openai-responses-input.ts, `convertToOpenAIResponsesInput`, assistant
 * `case 'reasoning'`: `parseProviderOptions({ provider: 'openai', schema:
 * openaiResponsesReasoningProviderOptionsSchema })` = `{ itemId, reasoningEncryptedContent }`; with
 * `store: false` it sends `{ type: 'reasoning', id: itemId, encrypted_content: reasoningEncryptedContent,
 * summary }` and merges the parts of one itemId into one item (one summary_text each); a part with no
 * itemId is skipped in 2.0.x ("Non-OpenAI reasoning parts are not supported").
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contextToAiSdk, messagesFromAiSdk, messagesToAiSdk } from '../../src/convert/ai-sdk.js';
import { readRollout } from '../../src/formats/codex/index.js';
import { parsePiFile } from '../../src/formats/pi/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Part } from '../../src/model/types.js';

/** The keys of a reasoning part's providerOptions.openai that @ai-sdk/openai reads (see the header). */
const OPENAI_REASONING_KEYS = ['itemId', 'reasoningEncryptedContent'];

/** The real codex-cli 0.169.0 rollout with a reasoning item (test/fixtures/codex/README.md, audit-home 01a21354). */
async function codexContext() {
  const dir = resolve('test/fixtures/codex/audit-home/sessions/2026/11/25');
  const file = readdirSync(dir).find((f) => f.includes('01a21354'));
  return buildContext(await readRollout(join(dir, file ?? '')));
}

async function piContext() {
  const { session } = await parsePiFile(resolve('test/fixtures/pi/api-signatures.jsonl'));
  return buildContext({ entries: session.entries, leafId: 'a0000003' });
}

const thinkingOf = (m: Message | undefined): Part[] => (m?.parts ?? []).filter((p) => p.type === 'thinking');
const withoutPiItem = (parts: Part[]): Part[] =>
  parts.map((p) => {
    if (!p.meta) return p;
    const { piReasoningItem: _item, ...meta } = p.meta;
    return { ...p, meta };
  });

describe('AI SDK: OpenAI encrypted reasoning', () => {
  it('renders a Codex reasoning item as @ai-sdk/openai reads it: one part per summary, each with itemId and encrypted content', async () => {
    const ctx = await codexContext();
    const assistant = ctx.messages.find((m) => thinkingOf(m).length > 0);
    expect(thinkingOf(assistant)).toEqual([
      {
        type: 'thinking',
        thinking: 'S1\n\nS2',
        meta: { codexItemId: 'rs_1', summaryParts: ['S1', 'S2'], encryptedContent: 'gAAAAENC' },
      },
    ]);
    const out = contextToAiSdk(ctx).messages;
    const reasoning = out.flatMap((m) =>
      m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p) => p.type === 'reasoning') : [],
    );
    expect(reasoning).toEqual([
      { type: 'reasoning', text: 'S1', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAENC' } } },
      { type: 'reasoning', text: 'S2', providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAENC' } } },
    ]);
    for (const r of reasoning) expect(Object.keys(r.providerOptions?.openai ?? {}).sort()).toEqual(OPENAI_REASONING_KEYS);
    // the reasoning comes before the texts of its response, as codex sent them (request-rollback-01a21354.json)
    const turn = out.find((m) => m.role === 'assistant' && Array.isArray(m.content) && m.content[0]?.type === 'reasoning');
    expect(Array.isArray(turn?.content) && turn.content.map((p) => p.type)).toEqual(['reasoning', 'reasoning', 'text', 'text']);
  });

  it('round trip: the Codex reasoning comes back as the one thinking part it was', async () => {
    const ctx = await codexContext();
    const back = messagesFromAiSdk(JSON.parse(JSON.stringify(messagesToAiSdk(ctx.messages))));
    // (a text part's Codex meta, such as codexNewItem, has no place in AI SDK messages)
    const original = ctx.messages.filter((m) => m.role === 'assistant').map(thinkingOf);
    expect(back.filter((m) => m.role === 'assistant').map(thinkingOf)).toEqual(original);
    expect(original.flat()).toHaveLength(1);
  });

  it("renders pi's OpenAI reasoning items (api-signatures.jsonl) and reads them back into the same meta", async () => {
    const ctx = await piContext();
    const assistant = ctx.messages[1];
    const out = messagesToAiSdk([assistant as Message]);
    expect(out).toHaveLength(1);
    const content = out[0]?.content;
    expect(Array.isArray(content) && content.filter((p) => p.type === 'reasoning')).toEqual([
      {
        type: 'reasoning',
        text: 'Plan',
        providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAENC1' } },
      },
      {
        type: 'reasoning',
        text: 'then list',
        providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'gAAAAENC1' } },
      },
      { type: 'reasoning', text: '', providerOptions: { openai: { itemId: 'rs_2', reasoningEncryptedContent: 'gAAAAENC2' } } },
    ]);
    const back = messagesFromAiSdk(JSON.parse(JSON.stringify(out)));
    // pi's own copy of the item (meta.piReasoningItem) is pi's to keep; the pi writer rebuilds it from the rest
    expect(thinkingOf(back[0])).toEqual(withoutPiItem(thinkingOf(assistant)));
    expect(thinkingOf(back[0])).toEqual([
      {
        type: 'thinking',
        thinking: 'Plan\n\nthen list',
        meta: { codexItemId: 'rs_1', encryptedContent: 'gAAAAENC1', summaryParts: ['Plan', 'then list'] },
      },
      { type: 'thinking', thinking: '', meta: { codexItemId: 'rs_2', encryptedContent: 'gAAAAENC2' } },
    ]);
  });

  it("renders OpenCode's reasoning (item id in its provider metadata) and keeps Anthropic's options beside OpenAI's", () => {
    // as the OpenCode reader gives an OpenAI reasoning part (src/formats/opencode/parse.ts)
    const openai = { itemId: 'rs_oc', reasoningEncryptedContent: 'gAAAA-oc' };
    const msgs: Message[] = [
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', thinking: 'pondering', meta: { providerMetadata: { openai }, encryptedContent: 'gAAAA-oc' } },
          { type: 'thinking', thinking: 'both', signature: 'SIG', meta: { codexItemId: 'rs_x', encryptedContent: 'gAAAA-x' } },
          { type: 'thinking', thinking: 'no id', meta: { encryptedContent: 'gAAAA-noid' } },
          { type: 'thinking', thinking: 'plain' },
          { type: 'text', text: 'done' },
        ],
      },
    ];
    const out = messagesToAiSdk(msgs);
    expect(out[0]?.content).toEqual([
      { type: 'reasoning', text: 'pondering', providerOptions: { openai } },
      {
        type: 'reasoning',
        text: 'both',
        providerOptions: { anthropic: { signature: 'SIG' }, openai: { itemId: 'rs_x', reasoningEncryptedContent: 'gAAAA-x' } },
      },
      { type: 'reasoning', text: 'no id', providerOptions: { openai: { reasoningEncryptedContent: 'gAAAA-noid' } } },
      { type: 'reasoning', text: 'plain' },
      { type: 'text', text: 'done' },
    ]);
    // read back: the item id where the Codex reader keeps it, Anthropic's signature as it was
    expect(messagesFromAiSdk(JSON.parse(JSON.stringify(out)))[0]?.parts).toEqual([
      { type: 'thinking', thinking: 'pondering', meta: { codexItemId: 'rs_oc', encryptedContent: 'gAAAA-oc' } },
      { type: 'thinking', thinking: 'both', signature: 'SIG', meta: { codexItemId: 'rs_x', encryptedContent: 'gAAAA-x' } },
      { type: 'thinking', thinking: 'no id', meta: { encryptedContent: 'gAAAA-noid' } },
      { type: 'thinking', thinking: 'plain' },
      { type: 'text', text: 'done' },
    ]);
  });

  it("reads AI SDK messages as @ai-sdk/openai gives a response's reasoning: one item's parts become one thinking part", () => {
    const opts = (enc: string | null) => ({ openai: { itemId: 'rs_9', reasoningEncryptedContent: enc } });
    const back = messagesFromAiSdk([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'a', providerOptions: opts(null) },
          { type: 'reasoning', text: 'b', providerOptions: opts('gAAAA-9') },
          { type: 'tool-call', toolCallId: 'c', toolName: 't', input: {} },
        ],
      },
    ]);
    expect(back[0]?.parts).toEqual([
      {
        type: 'thinking',
        thinking: 'a\n\nb',
        meta: { codexItemId: 'rs_9', summaryParts: ['a', 'b'], encryptedContent: 'gAAAA-9' },
      },
      { type: 'tool_call', id: 'c', name: 't', input: {} },
    ]);
  });
});
