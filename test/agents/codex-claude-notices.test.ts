/**
 * A real Claude Code session that ran `/compact` (test/fixtures/claude/real, 2.1.330) written into the
 * real codex 0.171: Claude Code's notices in a user's place (the `<local-command-caveat>` it adds, its
 * records of the `/compact` the user ran in Claude Code itself and of its output, a background task's
 * notification) are no prompt the user typed, so codex's app-server lists no turn of their own for them,
 * only the user's three prompts (before threadbase, each notice was a turn of a lone userMessage); codex's
 * own projection of the rollout on a resume is threadbase's, row for row; and the resume sends the
 * context threadbase gives for it, the notices in it as Claude Code sent them. A session whose first user
 * record is such a notice (bcdac43d, a fork after /compact) is titled by its first prompt in codex's state row,
 * which the resume picker's search (`thread/list` searchTerm) looks in; a copy of codex's own thread gets the
 * row codex gave the original.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/driver.js';
import { projectRollout } from '../../src/formats/codex/history-projection.js';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { type CodexAgentHome, setupCodexAgentHome } from '../helpers/agents.js';
import { ALL_SOURCES, codexAppServer, codexThreadList } from '../helpers/codex-app-server.js';
import { expectCodexResumesAsWritten } from '../helpers/codex-history.js';
import { itemLine } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/claude/real');
const COMPACTED = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** Its fork: the compaction summary, the caveat, /compact and its output, then the prompt "after compact" */
const STARTS_WITH_NOTICES = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';

let home: CodexAgentHome;
let claudeHome: string;

beforeAll(async () => {
  home = await setupCodexAgentHome();
  // codex makes its state and thread history databases on its first run
  await home.codex(['hello']);
  claudeHome = mkdtempSync(join(tmpdir(), 'tb-claude-notices-'));
  cpSync(FIXTURE, join(claudeHome, '.claude'), { recursive: true });
}, 180_000);
afterAll(async () => {
  await home?.close();
  if (claudeHome) rmSync(claudeHome, { recursive: true, force: true });
});

interface ReadThread {
  turns: { status: string; items: { type: string; content?: { text?: string }[] }[] }[];
}

describe("Claude Code's notices in a session written into codex", () => {
  it("are no turn of their own to codex's app-server; codex projects and resumes the rollout as threadbase does", async () => {
    const session = await new ClaudeDriver({ home: claudeHome, env: {} }).getSession(COMPACTED);
    if (!session) throw new Error('no fixture session');
    const written = await new CodexDriver(home.env).writeSession(session);
    const where = { cwd: home.project, home: home.root, codexHome: home.codexHome };
    const read = (
      (await codexAppServer(where, [['thread/read', { threadId: written.id, includeTurns: true }]])) as [{ thread: ReadThread }]
    )[0].thread;
    const prompts = read.turns.map((t) => t.items.filter((i) => i.type === 'userMessage').map((i) => i.content?.[0]?.text));
    expect(prompts).toEqual([['RUN: echo hi > out.txt'], ['AGENT: say hello'], ['after compact']]);
    expect(read.turns[1]?.items.map((i) => i.type)).toContain('contextCompaction');

    const bytes = readFileSync(written.path as string);
    const ours = projectRollout(written.id, bytes);
    if (typeof ours === 'string') throw new Error(ours);
    const context = contextToResponses(await new CodexDriver(home.env).getContext(written.id)).input;
    expect(context.map(itemLine).some((l) => l.includes('<command-name>/compact'))).toBe(true);
    await expectCodexResumesAsWritten(home, written.id, ours, context);
  }, 180_000);

  it('titles a session whose first user record is a notice by its first prompt, as codex titles its own threads', async () => {
    const session = await new ClaudeDriver({ home: claudeHome, env: {} }).getSession(STARTS_WITH_NOTICES);
    if (!session) throw new Error('no fixture session');
    const codex = new CodexDriver(home.env);
    const written = await codex.writeSession(session);
    const where = { cwd: home.project, home: home.root, codexHome: home.codexHome };
    const listed = await codexThreadList(where, { sourceKinds: ALL_SOURCES });
    expect(listed.find((t) => t.id === written.id)?.preview).toBe('after compact');
    // the picker's search looks in the row's title: the first prompt finds the thread (with the caveat as its title, nothing did)
    const found = await codexThreadList(where, { sourceKinds: ALL_SOURCES, searchTerm: 'after compact' });
    expect(found.map((t) => t.id)).toEqual([written.id]);

    // codex's own thread (its first run, "hello"), copied: the row's title is the one codex gave the original
    const state = join(home.codexHome, readdirSync(home.codexHome).find((f) => /^state_\d+\.sqlite$/.test(f)) as string);
    const rowOf = (id: string) => {
      const db = openDatabase(state, { readonly: true });
      try {
        return db.prepare('SELECT title, first_user_message, preview FROM threads WHERE id = ?').get(id);
      } finally {
        db.close();
      }
    };
    const own = (await codex.listSessions()).find((s) => s.title === 'hello');
    if (!own) throw new Error("no thread of codex's own");
    const original = await codex.getSession(own.id);
    if (!original) throw new Error("no thread of codex's own");
    const copy = await codex.writeSession(original);
    expect(rowOf(copy.id)).toEqual(rowOf(own.id));
    expect(listed.find((t) => t.id === own.id)?.preview).toBe('hello');
  }, 180_000);
});
