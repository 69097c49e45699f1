/**
 * A web search in a page: codex 0.169 records it as the action `find_in_page` (its WebSearchAction), the
 * OpenAI API reference names it `find`. Real codex reads an action it does not know as `{type: 'other'}`
 * (checked: a stand-in answering with a `find` action, codex recorded and resent `other`, its url and
 * pattern gone), so the codex writer gives the API's `find` codex's name; every provider-run web search
 * (codex's own, or another session's `web_search` call marked providerExecuted) is written as codex's
 * `web_search_call`. Both names should give the same note in the agents that get it as text
 * (`[searched page URL for "pattern" (…)]`): that note is made in src/convert/provider-tools.ts.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import { encodeRollout } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import type { Message, ToolCallPart } from '../../src/model/types.js';
import { chainSession } from '../helpers/sessions.js';

const temps: string[] = [];
afterEach(async () => {
  for (const d of temps.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

const ID = '01a20600-0000-7000-8000-00000000f1d0';
const PAGE = 'https://github.com/tokio-rs/tokio/releases/tag/tokio-1.48.0';
const PATTERN = 'Fixed';
const NOTE = `[searched page ${PAGE} for "${PATTERN}" (run by the provider; its results are not kept)]`;

const search = (type: string, meta: ToolCallPart['meta']): ToolCallPart => ({
  type: 'tool_call',
  id: 'ws_1',
  name: 'web_search',
  input: { type, url: PAGE, pattern: PATTERN },
  meta,
});

/** A session whose answer searched a page, the call as the model has it. */
function session(call: ToolCallPart, source: string) {
  const answer: Message = { role: 'assistant', model: 'gpt-5', parts: [call, { type: 'text', text: 'It lists fixes.' }] };
  return chainSession('searched', source, '/w', [
    ['u1', { role: 'user', parts: [{ type: 'text', text: 'What did 1.48 fix?' }] }],
    ['a1', answer],
  ]);
}

async function roundTrip(lines: object[]): Promise<ToolCallPart[]> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-find-'));
  temps.push(dir);
  const file = join(dir, `rollout-2026-11-20T10-00-00-${ID}.jsonl`);
  await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const s = await readRollout(file);
  return s.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).filter((p) => p.type === 'tool_call');
}

const webSearchItems = (lines: object[]) =>
  lines.flatMap((l) => {
    const { type, payload } = l as { type: string; payload: { type?: string } };
    return type === 'response_item' && payload.type === 'web_search_call' ? [payload] : [];
  });

describe('a web search in a page: find_in_page (codex) and find (the API)', () => {
  it('find_in_page, as codex records it, is noted as a search in the page', () => {
    expect(providerCallNote(search('find_in_page', { providerExecuted: true }))).toBe(NOTE);
  });

  // Fails until src/convert/provider-tools.ts (not this helper's file) takes `find` beside `find_in_page`
  // in webSearchNote; today `find` gets the JSON fallback `[web_search (…): {"type":"find",…}]`.
  it('find, as the API names it, gives the same note', () => {
    expect(providerCallNote(search('find', { providerExecuted: true }))).toBe(NOTE);
  });

  for (const [what, meta, source] of [
    ['codex’s own', { codexServerTool: true, status: 'completed', providerExecuted: true }, 'codex'],
    ['another session’s provider-run', { providerExecuted: true }, 'threadbase'],
  ] as const)
    it(`${what} find is written into codex as find_in_page with its url and pattern, read back with the note`, async () => {
      const { lines } = encodeRollout(session(search('find', meta), source), ID);
      expect(webSearchItems(lines)).toEqual([
        {
          type: 'web_search_call',
          id: 'ws_1',
          status: 'completed',
          action: { type: 'find_in_page', url: PAGE, pattern: PATTERN },
        },
      ]);
      // no function call codex would owe an output for
      expect(JSON.stringify(lines)).not.toContain('function_call');
      const [call] = await roundTrip(lines);
      expect(call).toMatchObject({ name: 'web_search', input: { type: 'find_in_page', url: PAGE, pattern: PATTERN } });
      expect(call?.meta?.providerExecuted).toBe(true);
      expect(providerCallNote(call as ToolCallPart)).toBe(NOTE);
    });

  it('the other actions are written as they are', () => {
    const open: ToolCallPart = {
      ...search('open_page', { codexServerTool: true, providerExecuted: true }),
      input: { type: 'open_page', url: PAGE },
    };
    const { lines } = encodeRollout(session(open, 'codex'), ID);
    expect(webSearchItems(lines).map((i) => (i as { action: unknown }).action)).toEqual([{ type: 'open_page', url: PAGE }]);
  });
});
