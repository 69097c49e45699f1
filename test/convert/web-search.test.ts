/**
 * A search the OpenAI API ran for codex (a `web_search_call` item, no output item: the results stayed
 * with the API) in other agents' sessions and in request bodies for other APIs: the model there learns
 * that the search was made, from a text note, and is not told it failed (no "No result provided" error,
 * no call left without its result); codex → Claude Code / pi / OpenCode → codex gives the item back.
 * The rollout is test/fixtures/codex/web-search (README there).
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAiSdk } from '../../src/convert/ai-sdk.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { contextToOpenAI } from '../../src/convert/openai.js';
import { NO_RESULT_TEXT } from '../../src/convert/pairing.js';
import { PROVIDER_RAN } from '../../src/convert/provider-tools.js';
import { convertSession } from '../../src/convert/session.js';
import { exportSession } from '../../src/export/index.js';
import { contextToResponses } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import '../../src/formats/all.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');
const ID = '01a2ffff-112d-7912-ae95-4f258b998a24';
const ITEM = {
  type: 'web_search_call',
  id: 'ws_standin_0001',
  status: 'completed',
  action: { type: 'search', query: 'latest tokio release', queries: ['latest tokio release'] },
};
const NOTE = '[web search (run by the provider; its results are not kept): "latest tokio release"]';

let home: string;
let env: DriverEnv;
let sources: Sources;
let codex: Session;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-web-search-'));
  cpSync(join(FIXTURES, 'codex', 'web-search'), join(home, '.codex'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run.
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  copyFileSync(join(FIXTURES, 'opencode', 'opencode.db'), join(home, '.local', 'share', 'opencode', 'opencode.db'));
  env = { home, env: {} };
  sources = new Sources(env);
  codex = await readBack('codex', ID);
});
async function readBack(agent: string, id: string): Promise<Session> {
  const s = await sources.driver(agent).getSession(id);
  if (!s) throw new Error(`${agent} session ${id} not found`);
  return s;
}

afterAll(async () => {
  await sources?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('a codex web search', () => {
  it('is read as a call the provider ran, and codex sends it back as the item it recorded', () => {
    const ctx = buildContext(codex);
    const calls = ctx.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_call'));
    expect(calls).toEqual([
      expect.objectContaining({
        id: ITEM.id,
        name: 'web_search',
        input: ITEM.action,
        meta: expect.objectContaining({ providerExecuted: true }),
      }),
    ]);
    const input = contextToResponses(ctx).input;
    expect(input.filter((i) => (i as { type?: unknown }).type === 'web_search_call')).toEqual([ITEM]);
  });

  it('is shown by export (HTML, Markdown) as run by the provider, not as a call without its result', () => {
    const html = exportSession(codex, 'html');
    expect(html).toContain(`(${PROVIDER_RAN})`);
    expect(html).not.toContain('(no result)');
    // the call is summed up by its query, not by the kind of action
    expect(html).toMatch(/<span class="tool-name">web_search<\/span> <span class="dim">latest tokio release<\/span>/);
    expect(exportSession(codex, 'md')).toContain(`**tool call** \`web_search\` (${ITEM.id}) — ${PROVIDER_RAN}`);
  });

  it('goes into Anthropic, OpenAI chat and AI SDK bodies as a note in its turn, with no error result', () => {
    const ctx = buildContext(codex);
    const bodies = [contextToAnthropic(ctx), contextToOpenAI(ctx), contextToAiSdk(ctx)].map((b) => JSON.stringify(b));
    for (const body of bodies) {
      expect(body).not.toContain(NO_RESULT_TEXT);
      expect(body).not.toContain(ITEM.id);
      expect(body).toContain(JSON.stringify(NOTE).slice(1, -1));
    }
    // the note is the assistant's, before its answer
    const anthropic = contextToAnthropic(ctx).messages;
    const turn = anthropic.find((m) => m.role === 'assistant' && JSON.stringify(m.content).includes('tokio'));
    expect(turn?.content).toEqual([
      { type: 'text', text: NOTE },
      { type: 'text', text: 'Tokio 1.48 is the latest release.' },
    ]);
  });

  for (const to of ['claude', 'pi', 'opencode'] as const)
    it(`is written into ${to} as the note its agent sends, and comes back to codex as the item`, async () => {
      const written = await convertSession(codex, { to, env });
      expect(written.meta?.warnings).toContainEqual(
        expect.stringMatching(/codex's web searches\) written as a text note .*\(1\)/),
      );
      const back = await readBack(to, written.id);
      // what the agent would send: the note, no call and no result
      const stored = to === 'opencode' ? '' : readFileSync(String(written.path), 'utf8');
      if (to === 'claude') {
        expect(stored).toContain(JSON.stringify({ type: 'text', text: NOTE }).slice(1, -1));
        expect(stored).not.toContain('"tool_use"');
      }
      if (to === 'pi') {
        expect(stored).toContain(`"text":${JSON.stringify(NOTE)}`);
        expect(stored).not.toContain('"toolCall"');
      }
      const ctx = buildContext(back);
      expect(ctx.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_result'))).toEqual([]);
      expect(ctx.messages.flatMap((m) => m.parts.filter((p) => p.type === 'tool_call'))).toEqual([
        expect.objectContaining({ id: ITEM.id, name: 'web_search', input: ITEM.action }),
      ]);
      expect(JSON.stringify(contextToAnthropic(ctx))).not.toContain(NO_RESULT_TEXT);
      const again = await convertSession(back, { to: 'codex', env });
      const rollout = readFileSync(String(again.path), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; payload: { type?: string } });
      expect(
        rollout.filter((r) => r.type === 'response_item' && r.payload.type === 'web_search_call').map((r) => r.payload),
      ).toEqual([ITEM]);
    });
});
