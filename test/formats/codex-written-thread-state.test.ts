/**
 * What a rollout threadbase writes into codex says of its session and history, as codex 0.169 has it
 * (test/agents/codex-written-thread-state.test.ts drives the real codex):
 * - the `threads` row's `history_mode` is the rollout's own: 'paginated' for a copy of a codex 0.169
 *   thread (its session_meta says so, as codex's own rows), 'legacy' for another agent's session (no
 *   history_mode in its session_meta, which codex reads as legacy);
 * - a sub-agent thread written alone (without its parent) keeps its root thread's id as `session_id`,
 *   as every thread under that root has it; a top thread copied gets its own.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  it("says the rollout's history mode: paginated for a codex 0.169 copy, legacy for another agent's session", async () => {
    const copy = await convert(CODEX_TOP, 'codex');
    expect(rolloutMeta(copy.path as string).history_mode).toBe('paginated');
    expect(historyModeOf(copy.id)).toBe('paginated');

    const foreign = await convert(CLAUDE_SESSION, 'claude');
    expect(rolloutMeta(foreign.path as string).history_mode).toBeUndefined();
    expect(historyModeOf(foreign.id)).toBe('legacy');
  });
});

describe('a codex sub-agent thread written alone', () => {
  it("keeps its root thread's id as session_id; a top thread copied gets its own", async () => {
    const child = await convert(CODEX_CHILD, 'codex');
    expect(child.id).not.toBe(CODEX_CHILD);
    expect(rolloutMeta(child.path as string)).toMatchObject({
      id: child.id,
      session_id: CODEX_PARENT,
      source: { subagent: { thread_spawn: { parent_thread_id: CODEX_PARENT, agent_nickname: 'Cicero' } } },
    });

    const top = await convert(CODEX_TOP, 'codex');
    expect(rolloutMeta(top.path as string)).toMatchObject({ id: top.id, session_id: top.id });
  });
});
