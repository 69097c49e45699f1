/**
 * What the OpenAI API's web search did for codex, carried into the other agents by the real binaries
 * on loopback stand-ins: real codex records turns whose responses hold `web_search_call` items, one
 * per action (the Responses stand-in answers `SEARCH: <query>` with a `search`, and `BROWSE: …` with an
 * `open_page` and a `find_in_page`, then its text, as the API does: no output item);
 * `threadbase convert --to claude|pi|opencode` writes them, and each real agent resumes the session
 * against the Anthropic stand-in sending each action as the readable text note of its turn
 * (convert/provider-tools.ts: `[web search (…): "query"]`, `[opened page URL (…)]`,
 * `[searched page URL for "pattern" (…)]`), with no tool call and no error result for it; converted
 * back `--to codex`, real codex resumes it sending the `web_search_call` items it recorded.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import type { ToolCallPart } from '../../src/model/types.js';
import { type CodexAgentHome, createOpencodeDatabase, setupCodexAgentHome } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { convertWith, newestSession, resumeInTarget } from '../helpers/conversions.js';
import { itemText, type ResponsesRule } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const QUERY = 'latest tokio release';
const ANSWER = 'Tokio 1.48 is the latest release.';
const PAGE = 'https://github.com/tokio-rs/tokio/releases/tag/tokio-1.48.0';
const PATTERN = 'Fixed';
const BROWSED = 'The 1.48 release notes list its fixes.';

const searchRule: ResponsesRule = (req) => {
  const said = itemText(req.input.at(-1));
  if (/SEARCH: /.test(said)) return { webSearch: { query: QUERY }, text: ANSWER };
  if (/BROWSE: /.test(said))
    return {
      webSearch: [
        { type: 'open_page', url: PAGE },
        { type: 'find_in_page', url: PAGE, pattern: PATTERN },
      ],
      text: BROWSED,
    };
  return undefined;
};

/** Each action's note, as a person would read it (convert/provider-tools.ts). */
const RAN = 'run by the provider; its results are not kept';
const NOTES = [
  `[web search (${RAN}): "${QUERY}"]`,
  `[opened page ${PAGE} (${RAN})]`,
  `[searched page ${PAGE} for "${PATTERN}" (${RAN})]`,
];

let home: CodexAgentHome;
let codexId = '';
/** the items as codex recorded them */
let recorded: Record<string, unknown>[] = [];
/** the items as codex sends them when it resumes its own session */
let sentByCodex: unknown[] = [];

beforeAll(async () => {
  home = await setupCodexAgentHome({ responsesRules: [searchRule] });
  await home.codex(['--', `SEARCH: ${QUERY}`]);
  const listed = await newestSession(home, 'codex');
  if (!listed.path) throw new Error(`codex session ${listed.id} has no file`);
  codexId = listed.id;
  await home.codex(['resume', codexId, `BROWSE: ${PAGE}`]);
  recorded = (await fs.readFile(listed.path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
    .filter((r) => r.type === 'response_item' && r.payload.type === 'web_search_call')
    .map((r) => r.payload);
  const before = home.responses.responseRequests().length;
  await home.codex(['resume', codexId, 'and again']);
  sentByCodex = (home.responses.responseRequests().slice(before).at(-1)?.input ?? []).filter((i) => i.type === 'web_search_call');
  await createOpencodeDatabase(home);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

const blocksOf = (content: string | Block[]): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

describe('a codex web search, resumed by Claude Code, pi and OpenCode', () => {
  it('codex recorded each action as a web_search_call item with no output', () => {
    expect(recorded).toMatchObject([
      { type: 'web_search_call', id: 'ws_standin_0001', action: { type: 'search', query: QUERY, queries: [QUERY] } },
      { type: 'web_search_call', id: 'ws_standin_0002', action: { type: 'open_page', url: PAGE } },
      { type: 'web_search_call', id: 'ws_standin_0002_1', action: { type: 'find_in_page', url: PAGE, pattern: PATTERN } },
    ]);
    // and sends them back as they were (less its own local metadata) when it resumes the session
    expect(sentByCodex).toEqual(recorded.map(({ internal_chat_message_metadata_passthrough: _local, ...item }) => item));
  });

  it('each action has its readable note', () => {
    const notes = recorded.map((item) =>
      providerCallNote({
        type: 'tool_call',
        id: String(item.id),
        name: 'web_search',
        input: item.action as ToolCallPart['input'],
      }),
    );
    expect(notes).toEqual(NOTES);
  });

  for (const to of ['claude', 'pi', 'opencode'] as const)
    it(`codex → ${to}: the agent sends each action as its note, no error result; back in codex, the items again`, async () => {
      const written = await convertWith(home, codexId, 'codex', to);
      const probe = `probe web search in ${to}`;
      const messages = await resumeInTarget(home, to, written, probe);
      const blocks = messages.flatMap((m) => blocksOf(m.content as string | Block[]).map((b): Block => ({ ...b, role: m.role })));
      // each turn: its actions' notes in order, then the answer they shaped
      const [search, open, find] = NOTES.map((note) => blocks.findIndex((b) => b.type === 'text' && b.text === note));
      expect(blocks[search ?? -1]?.role).toBe('assistant');
      expect(blocks[(search ?? -1) + 1]).toMatchObject({ role: 'assistant', type: 'text', text: ANSWER });
      expect(blocks[open ?? -1]?.role).toBe('assistant');
      expect(find).toBe((open ?? -1) + 1);
      expect(blocks[find ?? -1]?.role).toBe('assistant');
      expect(blocks[(find ?? -1) + 1]).toMatchObject({ role: 'assistant', type: 'text', text: BROWSED });
      // no call for it, and nothing telling the model it failed
      expect(blocks.filter((b) => b.type === 'tool_use' || b.type === 'tool_result')).toEqual([]);
      expect(JSON.stringify(messages)).not.toMatch(/No result provided|Tool result missing|interrupted/i);
      // the call kept beside the note stays in the file
      expect(JSON.stringify(messages)).not.toContain('providerCall');

      const again = await convertWith(home, written.id, to, 'codex');
      const before = home.responses.responseRequests().length;
      await home.codex(['resume', again.id, `back from ${to}`]);
      const input = home.responses.responseRequests().slice(before).at(-1)?.input ?? [];
      expect(input.filter((i) => i.type === 'web_search_call')).toEqual(sentByCodex);
    });
});
