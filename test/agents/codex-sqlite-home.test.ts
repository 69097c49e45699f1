/**
 * Where the real codex 0.171 keeps its SQLite databases (state_<n>, thread_history_<n>, …) and how
 * threadbase finds them (src/formats/codex/state-db.ts codexSqliteHome): `sqlite_home` in config.toml
 * (relative to CODEX_HOME; it wins over the variable), else `$CODEX_SQLITE_HOME`, else CODEX_HOME. Rollouts
 * stay in `$CODEX_HOME/sessions` either way. A session threadbase writes gets its row in codex's state
 * database there, so `codex exec resume --last` resumes it; a name set by threadbase is the one codex lists.
 * (codex's own rows keep `has_user_event` 0, its default, which threadbase leaves as it is: 0.171 reads it
 * only in the migration that backfilled `first_user_message`.)
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { CODEX_BIN, type CodexAgentHome, runBinary, setupCodexAgentHome } from '../helpers/agents.js';
import { itemText } from '../helpers/openai-responses-standin.js';
import { oneExchange } from '../helpers/sessions.js';

const homes: CodexAgentHome[] = [];
afterAll(async () => {
  for (const h of homes) await h.close();
});

/** `codex exec …` in the home's project with its CODEX_HOME and `extra` variables. */
async function codex(h: CodexAgentHome, args: string[], extra: Record<string, string> = {}): Promise<void> {
  await runBinary(CODEX_BIN, ['exec', '--skip-git-repo-check', ...args], h.project, {
    PATH: process.env.PATH,
    HOME: h.root,
    CODEX_HOME: h.codexHome,
    RUST_LOG: 'error',
    NO_COLOR: '1',
    ...extra,
  });
}

/** The rows of codex's `threads` in the state database under `dir`. */
async function threadRows(dir: string): Promise<Record<string, unknown>[]> {
  const file = (await fs.readdir(dir)).find((f) => /^state_\d+\.sqlite$/.test(f));
  if (!file) throw new Error(`no state database in ${dir}`);
  const db = openDatabase(join(dir, file), { readonly: true });
  try {
    return db.prepare('SELECT id, name, preview, has_user_event FROM threads ORDER BY id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/**
 * Codex's own thread first (so its databases exist), then one threadbase writes and names; `codex exec
 * resume --last` then resumes the written one. The rows of the state database in `dbDir`.
 */
async function writtenThenResumed(h: CodexAgentHome, dbDir: string, extra: Record<string, string> = {}) {
  await codex(h, ['an own codex session first'], extra);
  expect(await fs.readdir(h.codexHome)).not.toContain('state_5.sqlite');
  const driver = new CodexDriver({ home: h.root, env: { CODEX_HOME: h.codexHome, ...extra } });
  const t = new Date().toISOString();
  const written = await driver.writeSession({
    ...oneExchange({
      id: 'claude-sqlite-home',
      project: h.project,
      prompt: 'THREADBASE WRITTEN',
      reply: 'written answer',
      at: () => t,
    }),
    source: 'claude',
  });
  expect(written.meta?.warnings).toBeUndefined();
  await driver.setTitle(written.id, 'named by threadbase');
  const mark = h.responses.responseRequests().length;
  await codex(h, ['resume', '--last', 'which one?'], extra);
  const texts = (h.responses.responseRequests().slice(mark).at(-1)?.input ?? []).map((i) => itemText(i));
  expect(texts).toContain('THREADBASE WRITTEN');
  expect(texts).not.toContain('an own codex session first');
  const rows = await threadRows(dbDir);
  expect(rows.find((r) => r.id === written.id)).toMatchObject({ name: 'named by threadbase', preview: 'THREADBASE WRITTEN' });
  // threadbase's row leaves has_user_event as codex's own row has it
  expect(new Set(rows.map((r) => r.has_user_event))).toEqual(new Set([0]));
  expect(
    (await new CodexDriver({ home: h.root, env: { CODEX_HOME: h.codexHome, ...extra } }).getSession(written.id))?.title,
  ).toBe('named by threadbase');
}

describe("codex's databases away from CODEX_HOME", () => {
  it("config.toml's sqlite_home (relative to CODEX_HOME)", async () => {
    const h = await setupCodexAgentHome();
    homes.push(h);
    const config = await fs.readFile(join(h.codexHome, 'config.toml'), 'utf8');
    await fs.writeFile(join(h.codexHome, 'config.toml'), `sqlite_home = "db"\n${config}`);
    await writtenThenResumed(h, join(h.codexHome, 'db'));
  }, 180_000);

  it('$CODEX_SQLITE_HOME', async () => {
    const h = await setupCodexAgentHome();
    homes.push(h);
    const dir = join(h.root, 'codex-db');
    await writtenThenResumed(h, dir, { CODEX_SQLITE_HOME: dir });
  }, 180_000);

  it("config.toml's sqlite_home wins over $CODEX_SQLITE_HOME", async () => {
    const h = await setupCodexAgentHome();
    homes.push(h);
    const config = await fs.readFile(join(h.codexHome, 'config.toml'), 'utf8');
    const dir = join(h.root, 'configured-db');
    await fs.writeFile(join(h.codexHome, 'config.toml'), `sqlite_home = "${dir}"\n${config}`);
    await writtenThenResumed(h, dir, { CODEX_SQLITE_HOME: join(h.root, 'env-db') });
    await expect(fs.readdir(join(h.root, 'env-db'))).rejects.toThrow();
  }, 180_000);
});
