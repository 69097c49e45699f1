/**
 * What a rollout threadbase writes into codex says of its session and history, as codex 0.169 has it
 * (test/agents/codex-written-thread-state.test.ts drives the real codex):
 * - the `threads` row's `history_mode` is the rollout's own: 'paginated' for a copy of a codex 0.169
 *   thread (its session_meta says so, as codex's own rows), and for another agent's session written
 *   as codex's turns (turns.ts; codex-foreign-turns for one that is not, 'legacy');
 * - a sub-agent thread written alone (without its parent: a convert of it, a fork of it) is a top thread
 *   of its own, as codex 0.171 forks a sub-agent thread: its own `session_id`, no thread_spawn, parent,
 *   nickname or thread_spawn_edges row; the original spawn kept in the session_meta's `threadbase` field.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import '../../src/formats/all.js';
import { codexStateHome, rolloutMeta } from '../helpers/codex-state-db.js';
import type { FixtureHome } from '../helpers/fixture-homes.js';
import { type ConvertedRow, convertRow } from '../helpers/sub-agents.js';

/** codex 0.169 (audit home): a top thread, and the sub-agent ("Cicero") that CODEX_PARENT spawned */
const CODEX_TOP = '01a21354-a797-71c1-b74e-7a50f662eec7';
const CODEX_PARENT = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';
const CODEX_CHILD = '01a21356-267a-73e0-9768-3144907e69c8';
/** Claude Code 2.1 */
const CLAUDE_SESSION = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';

let fx: FixtureHome;

beforeAll(async () => {
  fx = await codexStateHome('tb-codex-written-state-');
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

const convert = (id: string, from: string): Promise<ConvertedRow> => convertRow(fx.env, id, 'codex', from);

function historyModeOf(id: string): unknown {
  const db = openDatabase(join(fx.dirs.codex, 'state_5.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT history_mode FROM threads WHERE id = ?').get(id) as { history_mode: unknown } | undefined)
      ?.history_mode;
  } finally {
    db.close();
  }
}

describe('the state row of a thread threadbase writes into codex', () => {
  it("says the rollout's history mode: paginated for a codex 0.169 copy, and for another agent's session written as codex's turns", async () => {
    const copy = await convert(CODEX_TOP, 'codex');
    expect(rolloutMeta(copy.path as string).history_mode).toBe('paginated');
    expect(historyModeOf(copy.id)).toBe('paginated');

    const foreign = await convert(CLAUDE_SESSION, 'claude');
    expect(rolloutMeta(foreign.path as string).history_mode).toBe('paginated');
    expect(historyModeOf(foreign.id)).toBe('paginated');
  });
});

describe('a codex sub-agent thread written alone (without its parent)', () => {
  /** The thread's row and its thread_spawn_edges row in codex's state database. */
  function stateOf(id: string): { row: unknown; edge: unknown } {
    const db = openDatabase(join(fx.dirs.codex, 'state_5.sqlite'), { readonly: true });
    try {
      return {
        row: db.prepare('SELECT source, thread_source, agent_nickname FROM threads WHERE id = ?').get(id),
        edge: db.prepare('SELECT * FROM thread_spawn_edges WHERE child_thread_id = ?').get(id),
      };
    } finally {
      db.close();
    }
  }
  const originalSpawn = {
    parent_thread_id: CODEX_PARENT,
    depth: 1,
    agent_path: null,
    agent_nickname: 'Cicero',
    agent_role: null,
  };

  it('is a top thread of its own, as codex forks a sub-agent thread: its own session, no parent, no edge; the spawn kept as history', async () => {
    const child = await convert(CODEX_CHILD, 'codex');
    expect(child.id).not.toBe(CODEX_CHILD);
    const meta = rolloutMeta(child.path as string);
    expect(meta).toMatchObject({
      id: child.id,
      session_id: child.id,
      source: 'cli',
      thread_source: 'user',
      threadbase: { threadSpawn: originalSpawn },
    });
    // (codex's forked_from_id for a sub-agent started with its parent's context is the spawn's, kept with it)
    for (const field of ['parent_thread_id', 'agent_nickname', 'agent_role', 'forked_from_id'])
      expect(meta).not.toHaveProperty(field);
    expect(stateOf(child.id)).toEqual({ row: { source: 'cli', thread_source: 'user', agent_nickname: null }, edge: undefined });

    const top = await convert(CODEX_TOP, 'codex');
    expect(rolloutMeta(top.path as string)).toMatchObject({ id: top.id, session_id: top.id });
  });

  it('a fork of it likewise, forked from the sub-agent thread', async () => {
    const sources = new Sources(fx.env);
    try {
      const codex = sources.driver('codex');
      if (!codex?.forkSession) throw new Error('codex forks no session');
      const fork = await codex.forkSession(CODEX_CHILD);
      const meta = rolloutMeta(fork.path as string);
      expect(meta).toMatchObject({
        id: fork.id,
        session_id: fork.id,
        forked_from_id: CODEX_CHILD,
        source: 'cli',
        threadbase: { threadSpawn: originalSpawn },
      });
      expect(meta).not.toHaveProperty('parent_thread_id');
      expect(stateOf(fork.id).edge).toBeUndefined();
    } finally {
      await sources.close();
    }
  });
});
