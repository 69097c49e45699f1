/**
 * A codex → codex copy of a session that ran a sub-agent (codex 0.169's own spawn_agent thread, the
 * real audit fixture's "Cicero"): the copied sub-agent thread keeps its thread_spawn nickname, and the
 * real codex resumes it, sending its own prompt and the probe.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { itemText } from '../helpers/openai-responses-standin.js';

const PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';

interface Written {
  id: string;
  path: string | null;
  children?: Written[];
}

let home: CodexAgentHome;

beforeAll(async () => {
  home = await setupCodexAgentHome();
  await fs.cp('test/fixtures/codex/audit-home/sessions', join(home.codexHome, 'sessions'), { recursive: true });
}, 180_000);
afterAll(async () => {
  await home?.close();
});

const metaOf = (path: string) =>
  (
    JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string) as {
      payload: { session_id: string; source: { subagent: { thread_spawn: unknown } } };
    }
  ).payload;
const spawnOf = (path: string) => metaOf(path).source.subagent.thread_spawn;

describe('codex → codex copy of a sub-agent thread, resumed by the real codex', () => {
  it('keeps the nickname, and codex resumes the copied sub-agent', async () => {
    const out = await runCliOk(home.env, ['convert', PARENT, '--source', 'codex', '--to', 'codex', '--json', '--no-index']);
    const written = JSON.parse(out) as Written;
    const child = written.children?.[0];
    expect(child?.path, out).toBeTruthy();
    expect(spawnOf(child?.path as string)).toMatchObject({ parent_thread_id: written.id, depth: 1, agent_nickname: 'Cicero' });
    const mark = home.responses.responseRequests().length;
    await home.codex(['resume', child?.id as string, 'probe the copied sub-agent']);
    const req = home.responses.responseRequests().slice(mark).at(-1);
    if (!req) throw new Error('codex sent no request');
    expect(itemText(req.input.at(-1))).toBe('probe the copied sub-agent');
    // codex appended its turn to the copied rollout and left its session_meta as written: in the root's session
    expect(spawnOf(child?.path as string)).toMatchObject({ agent_nickname: 'Cicero' });
    expect(metaOf(child?.path as string).session_id).toBe(written.id);
  }, 180_000);
});
