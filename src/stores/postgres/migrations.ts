/**
 * Versioned schema of the PostgreSQL store. Each migration runs once, in order, inside one
 * transaction, and is recorded in tb_migrations; an advisory lock keeps two servers starting at
 * once from applying the same step twice.
 */
import type { PoolClient } from 'pg';
import { ThreadbaseError } from '../../model/errors.js';
import type { Entry } from '../../model/types.js';
import { CJK_RANGES } from '../search-text.js';
import { jsonbReadable } from './json-text.js';
import { searchColumns } from './search.js';

export interface Migration {
  version: number;
  name: string;
  /** the step's SQL, run first */
  sql?: string;
  /** what SQL alone cannot do (reading the stored entries), run after `sql` in the same transaction */
  run?: (client: PoolClient) => Promise<void>;
}

/** How many entries migration 11 reads and writes at a time. */
const SEARCH_BATCH = 200;

/**
 * Migration 11: every entry's tsvector and tools taken again from its body (./search.ts): thinking,
 * tool input and output searched, the tokens every store matches (no stemming, no stop words), a
 * result's tool named by its call. A batch of entries at a time, in each session's order.
 */
async function searchColumnsFromBodies(client: PoolClient): Promise<void> {
  await client.query(`ALTER TABLE tb_entries DROP COLUMN tsv;
ALTER TABLE tb_entries ADD COLUMN tsv tsvector NOT NULL DEFAULT ''::tsvector;`);
  let after: [string, string] | undefined;
  let session: string | undefined;
  let callNames = new Map<string, string>();
  for (;;) {
    const rows = (
      await client.query<{ session_id: string; seq: string; body: string }>(
        `SELECT session_id, seq, body FROM tb_entries ${after ? 'WHERE (session_id, seq) > ($2, $3::bigint)' : ''}
          ORDER BY session_id, seq LIMIT $1`,
        after ? [SEARCH_BATCH, ...after] : [SEARCH_BATCH],
      )
    ).rows;
    if (!rows.length) break;
    const changed: { session: string[]; seq: string[]; tsv: string[]; tools: string[] } = {
      session: [],
      seq: [],
      tsv: [],
      tools: [],
    };
    for (const r of rows) {
      if (r.session_id !== session) {
        session = r.session_id;
        callNames = new Map();
      }
      const { tsv, tools } = searchColumns(JSON.parse(r.body) as Entry, callNames);
      if (!tsv && !tools.length) continue;
      changed.session.push(r.session_id);
      changed.seq.push(r.seq);
      changed.tsv.push(tsv);
      changed.tools.push(JSON.stringify(tools));
    }
    if (changed.session.length)
      await client.query(
        `UPDATE tb_entries e SET tsv = v.tsv::tsvector, tools = ARRAY(SELECT json_array_elements_text(v.tools::json))
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS v(session_id, seq, tsv, tools)
          WHERE e.session_id = v.session_id AND e.seq = v.seq`,
        [changed.session, changed.seq, changed.tsv, changed.tools],
      );
    const last = rows[rows.length - 1] as { session_id: string; seq: string };
    after = [last.session_id, last.seq];
  }
  await client.query(`ALTER TABLE tb_entries DROP COLUMN search_text;
CREATE INDEX tb_entries_tsv ON tb_entries USING gin(tsv);`);
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, entries, projects, tokens',
    sql: `
CREATE TABLE tb_projects (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE tb_tokens (
  hash text PRIMARY KEY,
  project_id text NOT NULL REFERENCES tb_projects(id) ON DELETE CASCADE,
  label text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tb_tokens_project ON tb_tokens(project_id);

-- tenant: the server project that owns the session ('' for a store used without a server).
-- cwd: the working directory the agent ran in (SessionInfo.project).
CREATE TABLE tb_sessions (
  id text PRIMARY KEY,
  tenant text NOT NULL DEFAULT '',
  source text NOT NULL,
  cwd text,
  title text,
  first_user_text text,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  parent_id text,
  parent_entry_id text,
  parent_tool_call_id text,
  leaf_id text,
  message_count integer NOT NULL DEFAULT 0,
  next_seq bigint NOT NULL DEFAULT 0,
  info jsonb NOT NULL DEFAULT '{}'::jsonb,
  raw text
);
CREATE INDEX tb_sessions_tenant_updated ON tb_sessions(tenant, updated_at DESC);
CREATE INDEX tb_sessions_tenant_cwd ON tb_sessions(tenant, cwd);
CREATE INDEX tb_sessions_tenant_source ON tb_sessions(tenant, source);
CREATE INDEX tb_sessions_parent ON tb_sessions(parent_id);

-- body: the whole entry as JSON text (text, not jsonb, so raw records keep their key order).
CREATE TABLE tb_entries (
  session_id text NOT NULL REFERENCES tb_sessions(id) ON DELETE CASCADE,
  id text NOT NULL,
  seq bigint NOT NULL,
  parent_id text,
  kind text NOT NULL,
  role text,
  ts text NOT NULL,
  sidechain boolean NOT NULL DEFAULT false,
  response_id text,
  model text,
  usage_input bigint,
  usage_output bigint,
  usage_cache_read bigint,
  usage_cache_write bigint,
  usage_reasoning bigint,
  cost double precision,
  tools text[] NOT NULL DEFAULT '{}',
  search_text text NOT NULL DEFAULT '',
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', search_text)) STORED,
  body text NOT NULL,
  PRIMARY KEY (session_id, id),
  UNIQUE (session_id, seq)
);
CREATE INDEX tb_entries_tsv ON tb_entries USING gin(tsv);
CREATE INDEX tb_entries_tools ON tb_entries USING gin(tools);
CREATE INDEX tb_entries_assistant ON tb_entries(session_id, seq) WHERE role = 'assistant';
`,
  },
  {
    version: 2,
    name: 'tokens: public id and prefix, last use, revocation',
    // Keys made before this step keep working: they get a random id and no prefix (the key is not known).
    sql: `
ALTER TABLE tb_tokens ADD COLUMN id text, ADD COLUMN prefix text,
  ADD COLUMN last_used_at timestamptz, ADD COLUMN revoked_at timestamptz;
UPDATE tb_tokens SET id = 'tok_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 12) WHERE id IS NULL;
ALTER TABLE tb_tokens ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX tb_tokens_id ON tb_tokens(id);
CREATE INDEX tb_tokens_prefix ON tb_tokens(prefix);
`,
  },
  {
    version: 3,
    name: 'session info as JSON text',
    // jsonb refuses U+0000 and unpaired surrogates (an agent that cut a string through an emoji);
    // JSON text holds both escaped, so a session's meta comes back as it was written.
    sql: `
ALTER TABLE tb_sessions ALTER COLUMN info DROP DEFAULT;
ALTER TABLE tb_sessions ALTER COLUMN info TYPE text USING info::text;
ALTER TABLE tb_sessions ALTER COLUMN info SET DEFAULT '{}';
`,
  },
  {
    version: 4,
    name: 'usage read from compactions too',
    // a compaction whose summary's request the agent recorded counts as a response (CompactionEntry.usage)
    sql: `
CREATE INDEX tb_entries_usage ON tb_entries(session_id, seq) WHERE role = 'assistant' OR kind = 'compaction';
DROP INDEX tb_entries_assistant;
`,
  },
  {
    version: 5,
    name: '1-hour cache writes and web searches in the listing usage',
    // Usage.cacheWrite1h and webSearches, taken for the entries stored before from their JSON (the
    // text, not parsed: a body may hold escapes json functions refuse; the first usage is the entry's own)
    sql: `
ALTER TABLE tb_entries ADD COLUMN usage_cache_write_1h bigint, ADD COLUMN usage_web_searches bigint;
UPDATE tb_entries SET usage_cache_write_1h = substring(body from '"cacheWrite1h":([0-9]+)')::bigint
 WHERE (role = 'assistant' OR kind = 'compaction') AND body LIKE '%"cacheWrite1h":%';
UPDATE tb_entries SET usage_web_searches = substring(body from '"webSearches":([0-9]+)')::bigint
 WHERE (role = 'assistant' OR kind = 'compaction') AND body LIKE '%"webSearches":%';
`,
  },
  {
    version: 6,
    name: 'metadata entries by session',
    // what a listing reads of sessions' histories (metadataEntries: Acontext sessions connected to a space)
    sql: `
CREATE INDEX tb_entries_metadata ON tb_entries(session_id, seq) WHERE kind = 'metadata';
`,
  },
  {
    version: 7,
    name: 'entries by time and id',
    // an entry's copies in other sessions (a fork's, a sub-agent run's: same id and time), which search shows once
    sql: `
CREATE INDEX tb_entries_entry_key ON tb_entries(ts, id);
`,
  },
  {
    version: 8,
    name: 'sessions threadbase wrote into an agent',
    // SessionInfo.writtenBy: of copies in sessions that started at the same time, the original's counts
    sql: `
ALTER TABLE tb_sessions ADD COLUMN written_by text;
`,
  },
  {
    version: 9,
    name: 'CJK text a character a lexeme',
    // the parser takes a run of Chinese, Japanese or Korean for one word, which no shorter query finds:
    // each such character set apart by U+0001 (cjkSeparated), which the parser skips (tsv follows)
    sql: `
UPDATE tb_entries SET search_text = regexp_replace(search_text, '([${CJK_RANGES}])', chr(1) || '\\1' || chr(1), 'g')
 WHERE search_text ~ '[${CJK_RANGES}]';
`,
  },
  {
    version: 10,
    name: 'codex sessions threadbase wrote, pushed before migration 8',
    // Of the marks by which an agent's reader tells a session threadbase wrote (SessionInfo.writtenBy),
    // a server keeps only codex's (session_meta's originator, in meta): a push sends no session raw
    // record (pi's header, gemini's metadata) nor entry raw (Claude Code's, qwen's first record) and
    // cline's mark is not in its meta. So only codex sessions pushed before 8 are settled here; the
    // others are marked by the server when a push sends them again (PUT, markWrittenBy).
    sql: `
UPDATE tb_sessions SET written_by = 'threadbase'
 WHERE written_by IS NULL AND strpos(info, '"originator":"threadbase"') > 0
   AND (${jsonbReadable('info')})::jsonb #>> '{meta,originator}' = 'threadbase'
   AND (source = 'codex' OR (${jsonbReadable('info')})::jsonb #>> '{meta,importedFrom,source}' = 'codex');
`,
  },
  {
    version: 11,
    name: 'search: every part, the same words as every store',
    // search_text (the messages' text, through 'english': stemmed, stop words dropped, `quokka.txt` one
    // word) is replaced by a tsvector threadbase builds of the tokens every store matches, thinking and
    // tool input and output included; tools names results too (src/stores/postgres/search.ts)
    run: searchColumnsFromBodies,
  },
];

const LOCK_KEY = 7_311_042; // any constant: serialises migrations across processes

export async function migrate(client: PoolClient): Promise<number[]> {
  const applied: number[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS tb_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM tb_migrations')).rows.map((r) => r.version),
    );
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    // a newer threadbase's tables this one would not keep up to date (search's copies, say)
    if (newest > known)
      throw new ThreadbaseError(
        'newer_schema',
        `the PostgreSQL store was migrated by a newer threadbase (migration ${newest}; this one knows up to ${known}): upgrade threadbase`,
      );
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      if (m.sql) await client.query(m.sql);
      if (m.run) await m.run(client);
      await client.query('INSERT INTO tb_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return applied;
}
