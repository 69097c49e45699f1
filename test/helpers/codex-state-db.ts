/** Tables of codex-cli 0.169.0's state database (`$CODEX_HOME/state_5.sqlite`), as codex creates them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { type FixtureHome, fixtureHome } from './fixture-homes.js';

/** `threads` (its foreign keys left out). */
export const CODEX_0169_THREADS = `CREATE TABLE threads (
    id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
    source TEXT NOT NULL, model_provider TEXT NOT NULL, cwd TEXT NOT NULL, title TEXT NOT NULL,
    sandbox_policy TEXT NOT NULL, approval_mode TEXT NOT NULL, tokens_used INTEGER NOT NULL DEFAULT 0,
    has_user_event INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0, archived_at INTEGER,
    git_sha TEXT, git_branch TEXT, git_origin_url TEXT, cli_version TEXT NOT NULL DEFAULT '',
    first_user_message TEXT NOT NULL DEFAULT '', agent_nickname TEXT, agent_role TEXT,
    memory_mode TEXT NOT NULL DEFAULT 'enabled', model TEXT, reasoning_effort TEXT, agent_path TEXT,
    created_at_ms INTEGER, updated_at_ms INTEGER, thread_source TEXT, preview TEXT NOT NULL DEFAULT '',
    recency_at INTEGER NOT NULL DEFAULT 0, recency_at_ms INTEGER NOT NULL DEFAULT 0,
    history_mode TEXT NOT NULL DEFAULT 'legacy', name TEXT, is_pinned INTEGER NOT NULL DEFAULT 0,
    thread_section_id TEXT, section_position INTEGER, section_entered_at_ms INTEGER, project_id TEXT,
    originator TEXT, daybreak_enabled BOOLEAN, creator_user_id TEXT, creator_account_id TEXT,
    attached_thread_parent_id TEXT)`;

/** `thread_spawn_edges`: a parent thread to each sub-agent thread it spawned. */
export const CODEX_0169_THREAD_SPAWN_EDGES = `CREATE TABLE thread_spawn_edges (
    parent_thread_id TEXT NOT NULL,
    child_thread_id TEXT NOT NULL PRIMARY KEY,
    status TEXT NOT NULL
)`;

/** A home of the Claude Code and codex fixtures whose codex state database has codex 0.169's tables, empty. */
export async function codexStateHome(prefix: string): Promise<FixtureHome> {
  const fx = await fixtureHome({ prefix, fixtures: ['claude', 'codex'] });
  const db = openDatabase(join(fx.dirs.codex, 'state_5.sqlite'));
  db.exec(CODEX_0169_THREADS);
  db.exec(CODEX_0169_THREAD_SPAWN_EDGES);
  db.close();
  return fx;
}

/** A rollout's first record's payload: its session_meta. */
export const rolloutMeta = (path: string): Record<string, unknown> =>
  (JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string) as { payload: Record<string, unknown> }).payload;

/**
 * Tables of codex-cli 0.171.0's thread history database (`$CODEX_HOME/thread_history_1.sqlite`, its paginated
 * threads' turns and items), as codex creates them, and its migrations table at the version it reaches (9).
 */
export const CODEX_0171_THREAD_HISTORY = `CREATE TABLE _sqlx_migrations (
    version BIGINT PRIMARY KEY, description TEXT NOT NULL, installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    success BOOLEAN NOT NULL, checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
  CREATE TABLE thread_turns (
    thread_id TEXT NOT NULL, turn_id TEXT NOT NULL, rollout_ordinal INTEGER NOT NULL, status TEXT NOT NULL,
    error_json TEXT, started_at INTEGER, completed_at INTEGER, duration_ms INTEGER, first_user_item_id TEXT,
    final_agent_item_id TEXT, rollout_byte_offset INTEGER, rollout_end_ordinal INTEGER, rollout_end_byte_offset INTEGER,
    root_turn_id TEXT, PRIMARY KEY (thread_id, turn_id));
  CREATE UNIQUE INDEX idx_thread_turns_page ON thread_turns(thread_id, rollout_ordinal);
  CREATE TABLE thread_items (
    thread_id TEXT NOT NULL, turn_id TEXT NOT NULL, item_id TEXT NOT NULL, rollout_ordinal INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL, item_json TEXT NOT NULL, item_type TEXT NOT NULL DEFAULT '',
    updated_at_ordinal INTEGER NOT NULL DEFAULT 0, started_at_ms INTEGER, completed_at_ms INTEGER,
    PRIMARY KEY (thread_id, turn_id, item_id));
  CREATE UNIQUE INDEX idx_thread_items_page ON thread_items(thread_id, rollout_ordinal);
  CREATE TABLE thread_history_projection_state (
    thread_id TEXT PRIMARY KEY, next_rollout_byte_offset INTEGER NOT NULL, next_rollout_ordinal INTEGER NOT NULL);
  INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
    VALUES (1, 'thread history', 1, x'00', 0), (9, 'realtime observation indexes', 1, x'00', 0);`;
