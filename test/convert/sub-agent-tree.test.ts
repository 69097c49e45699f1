/**
 * convertSessionAll with `childrenOf`: a sub-agent that ran a sub-agent of its own is written under
 * the written sub-agent (OpenCode, pi and codex: the grandchild's parent is the written child; Claude Code:
 * in the main session's subagents/ folder, one spawn deeper, its meta naming the child's call), and
 * a sub-agent whose call is not on the converted path stays out.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildSessions, convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import '../../src/formats/all.js';
import { homeWithSubAgentTree } from '../helpers/sub-agents.js';

let home: string;
let env: DriverEnv;
let tree: { parent: Session; child: Session; grandchild: Session; childrenOf: ChildSessions };

beforeAll(() => {
  ({ home, env, tree } = homeWithSubAgentTree('tb-sub-agent-tree-'));
  mkdirSync(join(home, '.local', 'share', 'opencode'), { recursive: true });
  // OpenCode creates its schema on first run; a database it made stands in for that run
  copyFileSync(join('test', 'fixtures', 'opencode', 'opencode.db'), join(home, '.local', 'share', 'opencode', 'opencode.db'));
});
afterAll(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

async function convert(to: string, at?: string): Promise<WrittenSession> {
  const [written] = await convertSessionAll(tree.parent, { to, env, childrenOf: tree.childrenOf, ...(at ? { at } : {}) });
  return written as WrittenSession;
}

async function read(to: string, id: string): Promise<Session> {
  const sources = new Sources(env);
  try {
    const s = await sources.driver(to).getSession(id);
    if (!s) throw new Error(`no ${to} session ${id}`);
    return s;
  } finally {
    await sources.close();
  }
}

describe('sub-agents of sub-agents', () => {
  for (const to of ['opencode', 'pi', 'codex']) {
    it(`into ${to}: the grandchild under the written child`, async () => {
      const written = await convert(to);
      const child = written.children?.[0];
      const grandchild = child?.children?.[0];
      expect(grandchild, JSON.stringify(written)).toBeDefined();
      expect(await read(to, child?.id as string)).toMatchObject({ parentId: written.id, parentToolCallId: 'call_p' });
      if (to === 'codex') {
        // codex counts how deep a sub-agent thread was spawned
        const meta = JSON.parse(readFileSync(grandchild?.path as string, 'utf8').split('\n')[0] as string) as {
          payload: { source: unknown };
        };
        expect(meta.payload.source).toMatchObject({ subagent: { thread_spawn: { parent_thread_id: child?.id, depth: 2 } } });
      }
      const g = await read(to, grandchild?.id as string);
      expect(g).toMatchObject({ parentId: child?.id, parentToolCallId: 'call_c' });
      expect(
        g.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : [])).map((p) => (p.type === 'text' ? p.text : p.type)),
      ).toEqual(['look deeper', 'tool_call', 'tool_result', 'found it']);
    });
  }

  it('into Claude Code: both in the main session subagents/ folder, the grandchild one spawn deeper', async () => {
    const written = await convert('claude');
    const child = written.children?.[0];
    const grandchild = child?.children?.[0];
    expect(grandchild, JSON.stringify(written)).toBeDefined();
    expect(dirname(grandchild?.path as string)).toBe(join(dirname(written.path as string), written.id, 'subagents'));
    expect(dirname(child?.path as string)).toBe(dirname(grandchild?.path as string));
    const meta = (p: string) => JSON.parse(readFileSync(p.replace(/\.jsonl$/, '.meta.json'), 'utf8')) as Record<string, unknown>;
    expect(meta(child?.path as string)).toMatchObject({ toolUseId: 'call_p', spawnDepth: 1, description: 'look around' });
    expect(meta(grandchild?.path as string)).toMatchObject({ toolUseId: 'call_c', spawnDepth: 2, description: 'look deeper' });
    // Claude Code files every sub-agent under the main session
    expect(await read('claude', grandchild?.id as string)).toMatchObject({ parentId: written.id, parentToolCallId: 'call_c' });
  });

  it('converted at an entry before the task call: no sub-agent written, none said to be left out', async () => {
    const written = await convert('opencode', 'P-u1');
    expect(written.children).toBeUndefined();
    expect(JSON.stringify(written.meta?.warnings ?? [])).not.toContain('sub-agent');
  });
});
