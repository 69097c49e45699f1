/**
 * Versioned migrations of the SQLite store (also the schema of the local index, which is the same
 * store holding sessions under their own sources). `PRAGMA user_version` records the applied version.
 */
import type { Database } from 'better-sqlite3';
import { type AdvisorUsage, addUsage, type Entry, emptyUsage, type SessionInfo, type Usage } from '../../model/types.js';
import { advisorAsUsage, usageByModelOf, usagePerModel } from '../../model/usage.js';
import { ADVISORS_INDEX } from './advisors.js';
import { asBytes, textOfColumn } from './column-text.js';
import { COPIED_INDEX, COPY_INDEX, ENTRY_COPIES, settleStoredCopies, settleStoredEntryCopies } from './copies.js';
import { CJK_RANGES, entrySearchText, ftsColumns } from './text.js';

/** Rebuilds the full-text table as contentless (the text is not stored a second time), from the entries. */
function contentlessFts(db: Database): void {
  db.exec(`DROP TABLE entries_fts;
    CREATE VIRTUAL TABLE entries_fts USING fts5(text, thinking, tool_input, tool_output,
      content = '', contentless_delete = 1, tokenize = 'unicode61');`);
  const ins = db.prepare('INSERT INTO entries_fts (rowid, text, thinking, tool_input, tool_output) VALUES (?, ?, ?, ?, ?)');
  for (const row of db.prepare('SELECT rowid, json FROM entries').iterate() as Iterable<{ rowid: number; json: string }>) {
    const t = ftsColumns(entrySearchText(JSON.parse(row.json) as Entry));
    if (t.text || t.thinking || t.toolInput || t.toolOutput) ins.run(row.rowid, t.text, t.thinking, t.toolInput, t.toolOutput);
  }
}

/** The full text of the entries holding CJK characters indexed again, a character a token (cjkSeparated). */
function cjkFts(db: Database): void {
  const cjk = new RegExp(`[${CJK_RANGES}]`, 'u');
  const del = db.prepare('DELETE FROM entries_fts WHERE rowid = ?');
  const ins = db.prepare('INSERT INTO entries_fts (rowid, text, thinking, tool_input, tool_output) VALUES (?, ?, ?, ?, ?)');
  const json = db.prepare('SELECT json FROM entries WHERE rowid = ?').pluck();
  const rows = db.prepare('SELECT rowid, json FROM entries').iterate() as Iterable<{ rowid: number; json: string }>;
  // JSON keeps the characters as they are (JSON.stringify escapes none of them); rowids only, so an
  // index all in Japanese is not held in memory
  const again: number[] = [];
  for (const row of rows) if (cjk.test(row.json)) again.push(row.rowid);
  for (const rowid of again) {
    const t = ftsColumns(entrySearchText(JSON.parse(json.get(rowid) as string) as Entry));
    if (!(t.text || t.thinking || t.toolInput || t.toolOutput)) continue;
    del.run(rowid);
    ins.run(rowid, t.text, t.thinking, t.toolInput, t.toolOutput);
  }
}

/** usageByModel into the info of every stored session whose counted usage spans several models. */
export function usageByModelOfStored(db: Database): void {
  const rows = db
    .prepare(
      `SELECT session_id, ${asBytes("coalesce(model, '')")} model, sum(input) input, sum(output) output, sum(cache_read) cache_read,
         sum(cache_write) cache_write, sum(reasoning) reasoning
       FROM entries WHERE counted = 1 AND input IS NOT NULL
       GROUP BY session_id, coalesce(model, '')`,
    )
    .all() as {
    session_id: string;
    model: Uint8Array;
    input: number;
    output: number;
    cache_read: number;
    cache_write: number;
    reasoning: number;
  }[];
  const bySession = new Map<string, Record<string, Usage>>();
  for (const r of rows) {
    const m = bySession.get(r.session_id) ?? {};
    m[textOfColumn(r.model) ?? ''] = {
      input: r.input,
      output: r.output,
      cacheRead: r.cache_read,
      cacheWrite: r.cache_write,
      reasoning: r.reasoning,
    };
    bySession.set(r.session_id, m);
  }
  const get = db.prepare('SELECT info_json FROM sessions WHERE id = ?');
  const set = db.prepare('UPDATE sessions SET info_json = ? WHERE id = ?');
  for (const [id, byModel] of bySession) {
    // sessionInfoOf's rule: only a session whose usage spans several models has it
    const fields = usageByModelOf({ byModel });
    const row = fields.usageByModel ? (get.get(id) as { info_json: string } | undefined) : undefined;
    if (row) set.run(JSON.stringify({ ...(JSON.parse(row.info_json) as SessionInfo), ...fields }), id);
  }
}

/** The token counts a filing per model is told by (what 485cd8c moved from one model to another). */
const FILED = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** Whether two listings' usage per model file the same tokens under the same models. */
function sameFiling(a: Record<string, Usage> | undefined, b: Record<string, Usage> | undefined): boolean {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b ?? {}).sort();
  if (ka.join('\u0000') !== kb.join('\u0000')) return false;
  return ka.every((k) => FILED.every((f) => a?.[k]?.[f] === b?.[k]?.[f]));
}

/**
 * The listing's usage per model of every stored session, filed again as summarizeUsage files it since
 * 485cd8c (a split response under the model of its last record with usage or a cost that names one,
 * else its first record's, as `stats --by model` counts it), from the session's counted records (the
 * session's own responses, copies counted elsewhere too), which were named so already. No entry's
 * JSON is read: the counted records' own usage from their covering index (entries_counted), the
 * copies (entries_copied) and the advisor requests (entries_advisors) from theirs. A listing that
 * files the same tokens under the same models is left as it is (records indexed before schema 7/8
 * have no 1-hour cache writes or web searches in their columns, which their listing has from the
 * entries).
 */
export function refileUsageByModel(db: Database): void {
  type Row = {
    session_id: string;
    model: Uint8Array | null;
    input: number;
    output: number;
    cache_read: number | null;
    cache_write: number | null;
    cache_write_1h: number | null;
    reasoning: number | null;
    web_searches: number | null;
  };
  const bySession = new Map<string, Record<string, Usage>>();
  // summarizeUsage's sum: a response under its own model, each advisor request under its own
  const add = (sessionId: string, model: string | undefined, u: Usage) => {
    const byModel = bySession.get(sessionId) ?? {};
    byModel[model ?? ''] = addUsage(byModel[model ?? ''] ?? emptyUsage(), u);
    bySession.set(sessionId, byModel);
  };
  const usageOf = (r: Row): Usage => ({
    input: r.input,
    output: r.output ?? 0,
    cacheRead: r.cache_read ?? 0,
    cacheWrite: r.cache_write ?? 0,
    ...(r.cache_write_1h ? { cacheWrite1h: r.cache_write_1h } : {}),
    reasoning: r.reasoning ?? 0,
    ...(r.web_searches ? { webSearches: r.web_searches } : {}),
  });
  const columns = `session_id, ${asBytes('model')} model, input, output, cache_read, cache_write, cache_write_1h, reasoning,
    web_searches`;
  const own = db.prepare(`SELECT ${columns} FROM entries WHERE counted = 1 AND input IS NOT NULL`);
  for (const r of own.iterate() as Iterable<Row>) add(r.session_id, textOfColumn(r.model) ?? undefined, usageOf(r));
  const copies = db.prepare(`SELECT ${columns}, advisors FROM entries WHERE counted = 2 AND input IS NOT NULL`);
  for (const r of copies.iterate() as Iterable<Row & { advisors: string | null }>) {
    const u = { ...usageOf(r), ...(r.advisors ? { advisors: JSON.parse(r.advisors) as AdvisorUsage[] } : {}) };
    for (const part of usagePerModel(textOfColumn(r.model) ?? undefined, u)) add(r.session_id, part.model, part.usage);
  }
  const advised = db.prepare(
    'SELECT session_id, advisors FROM entries WHERE advisors IS NOT NULL AND counted = 1 AND input IS NOT NULL',
  );
  for (const r of advised.iterate() as Iterable<{ session_id: string; advisors: string }>)
    for (const a of JSON.parse(r.advisors) as AdvisorUsage[]) add(r.session_id, a.model, advisorAsUsage(a, emptyUsage()));
  // a listing with a usage per model that no longer has counted usage of several models
  for (const id of db
    .prepare(`SELECT id FROM sessions WHERE info_json LIKE '%"usageByModel"%'`)
    .pluck()
    .iterate() as Iterable<string>)
    if (!bySession.has(id)) bySession.set(id, {});
  const get = db.prepare('SELECT info_json FROM sessions WHERE id = ?').pluck();
  const set = db.prepare('UPDATE sessions SET info_json = ? WHERE id = ?');
  for (const [id, byModel] of bySession) {
    const json = get.get(id) as string | undefined;
    if (json === undefined) continue;
    const info = JSON.parse(json) as SessionInfo;
    // sessionInfoOf's rule: only a session whose usage spans several models has it
    const { usageByModel } = usageByModelOf({ byModel });
    if (sameFiling(info.usageByModel, usageByModel)) continue;
    const { usageByModel: _old, ...rest } = info;
    set.run(JSON.stringify(usageByModel ? { ...rest, usageByModel } : rest), id);
  }
}

const MIGRATIONS: readonly (string | ((db: Database) => void))[] = [
  // 1: sessions, entries, full text
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    project TEXT,
    title TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    parent_id TEXT,
    message_count INTEGER NOT NULL DEFAULT 0,
    first_user_text TEXT,
    leaf_id TEXT,
    next_seq INTEGER NOT NULL DEFAULT 0,
    info_json TEXT NOT NULL,
    raw_json TEXT,
    warnings_json TEXT
  );
  CREATE INDEX sessions_updated ON sessions(updated_at);
  CREATE INDEX sessions_source ON sessions(source, updated_at);
  CREATE INDEX sessions_project ON sessions(project, updated_at);
  CREATE INDEX sessions_parent ON sessions(parent_id);

  CREATE TABLE entries (
    rowid INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    parent_id TEXT,
    kind TEXT NOT NULL,
    role TEXT,
    timestamp TEXT NOT NULL,
    model TEXT,
    response_id TEXT,
    tools TEXT,
    -- usage is set on the one record of a response that counts (split records count once)
    counted INTEGER NOT NULL DEFAULT 0,
    input INTEGER, output INTEGER, cache_read INTEGER, cache_write INTEGER, reasoning INTEGER,
    cost REAL,
    json TEXT NOT NULL,
    UNIQUE (session_id, id)
  );
  CREATE INDEX entries_seq ON entries(session_id, seq);
  CREATE INDEX entries_response ON entries(session_id, response_id) WHERE response_id IS NOT NULL;
  CREATE INDEX entries_counted ON entries(counted, timestamp) WHERE counted = 1;

  CREATE VIRTUAL TABLE entries_fts USING fts5(text, thinking, tool_input, tool_output, tokenize = 'unicode61');
  `,
  // 2: what the index has read of each source unit (file or database row)
  `
  CREATE TABLE units (
    key TEXT PRIMARY KEY,
    format TEXT NOT NULL,
    session_id TEXT,
    size INTEGER,
    mtime_ms REAL,
    version TEXT,
    offset INTEGER,
    head_hash TEXT,
    indexed_at TEXT NOT NULL,
    warnings_json TEXT
  );
  CREATE INDEX units_session ON units(session_id);
  CREATE INDEX units_format ON units(format);
  CREATE TABLE index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  `,
  // 3: contentless full text (snippets are cut from the entry); per unit, a hash of the bytes just
  // before its offset (to tell an append from a rewrite) and the driver's state to resume from there
  (db) => {
    contentlessFts(db);
    db.exec('ALTER TABLE units ADD COLUMN tail_hash TEXT; ALTER TABLE units ADD COLUMN state TEXT;');
  },
  // 4: the counted records' usage in their index (covering `stats` and usage totals): summing them
  // no longer reads each entry's row among the JSON (1 GB index: 300 ms of page reads per `stats`)
  `
  DROP INDEX entries_counted;
  CREATE INDEX entries_counted ON entries(counted, timestamp, session_id, model, cost, input, output, cache_read,
    cache_write, reasoning) WHERE counted = 1;
  `,
  // 5: the listing's usage per model (SessionInfo.usageByModel) for sessions stored before it, from
  // the counted records' index: a viewer list prices a session of several models without a re-sync
  usageByModelOfStored,
  // 6: a fork's copies counted once, by entry id: superseded by 10, which settles every copy anew
  () => {},
  // 7: of the cache writes, those to a 1-hour cache (Anthropic bills them higher), in the counted
  // records' index too. Records indexed before keep none until their file changes.
  (db) => countedColumns(db, [['cache_write_1h', 'INTEGER']], 'cache_write, cache_write_1h, reasoning'),
  // 8: what else a request's price depends on (web searches, fast mode, where it ran), in the counted
  // records' index too. Records indexed before keep none until their file changes.
  (db) =>
    countedColumns(
      db,
      [
        ['web_searches', 'INTEGER'],
        ['speed', 'TEXT'],
        ['inference_geo', 'TEXT'],
      ],
      'cache_write, cache_write_1h, reasoning, web_searches, speed, inference_geo',
    ),
  // 9: copies across agents by entry id: superseded by 10
  () => {},
  // 10: a record copied into other sessions, of its agent or another (a fork, a conversion), counts
  // once: copies share the response id and time, or without a response id the entry id and time
  // (see CopyKey); the index COPY_PROBE uses (the copies already stored are settled by 12)
  (db) => db.exec(`DROP INDEX IF EXISTS entries_copies; ${COPY_INDEX}`),
  // 11: a response's requests to an advisor model (Usage.advisors), billed under that model, as JSON on
  // the counted record, with an index of the records that have any (`stats` reads only those).
  // Records indexed before keep none until their file is read whole again (`sync --full`; the index
  // keeps no raw record to find them by).
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('entries')").pluck().all() as string[];
    if (!columns.includes('advisors')) db.exec('ALTER TABLE entries ADD COLUMN advisors TEXT');
    db.exec(ADVISORS_INDEX);
  },
  // 12: copies in sessions threadbase wrote (convert --to threadbase, a server's pushed sessions)
  // count once too, as PostgreSQL and the TypeScript rule count them: the copies 10 left alone settled
  (db) => settleStoredCopies(db),
  // 13: a session's metadata entries by session, for what a listing reads of them (metadataEntries:
  // a server's Acontext sessions connected to a space)
  "CREATE INDEX IF NOT EXISTS entries_metadata ON entries(session_id, seq) WHERE kind = 'metadata'",
  // 14: the copies of a session's responses that do not count, by session: `stats --source/--project`
  // counts a response copied into a selected session once among those selected (preferredAmong)
  COPIED_INDEX,
  // 15: an entry repeated in another session (a fork's copy, a Copilot CLI sub-agent run's events,
  // same entry id and time) is one search hit: the copies not preferred listed apart (ENTRY_COPIES)
  (db) => {
    db.exec(ENTRY_COPIES);
    settleStoredEntryCopies(db);
  },
  // 16: a record or entry without a time (an empty one: Codex CLI keeps a rollout line's) is a copy
  // of none (see CopyKey); those 12 and 15 took for copies of another session's count and show again
  `UPDATE entries SET counted = 1 WHERE counted = 2 AND timestamp = '';
   DELETE FROM entry_copies WHERE rowid IN (SELECT rowid FROM entries WHERE timestamp = '');`,
  // 17: a listing's usage per model filed as `stats --by model` counts it (485cd8c), for the sessions
  // stored before, which kept the old filing until their source changed
  refileUsageByModel,
  // 18: whether threadbase wrote a session into its agent's store (SessionInfo.writtenBy): of copies in
  // sessions that started at the same time, the original's counts (preferredCopyOrder). The formats
  // that record it were given a new readerVersion, so their sessions are read again with it.
  (db) => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('sessions')").pluck().all() as string[];
    if (!columns.includes('written_by')) db.exec('ALTER TABLE sessions ADD COLUMN written_by TEXT');
    // a store's own sessions keep their info: those written with it are settled again at once
    const marked = db
      .prepare(`UPDATE sessions SET written_by = 'threadbase' WHERE info_json LIKE '%"writtenBy":"threadbase"%'`)
      .run().changes;
    if (marked) {
      settleStoredCopies(db);
      settleStoredEntryCopies(db);
    }
  },
  // 19: Chinese, Japanese and Korean text a character a token, so a word found inside a run written
  // without spaces ('日本語' in '日本語のテスト'): the entries holding such characters indexed again
  cjkFts,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * New columns of the counted records (each added unless a killed migration already did) and their
 * covering index again, over the usage columns from `cache_write` on as `tail` lists them.
 */
function countedColumns(db: Database, add: readonly (readonly [name: string, type: string])[], tail: string): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('entries')").pluck().all() as string[];
  for (const [name, type] of add) if (!columns.includes(name)) db.exec(`ALTER TABLE entries ADD COLUMN ${name} ${type}`);
  db.exec(`DROP INDEX entries_counted;
    CREATE INDEX entries_counted ON entries(counted, timestamp, session_id, model, cost, input, output, cache_read,
      ${tail}) WHERE counted = 1;`);
}

export function migrate(db: Database): void {
  if ((db.pragma('user_version', { simple: true }) as number) >= MIGRATIONS.length) return;
  // IMMEDIATE: two processes opening a new index at once must not both migrate; a deferred
  // transaction that read first fails at once with "database is locked" when it comes to write.
  db.transaction(() => {
    // read again under the write lock: the other process may have migrated meanwhile
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let v = current; v < MIGRATIONS.length; v++) {
      const step = MIGRATIONS[v] as string | ((db: Database) => void);
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}
