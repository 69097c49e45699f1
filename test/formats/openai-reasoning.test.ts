/**
 * OpenAI reasoning items between OpenCode and Codex, on what the real agents recorded
 * (test/agents/openai-agents.test.ts proves the same with the agents resuming):
 * - OpenCode (an `@ai-sdk/openai` provider) keeps one reasoning part per summary part of an item, all
 *   with the item id, the encrypted content on the last one only (test/fixtures/opencode/openai-reasoning-export.json);
 *   into Codex that is one reasoning item with every summary part and its encrypted content once;
 * - a Codex reasoning item of several summary parts goes into OpenCode in that same layout, and back into
 *   Codex whole.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses, messageToItems } from '../../src/formats/codex/index.js';
import { encodeSession, opencodeContext, sessionFromExport, sessionFromOpencode } from '../../src/formats/opencode/index.js';
import { encodePiSessionFile } from '../../src/formats/pi/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { Message, Session } from '../../src/model/types.js';
import '../../src/formats/all.js';

let home: string;
beforeAll(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-openai-reasoning-'));
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const openCodeSession = (): Session =>
  sessionFromExport(
    JSON.parse(readFileSync(resolve('test/fixtures/opencode/openai-reasoning-export.json'), 'utf8')),
    'openai-reasoning-export.json',
  );

type Item = Record<string, unknown>;
const reasoningOf = (items: readonly Item[]) =>
  items
    .filter((i) => i.type === 'reasoning')
    .map((i) => ({ summary: (i.summary as { text: string }[]).map((s) => s.text), encrypted: i.encrypted_content }));

/** The reasoning items of the rollout written at `path` (its response_item lines). */
function rolloutReasoning(path: string): { summary: string[]; encrypted: unknown }[] {
  const items = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { type: string; payload: Item })
    .filter((r) => r.type === 'response_item')
    .map((r) => r.payload);
  return reasoningOf(items);
}

const RECORDED = [
  { summary: ['First I look at the request.', 'Then I run the command.'], encrypted: 'gAAAA-enc-3-run' },
  { summary: ['Part one of the thought.', 'Part two of the thought.', 'Part three.'], encrypted: 'gAAAA-enc-4-think' },
];

describe('OpenCode reasoning into Codex', () => {
  it('the parts of one item (the encrypted content on the last) become one reasoning item with every summary part', async () => {
    const s = openCodeSession();
    // as OpenCode recorded it: a part per summary part
    const parts = s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).filter((p) => p.type === 'thinking');
    expect(parts.map((p) => p.meta?.encryptedContent ?? null)).toEqual([
      null,
      'gAAAA-enc-3-run',
      null,
      null,
      'gAAAA-enc-4-think',
    ]);
    expect(reasoningOf(contextToResponses(opencodeContext(s)).input)).toEqual(RECORDED);

    const codex = new CodexDriver({ home, env: { CODEX_HOME: join(home, '.codex') } });
    const written = await codex.writeSession({ ...s, entries: s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e) });
    expect(rolloutReasoning(written.path ?? '')).toEqual(RECORDED);
    expect(reasoningOf(contextToResponses(await codex.getContext(written.id)).input)).toEqual(RECORDED);
  });

  it('an item given as a part per summary part, each with the encrypted content (the AI SDK’s layout), is one item too', () => {
    const part = (thinking: string) => ({
      type: 'thinking' as const,
      thinking,
      meta: { codexItemId: 'rs_1', encryptedContent: 'enc-1' },
    });
    const m: Message = {
      role: 'assistant',
      api: 'opencode',
      parts: [part('a'), part('b'), { ...part('other'), meta: { codexItemId: 'rs_2', encryptedContent: 'enc-2' } }],
    };
    expect(reasoningOf(messageToItems(m).flatMap((e) => (e.item ? [e.item] : [])))).toEqual([
      { summary: ['a', 'b'], encrypted: 'enc-1' },
      { summary: ['other'], encrypted: 'enc-2' },
    ]);
  });
});

describe('Codex reasoning into OpenCode and back', () => {
  it("a real rollout's items of several summary parts come back into Codex whole", async () => {
    const sessions = resolve('test/fixtures/codex/audit-home');
    const source = new Sources({ home: sessions, env: { CODEX_HOME: sessions } }).driver('codex');
    const s = (await source.getSession('01a21354-a797-71c1-b74e-7a50f662eec7')) as Session;
    const original = reasoningOf(contextToResponses(await source.getContext(s.id)).input);
    expect(original.some((r) => r.summary.length > 1)).toBe(true);

    const oc = encodeSession(s, { sessionId: 'ses_codex', projectID: 'global', worktree: '/', directory: '/tmp' });
    const back = sessionFromOpencode(oc.data, { file: 'encoded' });
    const codex = new CodexDriver({ home, env: { CODEX_HOME: join(home, '.codex-back') } });
    const written = await codex.writeSession({ ...back, entries: back.entries.map(({ raw: _r, rawSource: _s, ...e }) => e) });
    expect(rolloutReasoning(written.path ?? '')).toEqual(original);
  });
});

describe('OpenCode reasoning into pi', () => {
  it('an OpenCode message with OpenAI reasoning is written as openai-responses, one thinking block per item, the item pi-ai keeps whole', () => {
    const s = openCodeSession();
    const { records } = encodePiSessionFile({ ...s, entries: s.entries.map(({ raw: _r, rawSource: _s, ...e }) => e) });
    const assistants = records
      .map(
        (r) => r.message as { role?: string; api?: string; content?: { type: string; thinkingSignature?: string }[] } | undefined,
      )
      .filter((m) => m?.role === 'assistant');
    const withReasoning = assistants.filter((m) => m?.content?.some((b) => b.type === 'thinking'));
    expect(withReasoning.map((m) => m?.api)).toEqual(['openai-responses', 'openai-responses']);
    const items = withReasoning.flatMap((m) =>
      (m?.content ?? []).flatMap((b) => (b.type === 'thinking' ? [JSON.parse(b.thinkingSignature ?? 'null') as Item] : [])),
    );
    expect(items.map((i) => i.id)).toEqual(['rs_standin_0007', 'rs_standin_0009']);
    expect(reasoningOf(items)).toEqual(RECORDED);
  });
});
