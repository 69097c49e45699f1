/**
 * A search the OpenAI API ran for codex, carried into the other agents by the real binaries on
 * loopback stand-ins: real codex records a turn whose response holds a `web_search_call` item (the
 * Responses stand-in answers `SEARCH: <query>` with one, then its text, as the API does: no output
 * item); `threadbase convert --to claude|pi|opencode` writes it, and each real agent resumes it against
 * the Anthropic stand-in sending the search as the text note of its turn (convert/provider-tools.ts),
 * with no tool call and no error result for it; converted back `--to codex`, real codex resumes it
 * sending the `web_search_call` item it recorded.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import { Sources } from '../../src/formats/registry.js';
import type { ToolCallPart } from '../../src/model/types.js';
import { type AgentHome, OPENCODE_MODEL, runCodex, runOpencode, setupAgentHome, writeCodexConfig } from '../helpers/agents.js';
import type { Block } from '../helpers/claude-requests.js';
import { convertWith, resumeInTarget } from '../helpers/conversions.js';
import {
  itemText,
  type ResponsesRule,
  type ResponsesStandIn,
  startResponsesStandIn,
} from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const QUERY = 'latest tokio release';
const ANSWER = 'Tokio 1.48 is the latest release.';

const searchRule: ResponsesRule = (req) =>
  /SEARCH: /.test(itemText(req.input.at(-1))) ? { webSearch: { query: QUERY }, text: ANSWER } : undefined;

let home: AgentHome;
let responses: ResponsesStandIn;
let codexHome: string;
let codexId = '';
/** the item as codex recorded it */
let recorded: Record<string, unknown> | undefined;
/** the item as codex sends it when it resumes its own session */
let sentByCodex: unknown[] = [];

const codex = (args: string[]) => runCodex({ cwd: home.project, home: home.root, codexHome }, args);

beforeAll(async () => {
  home = await setupAgentHome();
  responses = await startResponsesStandIn({ rules: [searchRule] });
  codexHome = join(home.root, '.codex');
  await writeCodexConfig(codexHome, responses.baseUrl);
  await codex(['--', `SEARCH: ${QUERY}`]);
  const [listed] = await new Sources(home.env).driver('codex').listSessions();
  if (!listed?.path) throw new Error('codex recorded no session');
  codexId = listed.id;
  recorded = (await fs.readFile(listed.path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> })
    .find((r) => r.type === 'response_item' && r.payload.type === 'web_search_call')?.payload;
  const before = responses.responseRequests().length;
  await codex(['resume', codexId, 'and again']);
  sentByCodex = (responses.responseRequests().slice(before).at(-1)?.input ?? []).filter((i) => i.type === 'web_search_call');
  // OpenCode creates its database on its first run
  await runOpencode(home, ['run', '-m', OPENCODE_MODEL, 'first run']);
}, 300_000);

afterAll(async () => {
  await responses?.close();
  await home?.close();
});

const blocksOf = (content: string | Block[]): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

describe('a codex web search, resumed by Claude Code, pi and OpenCode', () => {
  it('codex recorded the search as a web_search_call item with no output', () => {
    expect(recorded).toMatchObject({ type: 'web_search_call', id: 'ws_standin_0001', action: { type: 'search', query: QUERY } });
    // and sends it back as it was (less its own local metadata) when it resumes the session
    const { internal_chat_message_metadata_passthrough: _local, ...item } = recorded ?? {};
    expect(sentByCodex).toEqual([item]);
  });

  for (const to of ['claude', 'pi', 'opencode'] as const)
    it(`codex → ${to}: the agent sends the search as a note, no error result; back in codex, the item again`, async () => {
      const written = await convertWith(home, codexId, 'codex', to);
      const probe = `probe web search in ${to}`;
      const messages = await resumeInTarget(home, to, written, probe);
      const blocks = messages.flatMap((m) => blocksOf(m.content as string | Block[]).map((b): Block => ({ ...b, role: m.role })));
      // the search's turn: the note, then the answer the search shaped
      const note = providerCallNote({
        type: 'tool_call',
        id: String(recorded?.id),
        name: 'web_search',
        input: recorded?.action as ToolCallPart['input'],
      });
      const at = blocks.findIndex((b) => b.type === 'text' && b.text === note);
      expect(blocks[at]?.role).toBe('assistant');
      expect(blocks[at + 1]).toMatchObject({ role: 'assistant', type: 'text', text: ANSWER });
      // no call for it, and nothing telling the model it failed
      expect(blocks.filter((b) => b.type === 'tool_use' || b.type === 'tool_result')).toEqual([]);
      expect(JSON.stringify(messages)).not.toMatch(/No result provided|Tool result missing|interrupted/i);
      // the call kept beside the note stays in the file
      expect(JSON.stringify(messages)).not.toContain('providerCall');

      const again = await convertWith(home, written.id, to, 'codex');
      const before = responses.responseRequests().length;
      await codex(['resume', again.id, `back from ${to}`]);
      const input = responses.responseRequests().slice(before).at(-1)?.input ?? [];
      expect(input.filter((i) => i.type === 'web_search_call')).toEqual(sentByCodex);
    });
});
