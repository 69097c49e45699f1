/**
 * Codex 0.169 lists threads (`codex resume --last`, the resume picker) from `state_<n>.sqlite`
 * `threads`, which it fills from the rollouts on disk once (backfill_state 'complete'); a rollout
 * that appears later is never listed. So a rollout threadbase writes is also recorded there, as one
 * new row with what codex's own rows hold, in one transaction. Other rows are never touched, but for
 * a rename (renameThread), which sets the name of the thread's own row as codex's does; a schema
 * other than the one expected, or a database codex holds locked, is left alone (the rollout still
 * resumes by id).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToLeaf } from '../../model/tree.js';
import type { Session } from '../../model/types.js';
import { openDatabase } from '../shared/sqlite.js';
import { threadSpawn } from './children.js';
import { isObject, str } from './items.js';
import { firstUserMessage } from './prompts.js';

/** A config.toml's top-level settings, or none when there is no file or one codex itself would refuse. */
function configOf(home: string): Record<string, unknown> | undefined {
  try {
    const text = readFileSync(join(home, 'config.toml'), 'utf8');
    // the parser (its CommonJS build, one file) only where there is a config.toml: its ESM build is nine modules to load
    const { parse } = createRequire(import.meta.url)('smol-toml') as typeof import('smol-toml');
    return parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Where codex keeps its SQLite databases (`state_<n>`, `thread_history_<n>`, …), as the real 0.171 puts
 * them: `sqlite_home` at the top of `$CODEX_HOME/config.toml` (relative to that folder, `~/` the user's home;
 * it wins over the variable), else `$CODEX_SQLITE_HOME` (relative to the working directory), else
 * `$CODEX_HOME`. Rollouts stay under `$CODEX_HOME/sessions` whatever they say, and no other setting moves
 * them. A `-c sqlite_home=…` or `--profile` (`$CODEX_HOME/<name>.config.toml`) of one run cannot be seen.
 */
export function codexSqliteHome(home: string, userHome: string, env: Readonly<Record<string, string | undefined>>): string {
  const configured = configOf(home)?.sqlite_home;
  if (typeof configured === 'string' && configured) {
    if (configured === '~' || configured.startsWith('~/')) return join(userHome, configured.slice(1));
    return resolve(home, configured);
  }
  return env.CODEX_SQLITE_HOME ? resolve(env.CODEX_SQLITE_HOME) : home;
}

/**
 * The newest of codex's numbered databases named `name` in `home` (`<name>_<n>.sqlite`, the highest n),
 * if any: each schema version of a database is a file of its own.
 */
export function newestCodexDb(home: string, name: string): string | undefined {
  const numbered = new RegExp(`^${name}_\\d+\\.sqlite$`);
  let files: string[];
  try {
    files = readdirSync(home).filter((f) => numbered.test(f));
  } catch {
    return undefined;
  }
  const newest = files.sort((a, b) => Number(/\d+/.exec(b)?.[0]) - Number(/\d+/.exec(a)?.[0]))[0];
  return newest ? join(home, newest) : undefined;
}

/** The newest state database codex keeps in its home, if any. */
export function stateDbPath(home: string): string | undefined {
  return newestCodexDb(home, 'state');
}

/**
 * The model provider codex records for a new thread (`session_meta.model_provider`, the state row's
 * `model_provider`) when run without flags: `model_provider = "…"` at the top of
 * `$CODEX_HOME/config.toml`, else `openai` (codex-rs/core config: the `-c`/`--profile` override, else
 * config.toml's `model_provider`, else "openai"; 0.169 refuses a `profile = …` key in config.toml).
 */
export function defaultModelProvider(home: string): string {
  const provider = configOf(home)?.model_provider;
  return typeof provider === 'string' && provider ? provider : 'openai';
}

/** The columns of `threads` that threadbase reads or writes, for a check of the schema. */
interface ColumnInfo {
  name: string;
  notnull: number;
  dflt_value: unknown;
  pk: number;
}

function threadColumns(db: ReturnType<typeof openDatabase>): ColumnInfo[] {
  return db.prepare('PRAGMA table_info(threads)').all() as ColumnInfo[];
}

/** The columns written; all others keep codex's defaults. */
const COLUMNS = [
  'id',
  'rollout_path',
  'created_at',
  'updated_at',
  'created_at_ms',
  'updated_at_ms',
  'recency_at',
  'recency_at_ms',
  'source',
  'model_provider',
  'cwd',
  'title',
  'sandbox_policy',
  'approval_mode',
  'tokens_used',
  'cli_version',
  'first_user_message',
  'preview',
  'model',
  'thread_source',
  'agent_nickname',
  'agent_role',
  'agent_path',
  'originator',
] as const;

/**
 * Written when the table has them (a `threads` table without one still gets its row). `history_mode` is the rollout's
 * own (session_meta `history_mode`, which codex 0.169 records as 'paginated' in its threads, as in
 * their rows), else 'legacy', what codex reads from a rollout without it. A row saying 'legacy' for a
 * 'paginated' rollout fails codex's app-server `thread/read` with turns (`thread/turns/list`: "list_turns
 * is not supported yet") until codex rewrites the row on a resume (agents test `codex-written-thread-state`).
 */
const OPTIONAL_COLUMNS = ['history_mode'] as const;

/** The columns of `thread_spawn_edges`, codex's link from a parent thread to each sub-agent thread it spawned. */
const EDGE_COLUMNS = ['parent_thread_id', 'child_thread_id', 'status'] as const;

type Row = Record<(typeof COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number], string | number | null>;

/** The row codex would hold for `session` (read back from the rollout just written) at `file`. */
function threadRow(home: string, session: Session, file: string): Row {
  const raw = isObject(session.raw) && isObject(session.raw.payload) ? session.raw.payload : {};
  const path = session.entries.length ? pathToLeaf(session) : [];
  // codex takes them from every record of the rollout, a rolled-back turn's too
  const first = firstUserMessage(session.entries);
  let model: string | null = null;
  let sandbox: unknown;
  let approval: string | undefined;
  for (const e of path) {
    if (e.kind === 'message' && e.message.role === 'assistant' && e.message.model) model = e.message.model;
    const rec = e.raw;
    if (e.kind === 'model_change' && isObject(rec) && isObject(rec.payload)) {
      sandbox = rec.payload.sandbox_policy ?? sandbox;
      approval = str(rec.payload.approval_policy) ?? approval;
    }
  }
  const created = Date.parse(session.createdAt) || Date.now();
  const updated = Math.max(created, Date.parse(session.updatedAt) || created);
  const source = raw.source ?? 'cli';
  const agent = threadSpawn(raw);
  const u = session.usage;
  return {
    id: session.id,
    rollout_path: file,
    created_at: Math.floor(created / 1000),
    updated_at: Math.floor(updated / 1000),
    created_at_ms: created,
    updated_at_ms: updated,
    recency_at: Math.floor(updated / 1000),
    recency_at_ms: updated,
    source: typeof source === 'string' ? source : JSON.stringify(source),
    model_provider: str(raw.model_provider) ?? defaultModelProvider(home),
    cwd: session.project ?? str(raw.cwd) ?? '/',
    title: first.title,
    sandbox_policy: JSON.stringify(sandbox ?? { type: 'read-only' }),
    approval_mode: approval ?? 'on-request',
    tokens_used: u ? u.input + u.cacheRead + u.output : 0,
    cli_version: str(raw.cli_version) ?? '',
    first_user_message: first.preview,
    preview: first.preview,
    model,
    // codex copies these from the rollout's session_meta (a sub-agent's: 'subagent' and its agent)
    thread_source: str(raw.thread_source) ?? 'user',
    agent_nickname: agent?.nickname ?? null,
    agent_role: agent?.role ?? null,
    agent_path: agent?.path ?? null,
    originator: str(raw.originator) ?? null,
    history_mode: str(raw.history_mode) ?? 'legacy',
  };
}

/**
 * Records a new rollout in codex's state database (in `dbHome`: codexSqliteHome), when there is one.
 * Returns why it did not, or undefined when the row was written (or codex already had it).
 */
export function recordThread(home: string, session: Session, file: string, dbHome = home): string | undefined {
  return inStateDb(dbHome, (db) => {
    const cols = threadColumns(db);
    const names = new Set(cols.map((c) => c.name));
    const missing = COLUMNS.filter((c) => !names.has(c));
    // A required column threadbase does not know: codex's schema moved on; write nothing.
    const known = new Set<string>([...COLUMNS, ...OPTIONAL_COLUMNS]);
    const unknownRequired = cols.filter((c) => c.notnull && c.dflt_value === null && !c.pk && !known.has(c.name));
    if (missing.length || unknownRequired.length)
      return `unexpected threads schema (${[...missing, ...unknownRequired.map((c) => c.name)].join(', ')})`;
    const row = threadRow(home, session, file);
    // A sub-agent thread: codex also records the edge from its parent, 'open' as codex leaves its own
    // (it archives a thread's sub-agents along with it by these edges).
    const spawnedBy = threadSpawn(isObject(session.raw) && isObject(session.raw.payload) ? session.raw.payload : {});
    if (spawnedBy) {
      const edgeNames = new Set((db.prepare('PRAGMA table_info(thread_spawn_edges)').all() as ColumnInfo[]).map((c) => c.name));
      const missingEdge = EDGE_COLUMNS.filter((c) => !edgeNames.has(c));
      if (missingEdge.length) return `unexpected thread_spawn_edges schema (${missingEdge.join(', ')})`;
    }
    const written = [...COLUMNS, ...OPTIONAL_COLUMNS.filter((c) => names.has(c))];
    const insert = db.prepare(
      `INSERT INTO threads (${written.join(', ')}) VALUES (${written.map((c) => `@${c}`).join(', ')}) ON CONFLICT(id) DO NOTHING`,
    );
    const insertEdge = db.prepare(
      "INSERT INTO thread_spawn_edges (parent_thread_id, child_thread_id, status) VALUES (?, ?, 'open') ON CONFLICT(child_thread_id) DO NOTHING",
    );
    db.transaction(() => {
      insert.run(row);
      if (spawnedBy) insertEdge.run(spawnedBy.parentThreadId, row.id);
    }).immediate();
    return undefined;
  });
}

/**
 * Runs `write` on codex's state database when there is one (never creating it), closing it after;
 * returns why nothing was written (no database, one that would not open, `write`'s own reason or
 * its error), or undefined.
 */
function inStateDb(home: string, write: (db: ReturnType<typeof openDatabase>) => string | undefined): string | undefined {
  const dbFile = stateDbPath(home);
  if (!dbFile) return 'no state database';
  let db: ReturnType<typeof openDatabase>;
  try {
    db = openDatabase(dbFile, { fileMustExist: true, timeout: 2000 });
  } catch (error) {
    return `state database not opened: ${(error as Error).message}`;
  }
  try {
    return write(db);
  } catch (error) {
    return `state database not written: ${(error as Error).message}`;
  } finally {
    db.close();
  }
}

/** The columns codex 0.169's rename (app-server `thread/name/set`, the TUI's /rename) sets in the thread's row. */
const RENAME_COLUMNS = ['id', 'name', 'updated_at', 'updated_at_ms'] as const;

/**
 * Names a thread in codex's state database as codex 0.169's own rename does: the row's `name`, and
 * its `updated_at` (seconds) and `updated_at_ms` set to now, in one transaction. Codex lists its
 * threads (the resume picker, app-server `thread/list`) with the name from this column, not from
 * session_index.jsonl. Never creates the database or a row. Returns why nothing was written: no
 * database, no row for the thread, an unexpected schema, a database that would not open or write;
 * undefined when the row was renamed.
 */
export function renameThread(home: string, id: string, name: string, now: Date = new Date()): string | undefined {
  return inStateDb(home, (db) => {
    const names = new Set(threadColumns(db).map((c) => c.name));
    const missing = RENAME_COLUMNS.filter((c) => !names.has(c));
    if (missing.length) return `unexpected threads schema (${missing.join(', ')})`;
    const update = db.prepare('UPDATE threads SET name = ?, updated_at = ?, updated_at_ms = ? WHERE id = ?');
    const ms = now.getTime();
    const changed = db.transaction(() => update.run(name, Math.floor(ms / 1000), ms, id).changes).immediate();
    return changed ? undefined : 'no row for the thread';
  });
}
