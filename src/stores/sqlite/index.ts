/**
 * The SQLite store: every driver capability over one better-sqlite3 file in WAL mode. Entries are
 * rows keyed by (session, entry id) holding the model entry as JSON (raw included); full text of
 * messages, thinking, tool inputs and tool outputs is in an FTS5 table ranked by bm25.
 *
 * The local index (`threadbase sync`) is this same store: there sessions keep their own source
 * (claude, pi, ...) and are replaced whole or appended to per source file.
 */
import type Database from 'better-sqlite3';
import { DriverBase } from '../../formats/shared/base.js';
import { openDatabase } from '../../formats/shared/sqlite.js';
import type {
  CostBucket,
  CostBucketKey,
  DriverCapabilities,
  ForkOptions,
  SearchHit,
  SearchOptions,
  SessionCost,
  SessionFilter,
  UsageTotals,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, SessionEntryError, ThreadbaseError } from '../../model/errors.js';
import type { ResponseStats } from '../../model/prices.js';
import { type RawRead, rawReadBy } from '../../model/resume.js';
import { prefixOf } from '../../model/text.js';
import { currentLeaf, EMPTY_LEAF, messageText } from '../../model/tree.js';
import type { Entry, Message, MetadataEntry, ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { type CountedUsage, countedUsage, responseRecordOf } from '../../model/usage.js';
import type { PriceTable } from '../index-sync/prices.js';
import { costBucketOf, countedWhere, type StatsOptions, type StatsRow, stats } from '../index-sync/stats.js';
import { sessionInfoOf } from '../memory/index.js';
import { callNameIn, callsStoredBefore, searchLimitOf, toolNamesOf } from '../search-text.js';
import {
  checkWrittenEntryIds,
  entriesNotStored,
  forkedSession,
  metadataBySession,
  STORE_CAPABILITIES,
  THREADBASE_SOURCE,
  writtenIdOf,
  writtenSession,
} from '../shared.js';
import { ADVISOR_ROWS, advisorCount } from './advisors.js';
import { asBytes, textOfColumn } from './column-text.js';
import {
  COPY_PROBE,
  type CopyKey,
  copyProbeArgs,
  ENTRY_COPY_PROBE,
  PREFERRED_ENTRY_COPIES,
  preferredAmong,
  searchedOnce,
  settleCopies,
  settleEntryCopies,
} from './copies.js';
import { failedForUnwritableFolder, openUnwritableFolderCopy } from './read-only.js';
import { migrate, SCHEMA_VERSION } from './schema.js';
import { entrySearchText, ftsColumns, ftsQuery, queryTerms, snippetOf } from './text.js';
import { Where } from './where.js';

export { entrySearchText, ftsQuery } from './text.js';

interface SessionRow {
  id: string;
  source: string;
  info_json: string;
  raw_json: string | null;
  warnings_json: string | null;
  leaf_id: string | null;
  next_seq: number;
}

/** The tools column: the names of the tools a message calls or carries results of (toolNamesOf), space-delimited. */
function toolNames(m: Message, callNames: Map<string, string>): string | null {
  const names = toolNamesOf(m, callNames);
  return names.size ? ` ${[...names].join(' ')} ` : null;
}

export interface PutOptions {
  /** keep the session's own source (the index) instead of marking it `threadbase` */
  keepSource?: boolean;
  /**
   * leave out the agents' original records (the index reads them from the agent's own files when
   * needed), except those the session's agent rebuilds its resume context from (rawReadBy)
   */
  dropRaw?: boolean;
}

/** Page size of a database this store creates (SQLite's default is 4096). */
const PAGE_SIZE = 16384;

/** How long opening a store tries again while other processes create the same database. */
const OPEN_BUSY_MS = 5000;

/** Blocks this thread (the constructor that waits is synchronous, as better-sqlite3 is). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The stats options of costSummary and costBuckets: the sessions `filter` or `sessionIds` select, a
 * copied response once among them.
 */
function selectedStatsOptions(
  by: StatsOptions['by'],
  filter: SessionFilter,
  sessionIds: readonly string[] | undefined,
): StatsOptions {
  return {
    by,
    ...(filter.since ? { since: filter.since } : {}),
    ...(filter.until ? { until: filter.until } : {}),
    ...(filter.source ? { source: filter.source } : {}),
    ...(filter.project ? { project: filter.project } : {}),
    ...(sessionIds ? { sessionIds } : {}),
  };
}

export class SqliteStore extends DriverBase {
  readonly name: string = 'sqlite';
  readonly capabilities: DriverCapabilities = STORE_CAPABILITIES;
  readonly db: Database.Database;
  readonly path: string;
  private readonly statements = new Map<string, Database.Statement>();
  /** A search without filters ranks at most this many matches, the most recent (see search). */
  rankWindow = 20_000;
  /** statsOf's answers, for the index as it was when `version` (indexVersion) was read */
  private readonly statsMemo: { version: string; rows: Map<string, StatsRow[]> } = { version: '', rows: new Map() };
  /** a number for each price table statsOf was asked with (its answers depend on it) */
  private readonly priceIds = new WeakMap<PriceTable, number>();
  private priceTables = 0;

  /** stmt as a function of its own (for helpers that take a Prepare) */
  private readonly prep = (sql: string): Database.Statement => this.stmt(sql);

  /** A prepared statement, prepared once per store (preparing costs more than many small runs). */
  stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  constructor(path: string, opts: { readonly?: boolean } = {}) {
    super();
    this.path = path;
    let db: Database.Database | undefined;
    let version: number;
    /** read from a copy in memory: the file's folder cannot be written (openUnwritableFolderCopy) */
    let copy = false;
    try {
      db = openDatabase(path, opts.readonly ? { readonly: true, fileMustExist: true } : {});
      // Before anything else: a reader (another process) may hold the file while this one migrates.
      db.pragma('busy_timeout = 5000');
      version = db.pragma('user_version', { simple: true }) as number;
    } catch (err) {
      if (!failedForUnwritableFolder(path, err)) throw err;
      db?.close();
      db = openUnwritableFolderCopy(path, err);
      version = db.pragma('user_version', { simple: true }) as number;
      copy = true;
    }
    this.db = db;
    if (copy && version < SCHEMA_VERSION) {
      this.db.close();
      throw new ThreadbaseError(
        'older_schema',
        `written by an older threadbase (schema ${version}; this one reads ${SCHEMA_VERSION}) in a folder that cannot be written, where it cannot be brought up to date: open it once where it can be written`,
        { file: path },
      );
    }
    if (version > SCHEMA_VERSION) {
      // a newer threadbase's tables this one would not keep up to date (search's copies, say)
      this.db.close();
      throw new ThreadbaseError(
        'newer_schema',
        `written by a newer threadbase (schema ${version}; this one knows up to ${SCHEMA_VERSION}): upgrade threadbase, or remove the file if it is threadbase's index (sync builds it again)`,
        { file: path },
      );
    }
    if (!opts.readonly && !copy) {
      // Processes creating one new database at once: one whose shared lock another needs gives way
      // with SQLITE_BUSY at once, without the busy handler (SQLite's deadlock rule). Every step is
      // idempotent (migrate reads the version again under its write lock), so it is tried again.
      const since = Date.now();
      for (;;) {
        try {
          // 16 KB pages for a new database (an existing one keeps its own): fewer overflow pages for
          // entries' JSON and less per-page work when a sync writes hundreds of MB (see IndexSync.sync).
          this.db.pragma(`page_size = ${PAGE_SIZE}`);
          this.db.pragma('journal_mode = WAL');
          this.db.pragma('synchronous = NORMAL');
          migrate(this.db);
          break;
        } catch (err) {
          if (!isBusyError(err) || Date.now() - since > OPEN_BUSY_MS) throw err;
          sleepSync(10 + Math.random() * 40);
        }
      }
    }
  }

  /** Runs a write; a lock another writer held past busy_timeout becomes an error naming the database. */
  private writing<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (isBusyError(err))
        throw new ThreadbaseError(
          'busy',
          'database is locked by another writer (waited 5 s)',
          { file: this.path },
          { cause: err },
        );
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  // ---- reading

  /**
   * The tool names of the calls, stored in the session, of the results in `entries` that do not name
   * their tool (Claude Code's) and whose call is not among them: the tools column (`search --tool`)
   * names a result's tool, and an append (a sync of a session at work) often brings a result whose
   * call an earlier one stored.
   */
  private storedCallNames(sessionId: string, entries: readonly Entry[]): Map<string, string> {
    const wanted = callsStoredBefore(entries);
    const names = new Map<string, string>();
    if (!wanted.size) return names;
    // the call's entry holds its id as a JSON string; the newest first (an id an agent used again)
    const holding = this.stmt(
      'SELECT json FROM entries WHERE session_id = ? AND tools IS NOT NULL AND instr(json, ?) > 0 ORDER BY seq DESC',
    );
    for (const id of wanted) {
      for (const row of holding.iterate(sessionId, JSON.stringify(id)) as Iterable<{ json: string }>) {
        const name = callNameIn(JSON.parse(row.json) as Entry, id);
        if (name !== undefined) {
          names.set(id, name);
          break;
        }
      }
    }
    return names;
  }

  private sessionRow(id: string): SessionRow | undefined {
    return this.stmt('SELECT id, source, info_json, raw_json, warnings_json, leaf_id, next_seq FROM sessions WHERE id = ?').get(
      id,
    ) as SessionRow | undefined;
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const where = sessionFilterSql(filter, '');
    const sql = `SELECT info_json FROM sessions WHERE ${where.sql}
      ORDER BY updated_at DESC, id ${filter.limit ? `LIMIT ${Math.floor(filter.limit)}` : ''}`;
    return (this.stmt(sql).all(...where.args) as { info_json: string }[]).map((r) => JSON.parse(r.info_json));
  }

  async getSession(id: string): Promise<Session | undefined> {
    const row = this.sessionRow(id);
    if (!row) return undefined;
    const entries = (this.stmt('SELECT json FROM entries WHERE session_id = ? ORDER BY seq').all(id) as { json: string }[]).map(
      (r) => JSON.parse(r.json) as Entry,
    );
    const info = JSON.parse(row.info_json) as SessionInfo;
    const s: Session = { ...info, entries, leafId: row.leaf_id };
    if (row.raw_json !== null) s.raw = JSON.parse(row.raw_json);
    if (row.warnings_json !== null) s.warnings = JSON.parse(row.warnings_json) as ParseWarning[];
    return s;
  }

  override async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    const row = this.stmt('SELECT json FROM entries WHERE session_id = ? AND id = ?').get(sessionId, entryId) as
      | { json: string }
      | undefined;
    return row ? (JSON.parse(row.json) as Entry) : undefined;
  }

  override async getAncestry(sessionId: string, entryId: string): Promise<Entry[]> {
    if (!this.sessionRow(sessionId)) throw new NotFoundError('sqlite session', sessionId);
    const get = this.stmt('SELECT json, parent_id FROM entries WHERE session_id = ? AND id = ?');
    const path: Entry[] = [];
    const seen = new Set<string>();
    let id: string | null = entryId;
    while (id !== null && !seen.has(id)) {
      seen.add(id);
      const row = get.get(sessionId, id) as { json: string; parent_id: string | null } | undefined;
      if (!row) break;
      path.push(JSON.parse(row.json) as Entry);
      id = row.parent_id;
    }
    if (!path.length) throw new NotFoundError('entry', entryId, { id: entryId });
    return path.reverse();
  }

  /**
   * What the database holds has changed since this was last read when this changes: another
   * connection's commit (`data_version`) or one of this one's writes (`total_changes()`).
   */
  private indexVersion(): string {
    const dataVersion = this.stmt('PRAGMA data_version').pluck().get() as number;
    return `${dataVersion}:${this.stmt('SELECT total_changes()').pluck().get() as number}`;
  }

  /**
   * stats() of the index, its answer kept while the database is unchanged: a viewer asks the same
   * sums again and again (its list sorted by cost prices every session: 0.3 s on a 200 MB index; its
   * stats page five scans of every counted record, 250 ms of CPU a request), and they change only
   * when the index does. Rows are copied out (callers may change what they get).
   */
  private statsOf(prices: PriceTable, opts: StatsOptions): StatsRow[] {
    const version = this.indexVersion();
    if (this.statsMemo.version !== version) {
      this.statsMemo.version = version;
      this.statsMemo.rows.clear();
    }
    let priceId = this.priceIds.get(prices);
    if (priceId === undefined) {
      priceId = ++this.priceTables;
      this.priceIds.set(prices, priceId);
    }
    const key = `${priceId}\u0000${JSON.stringify(opts)}`;
    let rows = this.statsMemo.rows.get(key);
    if (!rows) {
      rows = stats(this, prices, opts);
      // a few answers (a viewer's filters): the oldest forgotten first
      if (this.statsMemo.rows.size >= 32) this.statsMemo.rows.delete(this.statsMemo.rows.keys().next().value as string);
      this.statsMemo.rows.set(key, rows);
    }
    return rows.map((r) => ({
      ...r,
      ...(r.unpricedModels ? { unpricedModels: [...r.unpricedModels] } : {}),
      ...(r.costByModel ? { costByModel: { ...r.costByModel } } : {}),
    }));
  }

  /** Each session's own records (a copy's too) priced request by request, as the index's `stats` prices them. */
  async sessionCosts(prices: PriceTable, sessionIds?: readonly string[]): Promise<SessionCost[]> {
    const rows = this.statsOf(prices, {
      by: 'session',
      ownRecords: true,
      costByModel: true,
      ...(sessionIds ? { sessionIds } : {}),
    });
    return rows.map((r) => ({
      source: r.source ?? '',
      id: r.key,
      cost: r.cost,
      unpricedModels: r.unpricedModels ?? [],
      costByModel: r.costByModel ?? {},
    }));
  }

  async metadataEntries(type: string): Promise<Map<string, MetadataEntry[]>> {
    // by the partial index of metadata entries; the type's text found first, then read exactly
    const rows = this.stmt(
      `SELECT session_id sessionId, json FROM entries WHERE kind = 'metadata' AND instr(json, ?) > 0 ORDER BY session_id, seq`,
    ).all(JSON.stringify(type)) as { sessionId: string; json: string }[];
    return metadataBySession(
      rows.map((r) => [r.sessionId, r.json]),
      type,
    );
  }

  /**
   * The tokens, recorded cost and responses of the sessions `filter` selects, a response copied into
   * several of them once (preferredAmong), as PostgreSQL's usage() and `stats` count them.
   */
  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    return this.countedTotals(preferredAmong(sessionFilterSql(filter, 's.')));
  }

  /**
   * What `stats` counts over the sessions `filter` selects (source, project) or `sessionIds` (a
   * server project's), their responses in since/until by the counted record's time: a copied
   * response once among them (preferredAmong, as PostgreSQL and ResponseCounter count), recorded
   * costs kept, the rest priced with `prices` as `stats` prices the index.
   */
  async costSummary(filter: SessionFilter, prices: PriceTable, sessionIds?: readonly string[]): Promise<ResponseStats> {
    const opts = selectedStatsOptions('source', filter, sessionIds);
    const rows = stats(this, prices, opts);
    const usage = this.countedTotals(countedWhere(opts));
    const total = rows.reduce((n, r) => n + r.cost, 0);
    return {
      recordedCost: usage.cost,
      cost: total - usage.cost,
      unpricedModels: [...new Set(rows.flatMap((r) => r.unpricedModels ?? []))].sort(),
      usage,
    };
  }

  /** costSummary by day, model, project or source (SessionDriver.costBuckets), as `stats --by` groups the index. */
  async costBuckets(
    by: CostBucketKey,
    filter: SessionFilter,
    prices: PriceTable,
    sessionIds?: readonly string[],
    timeZone?: string,
  ): Promise<CostBucket[]> {
    const opts = selectedStatsOptions(by, filter, sessionIds);
    return this.statsOf(prices, by === 'day' && timeZone ? { ...opts, timeZone } : opts).map(costBucketOf);
  }

  /** The tokens, recorded cost and number of the counted records `where` selects (entries `e`, sessions `s`). */
  private countedTotals(where: Where): UsageTotals {
    const r = this.stmt(
      `SELECT coalesce(sum(e.input),0) input, coalesce(sum(e.output),0) output, coalesce(sum(e.cache_read),0) cacheRead,
          coalesce(sum(e.cache_write),0) cacheWrite, coalesce(sum(e.cache_write_1h),0) cacheWrite1h,
          coalesce(sum(e.reasoning),0) reasoning, coalesce(sum(e.web_searches),0) webSearches, coalesce(sum(e.cost),0) cost,
          count(*) messages
         FROM entries e JOIN sessions s ON s.id = e.session_id WHERE ${where.sql}`,
    ).get(...where.args) as Required<Pick<UsageTotals, 'cacheWrite1h' | 'webSearches'>> & UsageTotals;
    // the tokens of advisor requests too, as summarizeUsage counts them
    const sum = (name: Parameters<typeof advisorCount>[0]) => `coalesce(sum(${advisorCount(name)}),0)`;
    const a = this.stmt(
      `SELECT ${sum('input')} input, ${sum('output')} output, ${sum('cacheRead')} cacheRead, ${sum('cacheWrite')} cacheWrite,
          ${sum('cacheWrite1h')} cacheWrite1h
         FROM ${ADVISOR_ROWS}
        WHERE ${where.sql} AND e.advisors IS NOT NULL`,
    ).get(...where.args) as Pick<UsageTotals, 'input' | 'output' | 'cacheRead' | 'cacheWrite'> & { cacheWrite1h: number };
    const { cacheWrite1h, webSearches, ...counts } = r;
    // the 1-hour cache writes and web searches bill apart; present only when there are some, as addUsage sums them
    return {
      ...counts,
      input: r.input + a.input,
      output: r.output + a.output,
      cacheRead: r.cacheRead + a.cacheRead,
      cacheWrite: r.cacheWrite + a.cacheWrite,
      ...(cacheWrite1h + a.cacheWrite1h > 0 ? { cacheWrite1h: cacheWrite1h + a.cacheWrite1h } : {}),
      ...(webSearches > 0 ? { webSearches } : {}),
    };
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    const q = ftsQuery(query);
    if (!q) return [];
    const where = new Where()
      .add('entries_fts MATCH ?', q)
      .given(opts.since, 'e.timestamp >= ?')
      .given(opts.until, 'e.timestamp <= ?')
      .given(opts.role, 'e.role = ?');
    // a tool's name in any case (`--tool bash` finds Claude Code's Bash); SQLite's lower() folds ASCII
    // only, so a name as written is found too
    if (opts.tool)
      where.add('(instr(e.tools, ?) > 0 OR instr(lower(e.tools), ?) > 0)', ` ${opts.tool} `, ` ${opts.tool.toLowerCase()} `);
    // the sessions searched; a copy of an entry (same id and time) is found once among them
    const among = new Where()
      .given(opts.source, 's.source = ?')
      .given(opts.project, 's.project = ?')
      .given(opts.parentId, 's.parent_id = ?');
    const limit = searchLimitOf(opts.limit);
    // bm25 scores every row that matches: for a word in a large share of the index (a common word),
    // only the most recent `rankWindow` matches are ranked, which bounds the time of any query.
    if (where.terms.length === 1 && !among.terms.length) {
      const edge = this.stmt(
        `SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ${Math.floor(this.rankWindow)}`,
      ).get(q) as { rowid: number } | undefined;
      if (edge) where.add('entries_fts.rowid > ?', edge.rowid);
    }
    for (const [i, t] of among.terms.entries()) where.add(t, among.args[i]);
    const once = searchedOnce(among);
    where.add(once.sql, ...once.args);
    // Rank first (bm25 needs no stored text), joining only when a filter needs it; then details and
    // snippets for the returned rows only.
    const joined = where.terms.some((w) => /\b[es]\./.test(w));
    const top = this.stmt(
      joined
        ? `SELECT entries_fts.rowid rowid, bm25(entries_fts) rank FROM entries_fts
             JOIN entries e ON e.rowid = entries_fts.rowid JOIN sessions s ON s.id = e.session_id
             WHERE ${where.sql} ORDER BY rank LIMIT ${limit}`
        : `SELECT rowid, bm25(entries_fts) rank FROM entries_fts WHERE ${where.sql} ORDER BY rank LIMIT ${limit}`,
    ).all(...where.args) as { rowid: number; rank: number }[];
    const detail = this.stmt(
      `SELECT e.session_id sessionId, e.id entryId, s.source source, ${asBytes('s.project')} project, e.role role, e.timestamp timestamp, e.json json
       FROM entries e JOIN sessions s ON s.id = e.session_id WHERE e.rowid = ?`,
    );
    const terms = queryTerms(query);
    const hits: SearchHit[] = [];
    for (const t of top) {
      const d = detail.get(t.rowid) as
        | {
            sessionId: string;
            entryId: string;
            source: string;
            project: Uint8Array | null;
            role: string | null;
            timestamp: string;
            json: string;
          }
        | undefined;
      if (!d) continue;
      const hit: SearchHit = {
        sessionId: d.sessionId,
        entryId: d.entryId,
        source: d.source,
        snippet: snippetOf(entrySearchText(JSON.parse(d.json) as Entry), terms),
        // bm25 is lower-is-better and negative; the score is higher-is-better
        score: -t.rank,
        timestamp: d.timestamp,
      };
      if (d.project !== null) hit.project = textOfColumn(d.project);
      if (d.role !== null) hit.role = d.role;
      hits.push(hit);
    }
    return hits;
  }

  // ---- writing

  private insertEntries(sessionId: string, entries: readonly PreparedEntry[], firstSeq: number): void {
    const ins = this.stmt(
      `INSERT INTO entries (session_id, id, seq, parent_id, kind, role, timestamp, model, response_id, tools,
         input, output, cache_read, cache_write, cache_write_1h, reasoning, web_searches, speed, inference_geo, advisors,
         cost, json, counted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const fts = this.stmt('INSERT INTO entries_fts (rowid, text, thinking, tool_input, tool_output) VALUES (?, ?, ?, ?, ?)');
    let seq = firstSeq;
    for (const e of entries) {
      const info = ins.run(
        sessionId,
        e.id,
        seq++,
        e.parentId,
        e.kind,
        e.role,
        e.timestamp,
        e.model,
        e.responseId,
        e.tools,
        e.input,
        e.output,
        e.cacheRead,
        e.cacheWrite,
        e.cacheWrite1h,
        e.reasoning,
        e.webSearches,
        e.speed,
        e.inferenceGeo,
        e.advisors,
        e.cost,
        e.json,
        e.counted,
      );
      if (e.text || e.thinking || e.toolInput || e.toolOutput) {
        fts.run(info.lastInsertRowid, e.text, e.thinking, e.toolInput, e.toolOutput);
        // an entry repeated in another session (a fork's, a sub-agent run's) is found once (searchedOnce)
        if (this.stmt(ENTRY_COPY_PROBE).get(e.id, e.timestamp, info.lastInsertRowid))
          settleEntryCopies(this.prep, e.id, e.timestamp);
      }
      if (e.counted === 1)
        this.settleIfCopied({ id: e.id, timestamp: e.timestamp, responseId: e.responseId }, info.lastInsertRowid);
    }
  }

  /**
   * One record copied into several sessions (a fork's copy of its parent's records, a conversion into
   * another agent) is one response: of the counted copies (see CopyKey) the preferred one keeps
   * `counted = 1`, the others get `counted = 2`, out of every total (their sessions' own listing keeps
   * them). Sessions threadbase wrote (convert --to threadbase, a server's pushed sessions) too, as
   * PostgreSQL and the TypeScript rule count them.
   */
  private settleIfCopied(key: CopyKey, except?: number | bigint): void {
    // one probe of the copy-key index, and almost never a copy
    if (this.stmt(COPY_PROBE).get(...copyProbeArgs(key, except))) settleCopies(this.db, key);
  }

  /**
   * Marks which record of each response counts for usage, as countedUsage does: one record per
   * responseId (the last that carries usage or a cost, else the last), and every record without one
   * that has either; the counted record takes the response's last usage, last cost and model (as
   * countedUsage names it). Only responses touched by `added` are recomputed. (A record counted before keeps what it took then: merging again
   * with the records after it gives the same last usage and last cost.)
   */
  private recount(sessionId: string, added: readonly Entry[]): void {
    const ids = new Set<string>();
    for (const e of added) {
      const responseId = responseRecordOf(e)?.responseId;
      if (responseId) ids.add(responseId);
    }
    const rows = this.stmt(
      `SELECT rowid, id, timestamp, counted, ${asBytes('model')} model, input, output, cache_read, cache_write, cache_write_1h, reasoning,
         web_searches, speed, inference_geo, advisors, cost
       FROM entries
       WHERE session_id = ? AND response_id = ? ORDER BY seq`,
    );
    const uncount = this.stmt('UPDATE entries SET counted = 0 WHERE rowid = ?');
    const count = this.stmt(
      `UPDATE entries SET counted = 1, model = ?, input = ?, output = ?, cache_read = ?, cache_write = ?, cache_write_1h = ?,
         reasoning = ?, web_searches = ?, speed = ?, inference_geo = ?, advisors = ?, cost = ? WHERE rowid = ?`,
    );
    type Row = {
      rowid: number;
      id: string;
      timestamp: string;
      counted: number;
      model: Uint8Array | null;
      input: number | null;
      output: number | null;
      cache_read: number | null;
      cache_write: number | null;
      cache_write_1h: number | null;
      reasoning: number | null;
      web_searches: number | null;
      speed: string | null;
      inference_geo: string | null;
      advisors: string | null;
      cost: number | null;
    };
    const hasUsage = (r: Row) => r.input !== null || r.output !== null;
    for (const rid of ids) {
      const list = rows.all(sessionId, rid) as Row[];
      const withUsage = list.filter(hasUsage).pop();
      const withCost = list.filter((r) => r.cost !== null).pop();
      const pick = list.filter((r) => hasUsage(r) || r.cost !== null).pop() ?? list[list.length - 1];
      // named as countedUsage names it: by its last record with usage or a cost that names a model
      const named = list.filter((r) => (hasUsage(r) || r.cost !== null) && r.model !== null).pop();
      if (!pick) continue;
      for (const r of list)
        if (r !== pick && r.counted > 0) {
          uncount.run(r.rowid);
          // a copy elsewhere may count now
          this.settleIfCopied({ id: r.id, timestamp: r.timestamp, responseId: rid });
        }
      const u = withUsage ?? pick;
      count.run(
        textOfColumn(named ? named.model : (list[0]?.model ?? null)),
        u.input,
        u.output,
        u.cache_read,
        u.cache_write,
        u.cache_write_1h,
        u.reasoning,
        u.web_searches,
        u.speed,
        u.inference_geo,
        u.advisors,
        withCost?.cost ?? null,
        pick.rowid,
      );
      this.settleIfCopied({ id: pick.id, timestamp: pick.timestamp, responseId: rid }, pick.rowid);
    }
  }

  /** Recomputes the listing fields of a stored session from its entries. */
  private refreshInfo(
    sessionId: string,
    base: SessionInfo,
    leafId: string | null,
    nextSeq: number,
    known?: readonly Entry[],
  ): SessionInfo {
    const entries =
      known ??
      (this.stmt('SELECT json FROM entries WHERE session_id = ? ORDER BY seq').all(sessionId) as { json: string }[]).map(
        (r) => JSON.parse(r.json) as Entry,
      );
    const info = sessionInfoOf({ ...base, entries: entries as Entry[] });
    this.stmt(
      `UPDATE sessions SET source = ?, project = ?, title = ?, created_at = ?, updated_at = ?, parent_id = ?, message_count = ?,
           first_user_text = ?, leaf_id = ?, next_seq = ?, info_json = ?, written_by = ? WHERE id = ?`,
    ).run(
      info.source,
      info.project ?? null,
      info.title ?? null,
      info.createdAt,
      info.updatedAt,
      info.parentId ?? null,
      info.messageCount,
      firstUserTextOf(entries),
      leafId,
      nextSeq,
      JSON.stringify(info),
      info.writtenBy ?? null,
      sessionId,
    );
    return info;
  }

  private deleteRows(sessionId: string): void {
    // Only when there is something to delete: any statement on the FTS table makes FTS5 flush its
    // pending terms into a new segment, and a sync stores thousands of new sessions in one batch.
    if (!this.stmt('SELECT 1 FROM entries WHERE session_id = ? LIMIT 1').get(sessionId)) {
      this.stmt('DELETE FROM sessions WHERE id = ?').run(sessionId);
      return;
    }
    const counted = this.stmt(
      'SELECT id, timestamp, response_id responseId FROM entries WHERE session_id = ? AND counted = 1',
    ).all(sessionId) as CopyKey[];
    const preferred = this.preferredEntryCopies(sessionId);
    this.stmt('DELETE FROM entries_fts WHERE rowid IN (SELECT rowid FROM entries WHERE session_id = ?)').run(sessionId);
    this.stmt('DELETE FROM entries WHERE session_id = ?').run(sessionId);
    this.stmt('DELETE FROM sessions WHERE id = ?').run(sessionId);
    for (const c of counted) this.settleIfCopied(c);
    for (const p of preferred) settleEntryCopies(this.prep, p.id, p.timestamp);
  }

  /** The entries of a session that others repeat, each the copy search shows: another is shown once it leaves. */
  private preferredEntryCopies(sessionId: string): { id: string; timestamp: string }[] {
    // no copies at all (the usual index): nothing to ask per entry
    if (!this.stmt('SELECT 1 FROM entry_copies LIMIT 1').get()) return [];
    return this.stmt(PREFERRED_ENTRY_COPIES).all(sessionId) as { id: string; timestamp: string }[];
  }

  /**
   * Stores a whole session under its own id, replacing any session with that id, in one transaction.
   * The index uses this with keepSource; writeSession uses it for new `threadbase` sessions.
   */
  putSession(session: Session, opts: PutOptions = {}): SessionInfo {
    return this.writing(() => this.db.transaction(() => this.putSessionNow(session, opts)).immediate());
  }

  /** putSession without its own transaction, for callers that batch several writes in one. */
  putSessionNow(session: Session, opts: PutOptions = {}): SessionInfo {
    return this.putPreparedNow(prepareSession(session, opts));
  }

  /**
   * Stores a session prepared by prepareSession (possibly in another thread), replacing any session
   * with that id, without a transaction of its own.
   */
  putPreparedNow(p: PreparedSession): SessionInfo {
    const { info } = p;
    this.deleteRows(info.id);
    this.stmt(
      `INSERT INTO sessions (id, source, project, title, created_at, updated_at, parent_id, message_count, first_user_text,
         leaf_id, next_seq, info_json, raw_json, warnings_json, written_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      info.id,
      info.source,
      info.project ?? null,
      info.title ?? null,
      info.createdAt,
      info.updatedAt,
      info.parentId ?? null,
      info.messageCount,
      p.firstUserText,
      p.leafId,
      p.entries.length,
      JSON.stringify(info),
      p.rawJson,
      p.warningsJson,
      info.writtenBy ?? null,
    );
    this.insertEntries(info.id, p.entries, 0);
    return info;
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    checkWrittenEntryIds(session);
    // the id chosen in the write's transaction: no other process takes it in between
    return this.writing(() =>
      this.db
        .transaction(() => {
          const id = writtenIdOf(session, opts, (at) => this.sessionRow(at) !== undefined);
          return this.putSessionNow(writtenSession(session, id));
        })
        .immediate(),
    );
  }

  /**
   * Appends entries under their parents, without a transaction of its own; the leaf moves to the last
   * one. For the index: `replaceLast` drops that many of the session's last entries first (a driver
   * re-read them), and `info` gives the session's listing fields as its source now has them.
   */
  appendEntriesNow(
    sessionId: string,
    entries: readonly Entry[],
    opts: {
      warnings?: ParseWarning[];
      /** earlier warnings about this line and later ones are dropped (those lines were read again) */
      warningsFromLine?: number;
      replaceLast?: number;
      info?: SessionInfo;
      leafId?: string | null;
    } = {},
  ): void {
    const row = this.sessionRow(sessionId);
    if (!row) throw new NotFoundError('sqlite session', sessionId);
    let nextSeq = row.next_seq;
    if (opts.replaceLast) {
      const tail = this.stmt(
        'SELECT rowid, id, timestamp, response_id responseId, counted FROM entries WHERE session_id = ? ORDER BY seq DESC LIMIT ?',
      ).all(sessionId, opts.replaceLast) as (CopyKey & { rowid: number; counted: number })[];
      const replaced = new Set(entries.slice(0, opts.replaceLast).map((e) => e.id));
      if (tail.length !== opts.replaceLast || tail.some((t) => !replaced.has(t.id)))
        throw new ThreadbaseError(
          'replace_mismatch',
          `the last ${opts.replaceLast} entries of ${sessionId} are not the ones re-read`,
          {
            id: sessionId,
          },
        );
      for (const t of tail) {
        this.stmt('DELETE FROM entries_fts WHERE rowid = ?').run(t.rowid);
        this.stmt('DELETE FROM entries WHERE rowid = ?').run(t.rowid);
        if (t.counted === 1) this.settleIfCopied(t);
        // the entry's copies elsewhere: one of them may be the one search shows now
        if (this.stmt(ENTRY_COPY_PROBE).get(t.id, t.timestamp, -1)) settleEntryCopies(this.prep, t.id, t.timestamp);
      }
      nextSeq -= tail.length;
    }
    const has = this.stmt('SELECT 1 FROM entries WHERE session_id = ? AND id = ?');
    const fresh = new Set<string>();
    for (const e of entries) {
      if (fresh.has(e.id) || has.get(sessionId, e.id))
        throw new SessionEntryError('duplicate_entry', sessionId, e.id, (sid) => `entry id ${e.id} is already in session ${sid}`);
      const parent = e.parentId;
      if (parent !== null && !fresh.has(parent) && !has.get(sessionId, parent))
        throw new SessionEntryError(
          'orphan_entry',
          sessionId,
          e.id,
          (sid) => `entry ${e.id} names parent ${parent}, which is not in session ${sid}`,
        );
      fresh.add(e.id);
    }
    const kept = rawReadBy(row.source);
    this.insertEntries(
      sessionId,
      prepareEntries(
        opts.info ? entries.map((e) => withoutRaw(e, kept)) : entries,
        undefined,
        this.storedCallNames(sessionId, entries),
      ),
      nextSeq,
    );
    this.recount(sessionId, entries);
    const last = [...entries].reverse().find((e) => !e.sidechain);
    let info = JSON.parse(row.info_json) as SessionInfo;
    if (opts.info) {
      // The source's listing fields win; what only a whole read adds (e.g. a sub-agent's spawning call) stays.
      const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...fields } = opts.info as Session;
      const meta = info.meta || fields.meta ? { ...(info.meta ?? {}), ...(fields.meta ?? {}) } : undefined;
      info = { ...info, ...fields, source: info.source };
      if (meta) info.meta = meta;
    }
    if (opts.warnings?.length || opts.warningsFromLine !== undefined) {
      const from = opts.warningsFromLine;
      const prev = (row.warnings_json ? (JSON.parse(row.warnings_json) as ParseWarning[]) : []).filter(
        (w) => from === undefined || w.line === undefined || w.line < from,
      );
      const all = [...prev, ...(opts.warnings ?? [])];
      this.stmt('UPDATE sessions SET warnings_json = ? WHERE id = ?').run(all.length ? JSON.stringify(all) : null, sessionId);
    }
    const latest = entries
      .map((e) => e.timestamp)
      .filter(Boolean)
      .sort()
      .pop();
    if (latest && latest > info.updatedAt) info.updatedAt = latest;
    const leaf = opts.leafId !== undefined ? opts.leafId : last ? last.id : row.leaf_id;
    // EMPTY_LEAF names no entry: the session resumes with nothing (Claude Code after a rewind to empty)
    if (leaf !== null && leaf !== EMPTY_LEAF && leaf !== row.leaf_id && !has.get(sessionId, leaf))
      throw new ThreadbaseError('orphan_entry', `leaf ${leaf} is not in session ${sessionId}`, { id: leaf });
    this.refreshInfo(sessionId, info, leaf, nextSeq + entries.length);
  }

  // Write transactions take the write lock first (BEGIN IMMEDIATE): a deferred one that read first
  // fails at once with SQLITE_BUSY when another writer got in between, busy_timeout or not.
  // An entry stored alike is left out (a re-send), as every store does; appendEntriesNow, the index's,
  // refuses any repeated id: there the file's later record counts, and the file is read whole.
  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    checkUniqueIds(entries, sessionId);
    this.writing(() =>
      this.db
        .transaction(() => {
          if (!this.sessionRow(sessionId)) throw new NotFoundError('sqlite session', sessionId);
          const get = this.stmt('SELECT json FROM entries WHERE session_id = ? AND id = ?');
          const stored = new Map<string, Entry>();
          for (const e of entries) {
            const row = get.get(sessionId, e.id) as { json: string } | undefined;
            if (row) stored.set(e.id, JSON.parse(row.json) as Entry);
          }
          const fresh = entriesNotStored(sessionId, entries, stored);
          if (entries.length && !fresh.length) return; // all re-sent: nothing changes
          this.appendEntriesNow(sessionId, fresh);
        })
        .immediate(),
    );
  }

  /** The session swapped whole in one transaction (putPreparedNow deletes its rows first): a failed write rolls back. */
  async replaceSession(sessionId: string, session: Session): Promise<SessionInfo> {
    checkWrittenEntryIds(session);
    return this.writing(() =>
      this.db
        .transaction(() => {
          if (!this.sessionRow(sessionId)) throw new NotFoundError('sqlite session', sessionId);
          return this.putSessionNow(writtenSession(session, sessionId));
        })
        .immediate(),
    );
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    return this.putSession(forkedSession(await this.requireSession(sessionId), opts));
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    const row = this.sessionRow(sessionId);
    if (!row) throw new NotFoundError('sqlite session', sessionId);
    const info = JSON.parse(row.info_json) as SessionInfo;
    info.title = title;
    this.stmt('UPDATE sessions SET title = ?, info_json = ? WHERE id = ?').run(title, JSON.stringify(info), sessionId);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!this.sessionRow(sessionId)) throw new NotFoundError('sqlite session', sessionId);
    this.writing(() => this.db.transaction(() => this.deleteRows(sessionId)).immediate());
  }

  /** deleteSession without a transaction or a not-found error, for the index. */
  removeSessionNow(sessionId: string): void {
    this.deleteRows(sessionId);
  }
}

/** One entry as the entries and FTS tables hold it; computed without the database (a worker can do it). */
export interface PreparedEntry {
  id: string;
  parentId: string | null;
  kind: string;
  role: string | null;
  timestamp: string;
  model: string | null;
  responseId: string | null;
  tools: string | null;
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  /** of cacheWrite, the 1-hour cache writes; null when none */
  cacheWrite1h: number | null;
  reasoning: number | null;
  /** what else the request's price depends on (Usage.webSearches, speed, inferenceGeo); null when none */
  webSearches: number | null;
  speed: string | null;
  inferenceGeo: string | null;
  /** the response's advisor requests (Usage.advisors) as JSON; null when none */
  advisors: string | null;
  cost: number | null;
  json: string;
  /** 1 when this record's usage counts */
  counted: number;
  text: string;
  thinking: string;
  toolInput: string;
  toolOutput: string;
}

/** A whole session ready to store: rows only, so it can be made in one thread and stored in another. */
export interface PreparedSession {
  info: SessionInfo;
  leafId: string | null;
  rawJson: string | null;
  warningsJson: string | null;
  firstUserText: string | null;
  entries: PreparedEntry[];
}

/** The WHERE terms (and their arguments) of a SessionFilter over the sessions table, its columns prefixed by `table`. */
function sessionFilterSql(filter: SessionFilter, table: '' | 's.', where = new Where()): Where {
  where
    .given(filter.source, `${table}source = ?`)
    .given(filter.project, `${table}project = ?`)
    .given(filter.since, `${table}updated_at >= ?`)
    .given(filter.until, `${table}updated_at <= ?`)
    .given(filter.parentId, `${table}parent_id = ?`);
  if (filter.text) {
    const t = filter.text.toLowerCase();
    where.add(
      `(instr(lower(coalesce(${table}title, '')), ?) > 0 OR instr(lower(coalesce(${table}first_user_text, '')), ?) > 0)`,
      t,
      t,
    );
  }
  return where;
}

/**
 * Rows of entries. counted: the entries whose usage counts, with their response's usage (countedUsage),
 * when known (a whole session); else a record with usage and no response id counts by itself and
 * split responses are settled by recount.
 */
export function prepareEntries(
  entries: readonly Entry[],
  counted?: Map<string, CountedUsage>,
  /** call id → tool name of calls stored before `entries` (an append's results of earlier calls) */
  callNames = new Map<string, string>(),
): PreparedEntry[] {
  return entries.map((e) => {
    const m = e.kind === 'message' ? e.message : undefined;
    const r = responseRecordOf(e);
    const c = counted?.get(e.id);
    // a counted record carries its whole response's usage and cost (which may sit on other records)
    const u = c ? c.usage : r?.usage;
    const cost = c ? c.cost : r?.cost;
    const t = entrySearchText(e);
    return {
      id: e.id,
      parentId: e.parentId,
      kind: e.kind,
      role: m?.role ?? null,
      timestamp: e.timestamp ?? '',
      model: (c ? c.model : (m?.model ?? r?.model)) ?? null,
      responseId: r?.responseId ?? null,
      tools: m ? toolNames(m, callNames) : null,
      input: u?.input ?? null,
      output: u?.output ?? null,
      cacheRead: u?.cacheRead ?? null,
      cacheWrite: u?.cacheWrite ?? null,
      cacheWrite1h: u?.cacheWrite1h ?? null,
      reasoning: u?.reasoning ?? null,
      webSearches: u?.webSearches ?? null,
      speed: u?.speed ?? null,
      inferenceGeo: u?.inferenceGeo ?? null,
      advisors: u?.advisors?.length ? JSON.stringify(u.advisors) : null,
      cost: cost ?? null,
      json: JSON.stringify(e),
      counted: counted ? Number(c !== undefined) : r && !r.responseId && (u !== undefined || cost !== undefined) ? 1 : 0,
      ...ftsColumns(t),
    };
  });
}

/** What putSessionNow stores for a session, computed without the database. */
export function prepareSession(session: Session, opts: PutOptions = {}): PreparedSession {
  // The index takes damaged agent files as they are: of a repeated entry id the last record is kept,
  // where it stands, as the tree's lookups by id find only that one (model/tree.ts indexEntries).
  const entries = opts.keepSource ? lastOfEachId(session.entries) : session.entries;
  if (!opts.keepSource) checkUniqueIds(entries, session.id);
  const { entries: _e, warnings, raw, leafId, ...infoIn } = session;
  const kept = opts.dropRaw ? rawReadBy(session.source) : {};
  const base: SessionInfo = { ...infoIn, source: opts.keepSource ? session.source : THREADBASE_SOURCE };
  const info = sessionInfoOf({ ...base, entries });
  // The index lists a session as its agent counts it (OpenCode counts a turn's tool results as part of it).
  if (opts.keepSource && typeof infoIn.messageCount === 'number') info.messageCount = infoIn.messageCount;
  return {
    info,
    leafId: leafId ?? currentLeaf(session)?.id ?? null,
    rawJson: raw === undefined || (opts.dropRaw && !kept.session) ? null : JSON.stringify(raw),
    warningsJson: warnings?.length ? JSON.stringify(warnings) : null,
    firstUserText: firstUserTextOf(entries),
    entries: prepareEntries(opts.dropRaw ? entries.map((e) => withoutRaw(e, kept)) : entries, countedUsage(entries)),
  };
}

/** The first_user_text column: the start of the first user message off the side chains, lower-cased for the listing's text filter. */
function firstUserTextOf(entries: readonly Entry[]): string | null {
  const firstUser = entries.find((e) => e.kind === 'message' && e.message.role === 'user' && !e.sidechain);
  return firstUser?.kind === 'message' ? prefixOf(messageText(firstUser.message), 2000).toLowerCase() : null;
}

function withoutRaw(e: Entry, kept: RawRead): Entry {
  if (e.raw === undefined || kept.entryKinds?.includes(e.kind)) return e;
  const { raw: _r, ...rest } = e;
  return rest as Entry;
}

function lastOfEachId(entries: Entry[]): Entry[] {
  const lastAt = new Map<string, number>();
  entries.forEach((e, i) => {
    lastAt.set(e.id, i);
  });
  if (lastAt.size === entries.length) return entries;
  return entries.filter((e, i) => lastAt.get(e.id) === i);
}

function checkUniqueIds(entries: readonly Entry[], sessionId: string): void {
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id))
      throw new SessionEntryError('duplicate_entry', sessionId, e.id, (sid) => `entry id ${e.id} is already in session ${sid}`);
    ids.add(e.id);
  }
}

/** Whether an error is another writer holding the database (SQLite's SQLITE_BUSY, raw or as the store words it). */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code === 'busy');
}

export function openSqliteStore(path: string, opts: { readonly?: boolean } = {}): SqliteStore {
  return new SqliteStore(path, opts);
}

export default openSqliteStore;
