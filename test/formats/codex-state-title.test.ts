/**
 * The title and first user message of the state row threadbase writes for a thread (what `codex resume`'s
 * picker and the app-server's `thread/list` show) are codex's own: from the thread's `user_message` events
 * only (codex-rs state extract.rs), the prompts the user typed. A Claude Code session whose first user
 * record is a notice (bcdac43d, a fork of a compacted session: its `<local-command-caveat>`, the
 * `<command-name>/compact` record and its output before the first prompt) is titled by that prompt,
 * not the notice (agents test codex-claude-notices checks codex's listing of it).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import '../../src/formats/all.js';
import { codexStateHome } from '../helpers/codex-state-db.js';
import type { FixtureHome } from '../helpers/fixture-homes.js';
import { convertRow } from '../helpers/sub-agents.js';

/** Claude Code 2.1.330: the compaction summary, the caveat, /compact and its output, then "after compact" */
const STARTS_WITH_NOTICES = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';
/** codex 0.169 (audit home): its first prompt, "hello there", comes after codex's own context (skills, environment) */
const CODEX_TOP = '01a21354-a797-71c1-b74e-7a50f662eec7';

let fx: FixtureHome;
beforeAll(async () => {
  fx = await codexStateHome('tb-codex-state-title-');
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

function rowOf(id: string): unknown {
  const db = openDatabase(join(fx.dirs.codex, 'state_5.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT title, first_user_message, preview FROM threads WHERE id = ?').get(id);
  } finally {
    db.close();
  }
}

describe("threadbase's own title of a codex thread", () => {
  it('is the first prompt too, as codex titles it: not the notice before it', async () => {
    const claude = await new ClaudeDriver({ home: fx.home, env: { CLAUDE_CONFIG_DIR: fx.dirs.claude } }).getSession(
      STARTS_WITH_NOTICES,
    );
    if (!claude) throw new Error('no fixture session');
    const codex = new CodexDriver(fx.env);
    // written without a title (convert would give it the source's)
    const written = await codex.writeSession(claude);
    expect(written.title).toBe('after compact');
    expect((await codex.listSessions()).find((s) => s.id === written.id)?.title).toBe('after compact');
  });
});

describe("the state row's title of a thread threadbase writes into codex", () => {
  it('is the first prompt the user typed, not a Claude Code notice before it', async () => {
    const out = await convertRow(fx.env, STARTS_WITH_NOTICES, 'codex', 'claude');
    expect(rowOf(out.id)).toEqual({ title: 'after compact', first_user_message: 'after compact', preview: 'after compact' });
  });

  it("is the first prompt of a copy of codex's own thread, not the context codex injected before it", async () => {
    const out = await convertRow(fx.env, CODEX_TOP, 'codex', 'codex');
    // codex 0.169's paginated thread records its prompts as UserMessage items, without user_message events
    expect(rowOf(out.id)).toEqual({ title: 'hello there', first_user_message: 'hello there', preview: 'hello there' });
  });
});
