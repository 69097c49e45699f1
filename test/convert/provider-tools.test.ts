/**
 * The note a call the provider ran itself is sent as (convert/provider-tools.ts providerCallNote): a
 * web search the OpenAI API ran for codex (a `web_search_call` item, its `action` the call's input)
 * reads per action as a person would put it: a search its queries, an opened page its URL, a search in
 * a page its URL and pattern; anything else stays its name and input as JSON. Request bodies for
 * other APIs send that note, and the Claude Code, pi and OpenCode writers keep the call beside it, so
 * reading their files gives each action back whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAiSdk } from '../../src/convert/ai-sdk.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { contextToOpenAI } from '../../src/convert/openai.js';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import * as lib from '../../src/index.js';
import type { Message, Session, ToolCallPart } from '../../src/model/types.js';
import { throughEncoders } from '../helpers/encoders.js';
import { chainSession } from '../helpers/sessions.js';

const RAN = 'run by the provider; its results are not kept';
const PAGE = 'https://docs.rs/tokio/latest/tokio/';

/** A web search call as the codex reader makes it of a `web_search_call` item. */
const search = (id: string, action: Record<string, unknown>): ToolCallPart => ({
  type: 'tool_call',
  id,
  name: 'web_search',
  input: action,
  meta: { codexServerTool: true, status: 'completed', providerExecuted: true },
});

const SEARCH = search('ws_1', { type: 'search', query: 'latest tokio release', queries: ['latest tokio release'] });
const OPEN = search('ws_2', { type: 'open_page', url: PAGE });
const FIND = search('ws_3', { type: 'find_in_page', url: PAGE, pattern: 'spawn_blocking' });

describe('the note of a web search, per action', () => {
  it('a search: its query, quoted', () => {
    expect(providerCallNote(SEARCH)).toBe(`[web search (${RAN}): "latest tokio release"]`);
  });

  it('a search of several queries: each, once, the query first', () => {
    const note = providerCallNote(search('ws', { type: 'search', query: 'tokio', queries: ['tokio', 'tokio 1.48 changelog'] }));
    expect(note).toBe(`[web search (${RAN}): "tokio", "tokio 1.48 changelog"]`);
    expect(providerCallNote(search('ws', { type: 'search', queries: ['a', 'b'] }))).toBe(`[web search (${RAN}): "a", "b"]`);
  });

  it('an opened page: its URL', () => {
    expect(providerCallNote(OPEN)).toBe(`[opened page ${PAGE} (${RAN})]`);
  });

  it('a search in a page: its URL and the pattern, quoted', () => {
    expect(providerCallNote(FIND)).toBe(`[searched page ${PAGE} for "spawn_blocking" (${RAN})]`);
  });

  it('quotes inside a query or pattern, and a URL with blanks, stay apart from the words around them', () => {
    expect(providerCallNote(search('ws', { type: 'search', query: 'say "hi"\nnow' }))).toBe(
      `[web search (${RAN}): "say \\"hi\\"\\nnow"]`,
    );
    expect(providerCallNote(search('ws', { type: 'find_in_page', url: 'a b', pattern: 'x' }))).toBe(
      `[searched page "a b" for "x" (${RAN})]`,
    );
  });

  it('an unknown action, an action without what it names, or another provider tool: its name and input as JSON', () => {
    for (const input of [
      { type: 'other' },
      { type: 'search' },
      { type: 'search', query: ' ', queries: [] },
      { type: 'open_page' },
      { type: 'find_in_page', url: PAGE },
      { type: 'find_in_page', pattern: 'x' },
      { query: 'no type' },
    ])
      expect(providerCallNote(search('ws', input))).toBe(`[web_search (${RAN}): ${JSON.stringify(input)}]`);
    const other: ToolCallPart = { type: 'tool_call', id: 'c', name: 'code_interpreter', input: { type: 'search', query: 'q' } };
    expect(providerCallNote(other)).toBe(`[code_interpreter (${RAN}): {"type":"search","query":"q"}]`);
  });
});

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-provider-notes-'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

/** A codex-like session: a search turn, then a turn that opens a page and searches in it. */
function session(): Session {
  const messages: Message[] = [
    { role: 'user', parts: [{ type: 'text', text: 'what is the latest tokio?' }] },
    { role: 'assistant', model: 'm', provider: 'openai', parts: [SEARCH, { type: 'text', text: 'Tokio 1.48.' }] },
    { role: 'user', parts: [{ type: 'text', text: 'what does its doc say of spawn_blocking?' }] },
    { role: 'assistant', model: 'm', provider: 'openai', parts: [OPEN, FIND, { type: 'text', text: 'It runs blocking code.' }] },
  ];
  return chainSession(
    'codex-like',
    'other',
    join(home, 'project'),
    messages.map((m, i): [string, Message] => [`e${i}`, m]),
  );
}

const NOTES = [
  `[web search (${RAN}): "latest tokio release"]`,
  `[opened page ${PAGE} (${RAN})]`,
  `[searched page ${PAGE} for "spawn_blocking" (${RAN})]`,
];

describe('the notes in request bodies and in other agents', () => {
  it('Anthropic, OpenAI chat and AI SDK bodies send each action as its note, in its turn', () => {
    const ctx = lib.buildContext(session());
    const anthropic = contextToAnthropic(ctx);
    expect(anthropic.messages[1]?.content).toEqual([
      { type: 'text', text: NOTES[0] },
      { type: 'text', text: 'Tokio 1.48.' },
    ]);
    expect(anthropic.messages[3]?.content).toEqual([
      { type: 'text', text: NOTES[1] },
      { type: 'text', text: NOTES[2] },
      { type: 'text', text: 'It runs blocking code.' },
    ]);
    for (const body of [contextToOpenAI(ctx), contextToAiSdk(ctx)].map((b) => JSON.stringify(b))) {
      for (const note of NOTES) expect(body).toContain(JSON.stringify(note).slice(1, -1));
      expect(body).not.toMatch(/ws_[123]/);
    }
  });

  it('the Claude Code, pi and OpenCode writers send the notes and read each action back', async () => {
    const { claude, pi, opencode, back } = await throughEncoders(session(), join(home, 'files'));
    for (const file of [claude, pi]) {
      for (const note of NOTES) expect(file.jsonl).toContain(JSON.stringify(note));
      expect(file.jsonl).not.toMatch(/"type":"(tool_use|toolCall)"/);
    }
    const texts = opencode.data.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === 'text' ? [p.text] : []));
    for (const note of NOTES) expect(texts).toContain(note);

    for (const b of back) {
      const calls = b.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts.filter((p) => p.type === 'tool_call') : []));
      expect(calls).toEqual([SEARCH, OPEN, FIND]);
    }
  });
});
