/**
 * A sub-agent thread threadbase writes into codex, recorded as codex 0.169 records its own (a real
 * `codex exec` whose stand-in answered with a multi_agent_v1 spawn_agent call, read back from its
 * rollouts and state_5.sqlite): the session_meta keeps the root thread's id as `session_id` and the
 * agent's nickname and role at the top too; the `threads` row says `thread_source` 'subagent', the
 * agent's nickname, role and path, its `source` the thread_spawn as codex serializes it; and
 * `thread_spawn_edges` links the parent to it, 'open' (codex archives a thread's sub-agents by it).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import '../../src/formats/all.js';
import { codexStateHome, rolloutMeta } from '../helpers/codex-state-db.js';
import type { FixtureHome } from '../helpers/fixture-homes.js';
import { CLAUDE_PARENT, type ConvertedRow, convertRow, subAgentTree } from '../helpers/sub-agents.js';

/** The audit fixture's parent, whose spawn_agent call started the sub-agent codex named Cicero. */
const CODEX_PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';

let fx: FixtureHome;

beforeAll(async () => {
  fx = await codexStateHome('tb-codex-sub-agent-state-');
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

const convert = (id: string, from: string): Promise<ConvertedRow> => convertRow(fx.env, id, 'codex', from);

interface ThreadRow {
  source: string;
  thread_source: string | null;
  agent_nickname: string | null;
  agent_role: string | null;
  agent_path: string | null;
}

function stateOf(id: string): { row: ThreadRow | undefined; edge: unknown } {
  const db = openDatabase(join(fx.dirs.codex, 'state_5.sqlite'), { readonly: true });
  try {
    return {
      row: db.prepare('SELECT source, thread_source, agent_nickname, agent_role, agent_path FROM threads WHERE id = ?').get(id) as
        | ThreadRow
        | undefined,
      edge: db
        .prepare('SELECT parent_thread_id, child_thread_id, status FROM thread_spawn_edges WHERE child_thread_id = ?')
        .get(id),
    };
  } finally {
    db.close();
  }
}

/** The `source` text of a depth-1 sub-agent's row, as real codex 0.169 wrote it. */
const spawnSource = (parent: string, nickname: string | null) =>
  `{"subagent":{"thread_spawn":{"parent_thread_id":"${parent}","depth":1,"agent_path":null,"agent_nickname":${JSON.stringify(nickname)},"agent_role":null}}}`;

describe("codex sub-agent threads threadbase writes: session_meta and state database as codex's own", () => {
  it('a codex → codex copy: the root id as session_id, the nickname in the row, an open edge from the parent', async () => {
    const out = await convert(CODEX_PARENT, 'codex');
    const child = out.children?.[0] as ConvertedRow;
    expect(child?.path, JSON.stringify(out)).toBeTruthy();
    const meta = rolloutMeta(child.path as string);
    expect(meta).toMatchObject({
      session_id: out.id,
      id: child.id,
      parent_thread_id: out.id,
      thread_source: 'subagent',
      agent_nickname: 'Cicero',
    });
    // a role codex did not give stays out of the session_meta, as codex leaves it out
    expect(meta).not.toHaveProperty('agent_role');
    expect(meta).not.toHaveProperty('forked_from_id');
    expect(JSON.stringify(meta.source)).toBe(spawnSource(out.id, 'Cicero'));

    expect(stateOf(child.id)).toEqual({
      row: {
        source: spawnSource(out.id, 'Cicero'),
        thread_source: 'subagent',
        agent_nickname: 'Cicero',
        agent_role: null,
        agent_path: null,
      },
      edge: { parent_thread_id: out.id, child_thread_id: child.id, status: 'open' },
    });
    expect(stateOf(out.id)).toEqual({
      row: { source: 'exec', thread_source: 'user', agent_nickname: null, agent_role: null, agent_path: null },
      edge: undefined,
    });
    // read back by threadbase: still the parent's sub-agent, naming its call
    const sources = new Sources(fx.env);
    try {
      const read = await sources.driver('codex').getSession(child.id);
      expect(read).toMatchObject({ parentId: out.id, parentToolCallId: child.parentToolCallId });
      expect(read?.meta).toMatchObject({ thread_source: 'subagent', agent_nickname: 'Cicero' });
    } finally {
      await sources.close();
    }
  });

  it("another agent's sub-agent (Claude Code's): a sub-agent row and edge without a nickname, the parent's id as session_id", async () => {
    const out = await convert(CLAUDE_PARENT, 'claude');
    const child = out.children?.[0] as ConvertedRow;
    expect(child?.path, JSON.stringify(out)).toBeTruthy();
    const meta = rolloutMeta(child.path as string);
    expect(meta).toMatchObject({ session_id: out.id, parent_thread_id: out.id, thread_source: 'subagent' });
    expect(meta).not.toHaveProperty('agent_nickname');
    expect(stateOf(child.id)).toEqual({
      row: {
        source: spawnSource(out.id, null),
        thread_source: 'subagent',
        agent_nickname: null,
        agent_role: null,
        agent_path: null,
      },
      edge: { parent_thread_id: out.id, child_thread_id: child.id, status: 'open' },
    });
  });

  it("a sub-agent's sub-agent keeps the root thread's id as session_id, its edge from the sub-agent", async () => {
    const project = join(fx.home, 'project');
    const { parent, childrenOf } = subAgentTree(project);
    const [written] = (await convertSessionAll(parent, {
      to: 'codex',
      env: fx.env,
      childrenOf,
    })) as WrittenSession[];
    const c = written?.children?.[0] as WrittenSession;
    const g = c?.children?.[0] as WrittenSession;
    expect(g, JSON.stringify(written)).toBeDefined();
    expect(rolloutMeta(c.path as string)).toMatchObject({ session_id: written?.id, parent_thread_id: written?.id });
    expect(rolloutMeta(g.path as string)).toMatchObject({ session_id: written?.id, parent_thread_id: c.id });
    expect(stateOf(g.id).edge).toEqual({ parent_thread_id: c.id, child_thread_id: g.id, status: 'open' });
    expect(stateOf(g.id).row?.thread_source).toBe('subagent');
  });
});
