/**
 * A codex → codex copy of a session that ran a sub-agent (the real audit fixture's spawn_agent thread,
 * "Cicero"), written into a CODEX_HOME whose state database the real codex 0.169 made, then driven by
 * the real codex as its own sub-agents are:
 * - resumed, the copied sub-agent runs in its parent's session, as codex's own does (the `session-id`
 *   header and `prompt_cache_key` are the root thread's id, from session_meta.session_id), and the
 *   parent still resumes;
 * - codex's thread listing (app-server `thread/list`) shows it under its parent with its nickname;
 * - archiving the parent (app-server `thread/archive`) archives the sub-agent with it, which codex does
 *   by the thread_spawn_edges row; threadbase reads both back archived, still linked.
 */
import { existsSync, promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import '../../src/formats/all.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { ALL_SOURCES, codexAppServer, codexThreadList } from '../helpers/codex-app-server.js';
import { itemText, type ResponsesRequest } from '../helpers/openai-responses-standin.js';
import type { ConvertedRow } from '../helpers/sub-agents.js';

const PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';

let home: CodexAgentHome;

beforeAll(async () => {
  home = await setupCodexAgentHome();
  // codex makes its state database on its first run
  await home.codex(['a thread of codex its own']);
  await fs.cp('test/fixtures/codex/audit-home/sessions', join(home.codexHome, 'sessions'), { recursive: true });
}, 180_000);
afterAll(async () => {
  await home?.close();
});

/** The last Responses request codex sent, with its headers. */
function lastRequest(): { headers: Record<string, string>; body: ResponsesRequest } {
  const last = home.responses.requests.filter((r) => r.method === 'POST' && /\/responses$/.test(r.path)).at(-1);
  if (!last) throw new Error('codex sent no request');
  return { headers: last.headers, body: last.body as ResponsesRequest };
}

/** `convert PARENT --to codex`: the written parent and its sub-agent thread. */
async function copyParent(): Promise<{ parent: ConvertedRow; child: ConvertedRow }> {
  const parent = JSON.parse(
    await runCliOk(home.env, ['convert', PARENT, '--source', 'codex', '--to', 'codex', '--json', '--no-index']),
  ) as ConvertedRow;
  const child = parent.children?.[0] as ConvertedRow;
  expect(child?.path, JSON.stringify(parent)).toBeTruthy();
  return { parent, child };
}

const where = () => ({ cwd: home.project, home: home.root, codexHome: home.codexHome });

describe('real codex and a sub-agent thread threadbase copied', () => {
  it('archives it with its parent, as its own sub-agents; threadbase reads both back archived, still linked', async () => {
    // nothing of codex's has read these threads before (a resume would record their rows itself)
    const { parent, child } = await copyParent();
    await codexAppServer(where(), [['thread/archive', { threadId: parent.id }]]);
    const archived = join(home.codexHome, 'archived_sessions');
    for (const file of [parent.path, child.path] as string[]) {
      expect(existsSync(file), file).toBe(false);
      expect(existsSync(join(archived, basename(file))), file).toBe(true);
    }
    const sources = new Sources(home.env);
    try {
      const codex = sources.driver('codex');
      const [p, c] = await Promise.all([codex.getSession(parent.id), codex.getSession(child.id)]);
      expect(p?.meta).toMatchObject({ archived: true });
      expect(c).toMatchObject({ parentId: parent.id, parentToolCallId: child.parentToolCallId, meta: { archived: true } });
      expect((await codex.listSessions({ parentId: parent.id })).map((s) => s.id)).toEqual([child.id]);
    } finally {
      await sources.close();
    }
  }, 120_000);

  it('resumes it in its parent session, lists it under its parent, and still resumes the parent', async () => {
    const { parent, child } = await copyParent();
    const listed = await codexThreadList(where(), { sourceKinds: [...ALL_SOURCES, 'subAgentThreadSpawn'] });
    expect(listed.find((t) => t.id === child.id)).toMatchObject({ parentThreadId: parent.id, agentNickname: 'Cicero' });

    await home.codex(['resume', child.id, 'probe the copied sub-agent']);
    const sub = lastRequest();
    expect(itemText(sub.body.input.at(-1))).toBe('probe the copied sub-agent');
    // as codex resumes a sub-agent it spawned: in the root thread's session, as that thread's sub-agent
    expect(sub.headers).toMatchObject({
      'session-id': parent.id,
      'thread-id': child.id,
      'x-codex-parent-thread-id': parent.id,
      'x-openai-subagent': 'collab_spawn',
    });
    expect(sub.body.prompt_cache_key).toBe(parent.id);

    await home.codex(['resume', parent.id, 'probe the parent']);
    const top = lastRequest();
    expect(itemText(top.body.input.at(-1))).toBe('probe the parent');
    expect(top.headers['session-id']).toBe(parent.id);
  }, 180_000);
});
