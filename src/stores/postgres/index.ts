/**
 * The PostgreSQL store: threadbase sessions in tb_sessions/tb_entries, the same driver interface
 * as every other store. Every query is parameterised. A store is scoped to one tenant (a server
 * project); `forTenant` gives another tenant's view over the same pool, and nothing one tenant
 * asks for ever returns another tenant's rows.
 *
 * Appends are idempotent by entry id (ON CONFLICT DO NOTHING) and ordered by a per-session
 * sequence taken under the session row's lock, so concurrent writers neither lose, duplicate nor
 * reorder entries.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DriverBase } from '../../formats/shared/base.js';
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
import { prefixOf, truncate } from '../../model/text.js';
import { currentLeaf, messageText } from '../../model/tree.js';
import {
  addUsage,
  type Entry,
  emptyUsage,
  type MetadataEntry,
  type Session,
  type SessionInfo,
  type SourceName,
  type Usage,
} from '../../model/types.js';
import { emptyUsageTotals, responseRecordOf, summarizeUsage, usageByModelOf, usagePerModel } from '../../model/usage.js';
import {
  longPromptThresholds,
  type PriceTable,
  priceUnrecorded,
  priceUnrecordedByModel,
  type ResponseStats,
  type ResponseWindow,
  type UnrecordedUsageGroup,
} from '../index-sync/prices.js';
import { timeSlotOf, zonedKeyOfSlot } from '../index-sync/stats.js';
import { entrySearchText, queryTerms, searchLimitOf, snippetOf } from '../search-text.js';
import {
  checkWrittenEntryIds,
  entriesNotStored,
  forkedSession,
  metadataBySession,
  STORE_CAPABILITIES,
  THREADBASE_SOURCE,
  writtenMeta,
} from '../shared.js';
import { preferredCopyOrder } from '../sqlite/copies.js';
import { columnText } from './column-text.js';
import { jsonbReadable } from './json-text.js';
import { migrate } from './migrations.js';
import { searchColumns, searchQuery, storedCallNames } from './search.js';

export interface PostgresStoreOptions {
  /** A PostgreSQL schema to keep the tables in (created when missing); default the connection's search_path. */
  schema?: string;
  /** The tenant (server project) this view of the store belongs to; default '' (no server). */
  tenant?: string;
  /** Pool size (default 10). */
  max?: number;
}

interface Shared {
  pool: pg.Pool;
  ready: Promise<void>;
  closed: boolean;
}

interface SessionRow {
  id: string;
  tenant: string;
  source: string;
  cwd: string | null;
  title: string | null;
  first_user_text: string | null;
  created_at: string;
  updated_at: string;
  parent_id: string | null;
  parent_entry_id: string | null;
  parent_tool_call_id: string | null;
  leaf_id: string | null;
  message_count: number;
  /** SessionInfo.writtenBy: 'threadbase' for a session threadbase wrote into an agent's store */
  written_by: string | null;
  /** JSON: meta, directories, and title or project where their column could not hold them exactly */
  info: string;
  raw: string | null;
}

/**
 * Of copies of one response in several sessions, the one that counts, as the local index prefers
 * (src/stores/sqlite/copies.ts PREFERRED): the session created first, then an original over a
 * session threadbase wrote (written_by), then a recorded cost over none over a cost of 0 for tokens
 * (a converted copy), then a session that is no fork.
 */
/**
 * The body's JSON text without its \u0000 escapes (a NUL the agent wrote, kept escaped: PostgreSQL's
 * json functions refuse any), so the usage can be read out of it; an escaped backslash before "u0000"
 * is left alone. Only bodies that hold one are rewritten.
 */
const WITHOUT_NUL_ESCAPES = String.raw`CASE WHEN strpos(body, '\u0000') > 0
  THEN regexp_replace(body, '(?<!\\)((?:\\\\)*)\\u0000', '\1', 'g') ELSE body END`;

/** What costGroups gathers of some responses: recorded costs, unrecorded usage groups and the tokens of them all. */
interface CostGroups {
  recordedCost: number;
  /** recordedCost by the model of the response's counted record ('' for none) */
  recordedByModel: Record<string, number>;
  unrecorded: UnrecordedUsageGroup[];
  usage: UsageTotals;
}

const emptyCostGroups = (): CostGroups => ({
  recordedCost: 0,
  recordedByModel: {},
  unrecorded: [],
  usage: emptyUsageTotals(),
});

/** How costGroups groups responses: each session's own records, all together, or by a costBuckets key. */
type CostGrouping = 'session' | 'all' | CostBucketKey | 'hour' | 'quarter';

/**
 * costGroups' key of a response row (resp's columns, session_id its session's): a session's source
 * and id as a JSON array (PostgreSQL text holds no NUL to join them with); the counted record's day
 * or model ('unknown' for none), as the local index's stats SQL keys them; a session's source; its
 * project as projectOfKey reads it.
 */
const GROUP_KEY: Record<CostGrouping, string> = {
  session: '(SELECT json_build_array(s.source, s.id)::text FROM tb_sessions s WHERE s.id = session_id)',
  all: "'[]'",
  day: 'substr(ts, 1, 10)',
  // the UTC hour or quarter hour a zone's days are whole numbers of (timeSlotOf), as the local index's stats SQL keys them
  hour: 'substr(ts, 1, 13)',
  quarter: `substr(ts, 1, 14) || CASE WHEN substr(ts, 15, 2) ~ '^[0-9][0-9]$'
              THEN lpad((substr(ts, 15, 2)::int / 15 * 15)::text, 2, '0') ELSE '' END`,
  model: "coalesce(model, 'unknown')",
  source: '(SELECT s.source FROM tb_sessions s WHERE s.id = session_id)',
  // the cwd column, and the info JSON text when that holds the exact project (json functions refuse
  // the NUL escapes it may hold, so it is read in JS)
  project: `(SELECT json_build_array(s.cwd, CASE WHEN strpos(s.info, '"project"') > 0 THEN s.info END)::text
               FROM tb_sessions s WHERE s.id = session_id)`,
};

/** A session's project from its GROUP_KEY.project ('' for none), the exact one info holds first. */
function projectOfKey(key: string): string {
  const [cwd, info] = JSON.parse(key) as [string | null, string | null];
  const exact = info === null ? undefined : (JSON.parse(info) as { project?: unknown }).project;
  return typeof exact === 'string' ? exact : (cwd ?? '');
}

/** Which copy of a response counts, the rule the local index applies (preferredCopyOrder), on costGroups' resp columns. */
const COPY_PREFERRED = preferredCopyOrder({ cost: 'resp.cost', input: 'resp.usage_input', output: 'resp.usage_output' });

const SAFE_SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Opens (and migrates) a PostgreSQL store; `url` is a postgres:// connection string. */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const u = new URL(url);
  const schema = opts.schema ?? u.searchParams.get('schema') ?? undefined;
  u.searchParams.delete('schema');
  const store = new PostgresStore(u.toString(), { ...opts, schema });
  try {
    await store.ready();
  } catch (err) {
    // no pool left open behind a store the caller never gets
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

export class PostgresStore extends DriverBase {
  readonly name: string = 'postgres';
  readonly capabilities: DriverCapabilities = STORE_CAPABILITIES;
  readonly tenant: string;
  private readonly shared: Shared;

  constructor(connection: string | Shared, opts: PostgresStoreOptions = {}) {
    super();
    this.tenant = opts.tenant ?? '';
    if (typeof connection !== 'string') {
      this.shared = connection;
      return;
    }
    const schema = opts.schema;
    if (schema !== undefined && !SAFE_SCHEMA.test(schema))
      throw new ThreadbaseError('bad_schema', `not a plain PostgreSQL schema name: ${schema}`);
    const pool = new pg.Pool({
      connectionString: connection,
      max: opts.max ?? 10,
      // The schema name is checked above; identifiers cannot be bound as parameters.
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('error', () => {
      /* an idle client lost its connection; the pool replaces it */
    });
    const ready = (async () => {
      const client = await pool.connect();
      try {
        if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        await migrate(client);
      } finally {
        client.release();
      }
    })();
    ready.catch(() => undefined);
    this.shared = { pool, ready, closed: false };
  }

  /** The same database seen as another tenant. */
  forTenant(tenant: string): PostgresStore {
    return new PostgresStore(this.shared, { tenant });
  }

  /** Resolves once migrations are applied. */
  ready(): Promise<void> {
    return this.shared.ready;
  }

  get pool(): pg.Pool {
    return this.shared.pool;
  }

  async close(): Promise<void> {
    if (this.shared.closed) return;
    this.shared.closed = true;
    await this.shared.pool.end();
  }

  private async q<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    await this.shared.ready;
    return this.shared.pool.query<R>(text, values);
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.shared.ready;
    const c = await this.shared.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (error) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      c.release();
    }
  }

  /** The WHERE terms (this tenant's sessions of `filter`) over tb_sessions, and their values. */
  private sessionWhere(filter: SessionFilter): { where: string[]; values: unknown[] } {
    const where = ['tenant = $1'];
    const values: unknown[] = [this.tenant];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replaceAll('?', `$${values.length}`));
    };
    if (filter.source) add(sourceIs(''), filter.source);
    if (filter.project) add('cwd = ?', filter.project);
    if (filter.since) add('updated_at >= ?', filter.since);
    if (filter.until) add('updated_at <= ?', filter.until);
    if (filter.parentId) add('parent_id = ?', filter.parentId);
    if (filter.text) {
      values.push(filter.text.toLowerCase());
      const n = values.length;
      where.push(`(strpos(lower(coalesce(title, '')), $${n}) > 0 OR strpos(lower(coalesce(first_user_text, '')), $${n}) > 0)`);
    }
    return { where, values };
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const { where, values } = this.sessionWhere(filter);
    let sql = `SELECT * FROM tb_sessions WHERE ${where.join(' AND ')} ORDER BY updated_at DESC, id`;
    if (filter.limit && filter.limit > 0) {
      values.push(filter.limit);
      sql += ` LIMIT $${values.length}`;
    }
    const rows = (await this.q<SessionRow>(sql, values)).rows;
    const usage = await this.usageBySession(rows.map((r) => r.id));
    return rows.map((r) => {
      const info = infoFromRow(r);
      const u = usage.get(r.id);
      if (u) {
        info.usage = u.usage;
        info.cost = u.cost;
        if (u.models.length) info.models = u.models;
        Object.assign(info, usageByModelOf(u));
      } else {
        info.usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
        info.cost = 0;
      }
      return info;
    });
  }

  /**
   * Token totals per session, computed in SQL the way summarizeUsage does: records of one response
   * (same response_id) count once, with the last record that carried usage and the last that carried a cost.
   */
  private async usageBySession(ids: string[]): Promise<Map<string, ReturnType<typeof summarizeUsage>>> {
    const out = new Map<string, ReturnType<typeof summarizeUsage>>();
    if (!ids.length) return out;
    // per session and model: a session's usage is the sum over its models
    const rows = (
      await this.q<{
        session_id: string;
        model: string | null;
        input: string;
        output: string;
        cache_read: string;
        cache_write: string;
        cache_write_1h: string;
        web_searches: string;
        reasoning: string;
        cost: number;
        responses: string;
        priced: boolean;
        advisors: string[] | null;
      }>(
        // Per response (records sharing response_id; a record without one is its own): the usage of
        // its last record that has usage, the cost of its last record that has a cost, each on its
        // own; a split response counts even with neither, a record of its own only with one of them.
        // Its model: of its last record with usage or a cost that names one (n), else of its first
        // record (f), as countedUsage and costBuckets name it, so the listing's usageByModel agrees with stats.
        `WITH a AS (SELECT session_id, coalesce(response_id, id) AS rid, response_id IS NOT NULL AS split, seq, model,
                           usage_input, usage_output, usage_cache_read, usage_cache_write, usage_cache_write_1h,
                           usage_web_searches, usage_reasoning, cost,
                           CASE WHEN body LIKE '%"advisors":[%' THEN body END AS advisors_body
                      FROM tb_entries WHERE session_id = ANY($1) AND (role = 'assistant' OR kind = 'compaction')),
              r AS (SELECT DISTINCT session_id, rid FROM a WHERE split OR usage_input IS NOT NULL OR cost IS NOT NULL),
              f AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, model FROM a ORDER BY session_id, rid, seq),
              n AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, model FROM a
                     WHERE (usage_input IS NOT NULL OR cost IS NOT NULL) AND model IS NOT NULL ORDER BY session_id, rid, seq DESC),
              u AS (SELECT DISTINCT ON (session_id, rid) * FROM a WHERE usage_input IS NOT NULL ORDER BY session_id, rid, seq DESC),
              c AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, cost FROM a WHERE cost IS NOT NULL
                     ORDER BY session_id, rid, seq DESC)
         SELECT r.session_id, coalesce(n.model, f.model) AS model, sum(coalesce(u.usage_input,0)) AS input, sum(coalesce(u.usage_output,0)) AS output,
                sum(coalesce(u.usage_cache_read,0)) AS cache_read, sum(coalesce(u.usage_cache_write,0)) AS cache_write,
                sum(coalesce(u.usage_cache_write_1h,0)) AS cache_write_1h, sum(coalesce(u.usage_web_searches,0)) AS web_searches,
                sum(coalesce(u.usage_reasoning,0)) AS reasoning, coalesce(sum(c.cost),0)::float8 AS cost, count(*) AS responses,
                bool_or(u.usage_input IS NOT NULL) AS priced,
                array_agg(u.advisors_body) FILTER (WHERE u.advisors_body IS NOT NULL) AS advisors
           FROM r JOIN f ON f.session_id = r.session_id AND f.rid = r.rid
                  LEFT JOIN n ON n.session_id = r.session_id AND n.rid = r.rid
                  LEFT JOIN u ON u.session_id = r.session_id AND u.rid = r.rid
                  LEFT JOIN c ON c.session_id = r.session_id AND c.rid = r.rid
          GROUP BY r.session_id, coalesce(n.model, f.model)`,
        [ids],
      )
    ).rows;
    const models = (
      await this.q<{ session_id: string; models: string[] }>(
        `SELECT session_id, array_agg(DISTINCT model) AS models FROM tb_entries
          WHERE session_id = ANY($1) AND (role = 'assistant' OR kind = 'compaction') AND model IS NOT NULL GROUP BY session_id`,
        [ids],
      )
    ).rows;
    const modelMap = new Map(models.map((m) => [m.session_id, m.models]));
    const summary = (id: string) => {
      let u = out.get(id);
      if (!u) {
        u = { usage: emptyUsage(), cost: 0, responses: 0, models: modelMap.get(id) ?? [], byModel: {} };
        out.set(id, u);
      }
      return u;
    };
    for (const r of rows) {
      const u = summary(r.session_id);
      const usage = usageOfRow(r);
      u.usage = addUsage(u.usage, usage);
      u.cost += Number(r.cost);
      u.responses += Number(r.responses);
      // as summarizeUsage: only records that carried usage count for their model
      if (r.priced) u.byModel[r.model ?? ''] = addUsage(u.byModel[r.model ?? ''] ?? emptyUsage(), usage);
      // the advisor requests of these responses, under their own models
      for (const body of r.advisors ?? []) {
        const counted = responseRecordOf(JSON.parse(body) as Entry)?.usage;
        for (const part of counted ? usagePerModel(r.model ?? undefined, counted).slice(1) : []) {
          const model = part.model ?? '';
          u.usage = addUsage(u.usage, part.usage);
          u.byModel[model] = addUsage(u.byModel[model] ?? emptyUsage(), part.usage);
          if (!u.models.includes(model)) u.models.push(model);
        }
      }
    }
    for (const id of modelMap.keys()) summary(id);
    return out;
  }

  private async sessionRow(id: string, c?: pg.PoolClient, lock = false): Promise<SessionRow | undefined> {
    if (!storableId(id)) return undefined; // never stored, and PostgreSQL would refuse the query
    const sql = `SELECT * FROM tb_sessions WHERE id = $1 AND tenant = $2${lock ? ' FOR UPDATE' : ''}`;
    const res = c ? await c.query<SessionRow>(sql, [id, this.tenant]) : await this.q<SessionRow>(sql, [id, this.tenant]);
    return res.rows[0];
  }

  async getSession(id: string): Promise<Session | undefined> {
    const row = await this.sessionRow(id);
    if (!row) return undefined;
    const entries = (
      await this.q<{ body: string }>('SELECT body FROM tb_entries WHERE session_id = $1 ORDER BY seq', [id])
    ).rows.map((r) => JSON.parse(r.body) as Entry);
    const info = infoFromRow(row);
    const u = summarizeUsage(entries);
    info.usage = u.usage;
    info.cost = u.cost;
    if (u.models.length) info.models = u.models;
    Object.assign(info, usageByModelOf(u));
    const session: Session = { ...info, entries, leafId: row.leaf_id };
    if (row.raw !== null) session.raw = JSON.parse(row.raw);
    return session;
  }

  override async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    if (!storableId(sessionId) || !storableId(entryId)) return undefined;
    const res = await this.q<{ body: string }>(
      `SELECT e.body FROM tb_entries e JOIN tb_sessions s ON s.id = e.session_id
        WHERE e.session_id = $1 AND e.id = $2 AND s.tenant = $3`,
      [sessionId, entryId, this.tenant],
    );
    const row = res.rows[0];
    return row ? (JSON.parse(row.body) as Entry) : undefined;
  }

  override async getAncestry(sessionId: string, entryId: string): Promise<Entry[]> {
    if (!(await this.sessionRow(sessionId))) throw new NotFoundError('postgres session', sessionId);
    if (!storableId(entryId)) throw new NotFoundError('entry', entryId);
    // Walks parent links in SQL; the depth bound stops a cycle in damaged input.
    const res = await this.q<{ body: string }>(
      `WITH RECURSIVE up(id, parent_id, body, depth, path) AS (
         SELECT id, parent_id, body, 0, ARRAY[id] FROM tb_entries WHERE session_id = $1 AND id = $2
         UNION ALL
         SELECT e.id, e.parent_id, e.body, up.depth + 1, up.path || e.id
           FROM tb_entries e JOIN up ON e.session_id = $1 AND e.id = up.parent_id
          WHERE NOT e.id = ANY(up.path))
       SELECT body FROM up ORDER BY depth DESC`,
      [sessionId, entryId],
    );
    if (!res.rows.length) throw new NotFoundError('entry', entryId);
    return res.rows.map((r) => JSON.parse(r.body) as Entry);
  }

  /** What writeSession and replaceSession refuse before writing: an id twice, an id PostgreSQL cannot hold. */
  private checkWritten(session: Session): void {
    checkWrittenEntryIds(session);
    checkEntryIds(session.entries);
    for (const [what, id] of [
      ['parent session', session.parentId],
      ['parent entry', session.parentEntryId],
      ['parent tool call', session.parentToolCallId],
      ['leaf', session.leafId],
    ] as const)
      if (id) checkId(what, id);
  }

  /**
   * Writes `session`'s row under `id` and its entries, in the caller's transaction; false, nothing
   * written, when the id is taken.
   */
  private async insertSession(c: pg.PoolClient, id: string, session: Session): Promise<boolean> {
    const now = new Date().toISOString();
    const meta = writtenMeta(session);
    const info: Record<string, unknown> = {};
    if (meta) info.meta = meta;
    if (session.directories) info.directories = session.directories;
    if (session.title !== undefined && columnText(session.title) !== session.title) info.title = session.title;
    if (session.project !== undefined && columnText(session.project) !== session.project) info.project = session.project;
    const times = session.entries
      .map((e) => e.timestamp)
      .filter(Boolean)
      .sort();
    const createdAt = session.createdAt || times[0] || now;
    const updatedAt = [session.updatedAt, times[times.length - 1]].filter(Boolean).sort().pop() ?? now;
    const inserted = await c.query(
      `INSERT INTO tb_sessions (id, tenant, source, cwd, title, created_at, updated_at, parent_id, parent_entry_id,
         parent_tool_call_id, leaf_id, info, raw, written_by)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
       ON CONFLICT (id) DO NOTHING`,
      [
        id,
        this.tenant,
        THREADBASE_SOURCE,
        session.project === undefined ? null : columnText(session.project),
        session.title === undefined ? null : columnText(session.title),
        createdAt,
        updatedAt,
        session.parentId ?? null,
        session.parentEntryId ?? null,
        session.parentToolCallId ?? null,
        session.leafId ?? currentLeaf(session)?.id ?? null,
        JSON.stringify(info),
        session.raw === undefined ? null : JSON.stringify(session.raw),
        session.writtenBy ?? null,
      ],
    );
    if (!inserted.rowCount) return false;
    await insertEntries(c, id, session.entries, 0);
    await refreshCounters(c, id, session.entries, false);
    return true;
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    this.checkWritten(session);
    const id = await this.tx(async (c) => {
      let id: string = randomUUID();
      // an id a text column cannot hold exactly is replaced, as a taken one is; one taken, by the
      // alias asked for (idIfTaken) when that is free
      const free = async (at: string) =>
        storableId(at) && !(await c.query('SELECT 1 FROM tb_sessions WHERE id = $1', [at])).rowCount;
      if (opts.keepId && session.id) {
        if (await free(session.id)) id = session.id;
        else if (opts.idIfTaken && (await free(opts.idIfTaken))) id = opts.idIfTaken;
      }
      // The id can be taken between the look-up above and here (another writer, another server on this
      // database): then it is replaced, as one taken before is, instead of failing on the primary key.
      while (!(await this.insertSession(c, id, session))) id = randomUUID();
      return id;
    });
    return this.infoOf(id);
  }

  /**
   * The session's row (this tenant's, locked) deleted, its entries with it, and written anew under the
   * same id, in one transaction: a write that fails rolls back to the session as it was.
   */
  async replaceSession(sessionId: string, session: Session): Promise<SessionInfo> {
    this.checkWritten(session);
    await this.tx(async (c) => {
      if (!(await this.sessionRow(sessionId, c, true))) throw new NotFoundError('postgres session', sessionId);
      await c.query('DELETE FROM tb_sessions WHERE id = $1 AND tenant = $2', [sessionId, this.tenant]);
      await this.insertSession(c, sessionId, session);
    });
    return this.infoOf(sessionId);
  }

  private async infoOf(id: string): Promise<SessionInfo> {
    const s = await this.getSession(id);
    if (!s) throw new NotFoundError('postgres session', id);
    const { entries: _e, leafId: _l, raw: _r, warnings: _w, ...info } = s;
    return info;
  }

  /**
   * Appends entries in order. An entry the session has as stored is skipped (pushes can repeat), one
   * whose id it has with other content refused (SessionDriver.appendEntries); a new entry must name a
   * parent the session has or is appending alongside.
   */
  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    checkUnique(entries, sessionId);
    checkEntryIds(entries);
    await this.tx(async (c) => {
      const row = await this.sessionRow(sessionId, c, true);
      if (!row) throw new NotFoundError('postgres session', sessionId);
      const ids = entries.map((e) => e.id);
      const parents = entries.map((e) => e.parentId).filter((p): p is string => p !== null);
      // One look-up answers both: which entries are already there (with their body), which parents exist.
      const rows = (
        await c.query<{ id: string; body: string | null }>(
          'SELECT id, CASE WHEN id = ANY($3) THEN body END body FROM tb_entries WHERE session_id = $1 AND id = ANY($2)',
          [sessionId, [...new Set([...ids, ...parents])], ids],
        )
      ).rows;
      const present = new Set(rows.map((r) => r.id));
      const stored = new Map(rows.flatMap((r) => (r.body === null ? [] : [[r.id, JSON.parse(r.body) as Entry] as const])));
      const fresh = entriesNotStored(sessionId, entries, stored);
      if (!fresh.length) return;
      const known = new Set([...ids, ...present]);
      for (const e of fresh) {
        const parent = e.parentId;
        if (parent !== null && !known.has(parent))
          throw new SessionEntryError(
            'orphan_entry',
            sessionId,
            e.id,
            (sid) => `entry ${e.id} names parent ${parent}, which is not in session ${sid}`,
          );
      }
      const next = await refreshCounters(c, sessionId, fresh, true, fresh.length);
      await insertEntries(c, sessionId, fresh, next - fresh.length, false);
    });
  }

  /**
   * Appends one entry under the session's last entry outside sidechains, found and written in one
   * transaction with the session row locked: messages stored through several server processes on this
   * database stay one chain (each process remembering its own last entry made side branches).
   * Returns the entry as stored, its parentId set.
   */
  async appendToChain(sessionId: string, entry: Entry): Promise<Entry> {
    checkEntryIds([entry]);
    return this.tx(async (c) => {
      const row = await this.sessionRow(sessionId, c, true);
      if (!row) throw new NotFoundError('postgres session', sessionId);
      const last = await c.query<{ id: string }>(
        'SELECT id FROM tb_entries WHERE session_id = $1 AND NOT sidechain ORDER BY seq DESC LIMIT 1',
        [sessionId],
      );
      const stored: Entry = { ...entry, parentId: last.rows[0]?.id ?? null };
      const next = await refreshCounters(c, sessionId, [stored], true, 1);
      await insertEntries(c, sessionId, [stored], next - 1, false);
      return stored;
    });
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.getSession(sessionId);
    if (!s) throw new NotFoundError('postgres session', sessionId);
    return this.writeSession(forkedSession(s, opts), { keepId: true });
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    await this.tx(async (c) => {
      const row = await this.sessionRow(sessionId, c, true);
      if (!row) throw new NotFoundError('postgres session', sessionId);
      const info = infoJson(row);
      if (columnText(title) !== title) info.title = title;
      else delete info.title;
      await c.query('UPDATE tb_sessions SET title = $2, info = $3 WHERE id = $1', [
        sessionId,
        columnText(title),
        JSON.stringify(info),
      ]);
    });
  }

  /**
   * Marks the session as one threadbase wrote into an agent (SessionInfo.writtenBy): a push of it
   * says so, and one stored before migration 8 kept no mark (the server's PUT sets it on the next push).
   */
  async markWrittenBy(sessionId: string): Promise<void> {
    if (!storableId(sessionId)) throw new NotFoundError('postgres session', sessionId);
    const res = await this.q(
      "UPDATE tb_sessions SET written_by = 'threadbase' WHERE id = $1 AND tenant = $2 AND written_by IS DISTINCT FROM 'threadbase'",
      [sessionId, this.tenant],
    );
    if (!res.rowCount && !(await this.sessionRow(sessionId))) throw new NotFoundError('postgres session', sessionId);
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!storableId(sessionId)) throw new NotFoundError('postgres session', sessionId);
    const res = await this.q('DELETE FROM tb_sessions WHERE id = $1 AND tenant = $2', [sessionId, this.tenant]);
    if (!res.rowCount) throw new NotFoundError('postgres session', sessionId);
  }

  /**
   * Every term of the query in an entry, as every store matches (src/stores/search-text.ts), by the
   * entries' tsvectors of the same tokens (./search.ts); ranked by ts_rank, snippets cut from the
   * entries found as the other stores cut them.
   */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    const tsquery = searchQuery(query);
    if (!tsquery) return [];
    const values: unknown[] = [tsquery, this.tenant];
    const where = ['e.tsv @@ $1::tsquery', 's.tenant = $2'];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replaceAll('?', `$${values.length}`));
    };
    // the sessions searched (over `s`, and over `os` for another copy's session)
    const among: string[] = [];
    const amongAdd = (sql: string, v: unknown) => {
      add(sql, v);
      among.push((where.at(-1) as string).replace(/\bs\./g, 'os.'));
    };
    if (opts.source) amongAdd(sourceIs('s.'), opts.source);
    if (opts.project) amongAdd('s.cwd = ?', opts.project);
    if (opts.since) add('e.ts >= ?', opts.since);
    if (opts.until) add('e.ts <= ?', opts.until);
    if (opts.parentId) amongAdd('s.parent_id = ?', opts.parentId);
    if (opts.role) add('e.role = ?', opts.role);
    // a tool's name in any case: `--tool bash` finds Claude Code's Bash
    if (opts.tool) add('EXISTS (SELECT 1 FROM unnest(e.tools) t WHERE lower(t) = lower(?))', opts.tool);
    // An entry repeated in another session (a fork's copy, a Copilot CLI sub-agent run's: the same
    // entry id and time) is one hit: the copy preferred among the sessions searched, by the rule
    // `stats` counts a copied response by (the local index's search keeps the same one). An entry
    // without a time is a copy of none (see CopyKey in src/stores/sqlite/copies.ts).
    const cols = (e: string) => ({ cost: `${e}.cost`, input: `${e}.usage_input`, output: `${e}.usage_output` });
    where.push(`NOT EXISTS (SELECT 1 FROM tb_entries o JOIN tb_sessions os ON os.id = o.session_id
        WHERE o.ts = e.ts AND e.ts <> '' AND o.id = e.id AND o.session_id <> e.session_id AND os.tenant = $2
          ${among.map((t) => `AND ${t}`).join(' ')}
          AND (${preferredCopyOrder(cols('o'), 'os')}) < (${preferredCopyOrder(cols('e'))}))`);
    values.push(searchLimitOf(opts.limit));
    // ranked first, the bodies (for snippets) read for the hits kept only
    const rows = (
      await this.q<{
        session_id: string;
        id: string;
        source: string;
        cwd: string | null;
        role: string | null;
        score: number;
        ts: string;
        body: string;
      }>(
        `WITH top AS (
           SELECT e.session_id, e.id, s.source, s.cwd, e.role, e.ts, ts_rank(e.tsv, $1::tsquery)::float8 AS score
             FROM tb_entries e JOIN tb_sessions s ON s.id = e.session_id
            WHERE ${where.join(' AND ')}
            ORDER BY score DESC, e.ts DESC
            LIMIT $${values.length})
         SELECT top.*, b.body FROM top JOIN tb_entries b ON b.session_id = top.session_id AND b.id = top.id
          ORDER BY top.score DESC, top.ts DESC`,
        values,
      )
    ).rows;
    const terms = queryTerms(query);
    return rows.map((r) => {
      const hit: SearchHit = {
        sessionId: r.session_id,
        entryId: r.id,
        source: r.source as SourceName,
        snippet: snippetOf(entrySearchText(JSON.parse(r.body) as Entry), terms),
        score: r.score,
        timestamp: r.ts,
      };
      if (r.cwd !== null) hit.project = r.cwd;
      if (r.role !== null) hit.role = r.role;
      return hit;
    });
  }

  async metadataEntries(type: string): Promise<Map<string, MetadataEntry[]>> {
    // this tenant's, by the partial index of metadata entries; the type's text found first, then read exactly
    const res = await this.q<{ session_id: string; body: string }>(
      `SELECT e.session_id, e.body FROM tb_entries e JOIN tb_sessions s ON s.id = e.session_id
        WHERE e.kind = 'metadata' AND s.tenant = $1 AND strpos(e.body, $2) > 0 ORDER BY e.session_id, e.seq`,
      [this.tenant, JSON.stringify(type)],
    );
    return metadataBySession(
      res.rows.map((r) => [r.session_id, r.body]),
      type,
    );
  }

  /**
   * The tokens, recorded cost and responses of the sessions `filter` selects, a response copied into
   * several of them once (costGroups), as the SQLite store's usage() and `stats` count them.
   */
  override async usage(filter: SessionFilter = {}): Promise<UsageTotals> {
    const { where, values } = this.sessionWhere(filter);
    const ids = (await this.q<{ id: string }>(`SELECT id FROM tb_sessions WHERE ${where.join(' AND ')}`, values)).rows;
    const all = await this.costGroups(
      ids.map((r) => r.id),
      [],
      'all',
    );
    return (all.get('[]') ?? emptyCostGroups()).usage;
  }

  /**
   * What `stats` prices, over the sessions of `filter` (its source and project) and their responses
   * in its window (since/until, by the counted record's time): the costs agents recorded, the usage
   * of the responses with none, and the tokens of them all, counted as usageBySession counts (one
   * record per response) except that a response copied into several sessions (a resumed or forked
   * session repeats its history) counts once, in the copy the local index prefers (COPY_PREFERRED).
   * The unrecorded usage is grouped by model, prompt band (how many of `thresholds` the prompt is
   * above), speed and place; a response with advisor requests is a group of its own with its usage
   * whole, so each advisor request is priced at its own prompt.
   */
  async costUsage(filter: SessionFilter, thresholds: readonly number[], sessionIds?: readonly string[]): Promise<CostGroups> {
    const { since, until } = filter;
    const all = await this.costGroups(await this.windowSessions(filter, sessionIds), thresholds, 'all', { since, until });
    return all.get('[]') ?? emptyCostGroups();
  }

  /**
   * The ids of this tenant's sessions of `filter`'s source and project (of `sessionIds` when given)
   * that may hold a response of its since/until: updated after its start, created before its end.
   * Read from the session rows alone (listSessions would sum every session's usage too).
   */
  private async windowSessions(filter: SessionFilter, sessionIds?: readonly string[]): Promise<string[]> {
    const { since, until, source, project } = filter;
    const { where, values } = this.sessionWhere({ source, project, since });
    if (until) where.push(`created_at <= $${values.push(until)}`);
    // an id a text column cannot hold is no stored session's (and PostgreSQL would refuse the query)
    if (sessionIds) where.push(`id = ANY($${values.push(sessionIds.filter(storableId))})`);
    return (await this.q<{ id: string }>(`SELECT id FROM tb_sessions WHERE ${where.join(' AND ')}`, values)).rows.map(
      (r) => r.id,
    );
  }

  /** costUsage priced with the table's own long-prompt thresholds: the cost and tokens `stats` gives. */
  async costSummary(filter: SessionFilter, prices: PriceTable, sessionIds?: readonly string[]): Promise<ResponseStats> {
    const thresholds = longPromptThresholds(prices);
    const u = await this.costUsage(filter, thresholds, sessionIds);
    return { recordedCost: u.recordedCost, ...priceUnrecorded(prices, thresholds, u.unrecorded), usage: u.usage };
  }

  /**
   * Each session's own records (a copy's too, as the local index's per-session list counts them)
   * priced as `stats --by session` prices them: recorded costs kept, the rest request by request
   * (prompt band, speed, place, advisors) with priceUnrecorded.
   */
  async sessionCosts(prices: PriceTable, sessionIds?: readonly string[]): Promise<SessionCost[]> {
    const ids = sessionIds ? [...sessionIds] : (await this.listSessions({})).map((s) => s.id);
    const thresholds = longPromptThresholds(prices);
    const out: SessionCost[] = [];
    for (const [key, c] of await this.costGroups(ids, thresholds, 'session')) {
      const [source = '', id = ''] = JSON.parse(key) as string[];
      const priced = priceUnrecordedByModel(prices, thresholds, c.unrecorded);
      const costByModel = { ...c.recordedByModel };
      for (const [model, cost] of Object.entries(priced.costByModel)) costByModel[model] = (costByModel[model] ?? 0) + cost;
      out.push({ source, id, cost: c.recordedCost + priced.cost, unpricedModels: priced.unpricedModels, costByModel });
    }
    return out;
  }

  /**
   * costSummary by the counted record's day, its model (an advisor request's tokens and cost under
   * the advisor's model, as the local index's stats SQL counts them), the session's project or its
   * source: computed in SQL over the sessions `filter` selects (costUsage's), a copied response once
   * among them, only responses in since/until, recorded costs kept and the rest priced as costSummary
   * prices them. Keys and order as the SQLite store's costBuckets (`stats --by`) gives them.
   */
  async costBuckets(
    by: CostBucketKey,
    filter: SessionFilter,
    prices: PriceTable,
    sessionIds?: readonly string[],
    timeZone?: string,
  ): Promise<CostBucket[]> {
    const thresholds = longPromptThresholds(prices);
    const { since, until } = filter;
    // a zone's days: grouped by the UTC hour (quarter hour) in SQL, folded to its days here, as the local index does
    const slot = by === 'day' ? timeSlotOf(timeZone) : 'day';
    const zoned = slot !== 'day' && timeZone ? zonedKeyOfSlot(timeZone, 'day') : undefined;
    const grouping = slot === 'day' ? by : slot;
    const groups = await this.costGroups(await this.windowSessions(filter, sessionIds), thresholds, grouping, {
      since,
      until,
    });
    const buckets = new Map<string, CostBucket>();
    const bucket = (key: string) => {
      let b = buckets.get(key);
      if (!b) {
        b = { key, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, responses: 0 };
        buckets.set(key, b);
      }
      return b;
    };
    for (const [groupKey, g] of groups) {
      const b = bucket(by === 'project' ? projectOfKey(groupKey) : zoned ? zoned(groupKey) : groupKey);
      b.input += g.usage.input;
      b.output += g.usage.output;
      b.cacheRead += g.usage.cacheRead;
      b.cacheWrite += g.usage.cacheWrite;
      b.reasoning += g.usage.reasoning;
      b.responses += g.usage.messages;
      b.cost += g.recordedCost;
      const priced = priceUnrecordedByModel(prices, thresholds, g.unrecorded);
      if (by !== 'model') b.cost += priced.cost;
      // by model, each part's cost under the model that billed it (an advisor request's under its own)
      else for (const [model, cost] of Object.entries(priced.costByModel)) bucket(model || 'unknown').cost += cost;
    }
    const list = [...buckets.values()];
    return by === 'day'
      ? list.sort((a, b) => (a.key < b.key ? -1 : 1))
      : list.sort((a, b) => b.cost - a.cost || b.responses - a.responses);
  }

  /**
   * The recorded costs, the unrecorded usage groups and the tokens of sessions `ids` (this tenant's
   * only) and of their responses in `window`, grouped by `grouping`: 'session', each session's own
   * records keyed by the JSON of [source, id]; else a copied response counted once (see costUsage),
   * 'all' under '[]', or by a costBuckets key (GROUP_KEY; by model, advisor tokens under their own).
   */
  private async costGroups(
    ids: readonly string[],
    thresholds: readonly number[],
    grouping: CostGrouping,
    window: ResponseWindow = {},
  ): Promise<Map<string, CostGroups>> {
    const out = new Map<string, CostGroups>();
    if (!ids.length) return out;
    const prompt = 'coalesce(usage_input,0) + coalesce(usage_cache_read,0) + coalesce(usage_cache_write,0)';
    const band = thresholds.length ? thresholds.map((_, i) => `(${prompt} > $${i + 2})::int`).join(' + ') : '0';
    const tenant = `$${thresholds.length + 2}`;
    const args: unknown[] = [ids, ...thresholds, this.tenant];
    // the window, on the time of the record that counts (as the local index filters its counted records)
    const inWindow: string[] = [];
    if (window.since) inWindow.push(`ts >= $${args.push(window.since)}`);
    if (window.until) inWindow.push(`ts <= $${args.push(window.until)}`);
    // per session: every session's own records; else a copied response once, in the preferred copy
    // (a record without a time is a copy of none: see CopyKey in src/stores/sqlite/copies.ts)
    const perSession = grouping === 'session';
    const untimed = "CASE WHEN resp.ts = '' THEN resp.session_id END";
    const d = perSession
      ? 'd AS (SELECT * FROM resp)'
      : `d AS (SELECT DISTINCT ON (resp.split, resp.rid, resp.ts, ${untimed}) resp.*
                      FROM resp JOIN tb_sessions s ON s.id = resp.session_id
                     ORDER BY resp.split, resp.rid, resp.ts, ${untimed}, ${COPY_PREFERRED})`;
    const sessionKey = GROUP_KEY[grouping];
    const usageJson = `coalesce(b.j #> '{message,usage}', b.j -> 'usage')`;
    const rows = (
      await this.q<{
        session_key: string;
        part: 'recorded' | 'unrecorded' | 'tokens' | 'advisors';
        recorded: number | null;
        model: string | null;
        band: number | null;
        speed: string | null;
        geo: string | null;
        whole: string | null;
        input: string;
        output: string;
        cache_read: string;
        cache_write: string;
        cache_write_1h: string;
        web_searches: string;
        reasoning: string;
        responses: string;
      }>(
        // the responses of usageBySession (a split one with neither usage nor a cost too), each with its
        // counted record (r: the last record that has usage or a cost, else the last, as countedUsage and
        // the local index pick it), its last usage (u) and last cost (c); the model of its last record
        // with usage or a cost that names one (n: the record it is dated by), else of its first record
        // (f), as countedUsage and the local index name it. A response is dated and
        // windowed by its counted record's time, and a copy is the same response id (or record id) at
        // that time, as the local index keys copies; speed, place and advisors are read from the usage.
        `WITH a AS (SELECT session_id, id, coalesce(response_id, id) AS rid, response_id IS NOT NULL AS split, seq, ts, model,
                           usage_input, usage_output, usage_cache_read, usage_cache_write, usage_cache_write_1h,
                           usage_web_searches, usage_reasoning, cost, body
                      FROM tb_entries WHERE session_id = ANY($1) AND (role = 'assistant' OR kind = 'compaction')
                       AND session_id IN (SELECT id FROM tb_sessions WHERE tenant = ${tenant})),
              r AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, split, ts FROM a
                     WHERE split OR usage_input IS NOT NULL OR cost IS NOT NULL
                     ORDER BY session_id, rid, (usage_input IS NOT NULL OR cost IS NOT NULL) DESC, seq DESC),
              f AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, model FROM a ORDER BY session_id, rid, seq),
              n AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, model FROM a
                     WHERE (usage_input IS NOT NULL OR cost IS NOT NULL) AND model IS NOT NULL ORDER BY session_id, rid, seq DESC),
              u AS (SELECT DISTINCT ON (session_id, rid) * FROM a WHERE usage_input IS NOT NULL ORDER BY session_id, rid, seq DESC),
              c AS (SELECT DISTINCT ON (session_id, rid) session_id, rid, cost FROM a WHERE cost IS NOT NULL
                     ORDER BY session_id, rid, seq DESC),
              resp AS (SELECT r.session_id, r.split, r.rid, r.ts, c.cost, u.id,
                              coalesce(n.model, f.model) AS model,
                              u.usage_input, u.usage_output, u.usage_cache_read, u.usage_cache_write, u.usage_cache_write_1h,
                              u.usage_web_searches, u.usage_reasoning, u.body
                         FROM r JOIN f ON f.session_id = r.session_id AND f.rid = r.rid
                         LEFT JOIN n ON n.session_id = r.session_id AND n.rid = r.rid
                         LEFT JOIN u ON u.session_id = r.session_id AND u.rid = r.rid
                         LEFT JOIN c ON c.session_id = r.session_id AND c.rid = r.rid),
              ${d},
              k AS (SELECT d.*, ${sessionKey} AS session_key FROM d${inWindow.length ? ` WHERE ${inWindow.join(' AND ')}` : ''}),
              g AS (SELECT k.*, ${band} AS band, ${usageJson} AS uj
                      FROM k CROSS JOIN LATERAL (SELECT (${WITHOUT_NUL_ESCAPES})::json AS j) b
                     WHERE cost IS NULL AND usage_input IS NOT NULL),
              v AS (SELECT k.session_key, k.model, ${usageJson} AS uj
                      FROM k CROSS JOIN LATERAL (SELECT (${WITHOUT_NUL_ESCAPES})::json AS j) b
                     WHERE k.body LIKE '%"advisors":[%')
         SELECT session_key, 'recorded' AS part, sum(cost)::float8 AS recorded, model, NULL::int AS band, NULL AS speed,
                NULL AS geo, NULL AS whole, 0 AS input, 0 AS output, 0 AS cache_read, 0 AS cache_write, 0 AS cache_write_1h,
                0 AS web_searches, 0 AS reasoning, 0 AS responses
           FROM k WHERE cost IS NOT NULL GROUP BY session_key, model
         UNION ALL
         SELECT session_key, 'tokens', NULL, NULL, NULL, NULL, NULL, NULL,
                sum(coalesce(usage_input,0)), sum(coalesce(usage_output,0)), sum(coalesce(usage_cache_read,0)),
                sum(coalesce(usage_cache_write,0)), sum(coalesce(usage_cache_write_1h,0)), sum(coalesce(usage_web_searches,0)),
                sum(coalesce(usage_reasoning,0)), count(*)
           FROM k GROUP BY session_key
         UNION ALL
         SELECT session_key, 'advisors', NULL, model, NULL, NULL, NULL, uj::text, 0, 0, 0, 0, 0, 0, 0, 0
           FROM v WHERE json_typeof(uj -> 'advisors') = 'array'
         UNION ALL
         SELECT session_key, 'unrecorded', NULL, model, band, uj ->> 'speed', uj ->> 'inferenceGeo',
                CASE WHEN json_typeof(uj -> 'advisors') = 'array' THEN uj::text END,
                sum(coalesce(usage_input,0)), sum(coalesce(usage_output,0)), sum(coalesce(usage_cache_read,0)),
                sum(coalesce(usage_cache_write,0)), sum(coalesce(usage_cache_write_1h,0)), sum(coalesce(usage_web_searches,0)),
                sum(coalesce(usage_reasoning,0)), count(*)
           FROM g
          GROUP BY 1, 4, 5, 6, 7, 8, CASE WHEN json_typeof(uj -> 'advisors') = 'array' THEN session_id || ' ' || id END`,
        args,
      )
    ).rows;
    const groupOf = (key: string) => {
      let group = out.get(key);
      if (!group) {
        group = emptyCostGroups();
        out.set(key, group);
      }
      return group;
    };
    for (const r of rows) {
      const entry = groupOf(r.session_key);
      const summed = usageOfRow(r);
      if (r.part === 'recorded') {
        const recorded = Number(r.recorded ?? 0);
        entry.recordedCost += recorded;
        entry.recordedByModel[r.model ?? ''] = (entry.recordedByModel[r.model ?? ''] ?? 0) + recorded;
        entry.usage.cost += recorded;
      } else if (r.part === 'tokens') {
        Object.assign(entry.usage, addUsage(entry.usage, summed));
        entry.usage.messages += Number(r.responses);
      } else if (r.part === 'advisors') {
        // the tokens of advisor requests, under their own models (as summarizeUsage counts them)
        const whole = JSON.parse(r.whole ?? '{}') as Usage;
        for (const part of usagePerModel(r.model ?? undefined, whole).slice(1)) {
          const to = grouping === 'model' ? groupOf(part.model ?? 'unknown') : entry;
          Object.assign(to.usage, addUsage(to.usage, part.usage));
        }
      } else {
        const usage: Usage = r.whole
          ? (JSON.parse(r.whole) as Usage)
          : {
              ...summed,
              ...(r.speed === 'fast' ? { speed: 'fast' as const } : {}),
              ...(r.geo !== null ? { inferenceGeo: r.geo } : {}),
            };
        entry.unrecorded.push({ model: r.model ?? undefined, band: Number(r.band), usage, responses: Number(r.responses) });
      }
    }
    return out;
  }

  /** Entry ids the session already has, among `ids` (push uses it to send only what is new). */
  async existingEntryIds(sessionId: string, ids: readonly string[]): Promise<Set<string>> {
    const res = await this.q<{ id: string }>(
      `SELECT e.id FROM tb_entries e JOIN tb_sessions s ON s.id = e.session_id
        WHERE e.session_id = $1 AND s.tenant = $2 AND e.id = ANY($3)`,
      // an id a text column cannot hold is no entry's (and the query would fail)
      [sessionId, this.tenant, ids.filter(storableId)],
    );
    return new Set(res.rows.map((r) => r.id));
  }

  /**
   * The session's header (its usage not counted) and which of `ids` are its entries, without reading
   * them: what the server's PUT needs to add a push's entries to a session; undefined when there is none.
   */
  async pushedEntriesOf(
    sessionId: string,
    ids: readonly string[],
  ): Promise<{ session: SessionInfo; have: Set<string> } | undefined> {
    const row = await this.sessionRow(sessionId);
    return row && { session: infoFromRow(row), have: await this.existingEntryIds(sessionId, ids) };
  }

  /** Entries after a position in the session's order, for paging (seq is the store's own order). */
  async entryPage(
    sessionId: string,
    opts: { afterSeq?: number; beforeSeq?: number; limit: number; desc: boolean },
  ): Promise<{ seq: number; entry: Entry }[]> {
    const values: unknown[] = [sessionId, this.tenant];
    const where = ['e.session_id = $1', 's.tenant = $2'];
    if (opts.afterSeq !== undefined) {
      values.push(opts.afterSeq);
      where.push(`e.seq > $${values.length}`);
    }
    if (opts.beforeSeq !== undefined) {
      values.push(opts.beforeSeq);
      where.push(`e.seq < $${values.length}`);
    }
    values.push(opts.limit);
    const res = await this.q<{ seq: string; body: string }>(
      `SELECT e.seq, e.body FROM tb_entries e JOIN tb_sessions s ON s.id = e.session_id
        WHERE ${where.join(' AND ')} ORDER BY e.seq ${opts.desc ? 'DESC' : 'ASC'} LIMIT $${values.length}`,
      values,
    );
    return res.rows.map((r) => ({ seq: Number(r.seq), entry: JSON.parse(r.body) as Entry }));
  }
}

/** A row of summed token columns (the usage and cost queries name them alike) as a Usage. */
function usageOfRow(r: UsageColumns): Usage {
  return {
    input: Number(r.input),
    output: Number(r.output),
    cacheRead: Number(r.cache_read),
    cacheWrite: Number(r.cache_write),
    ...(Number(r.cache_write_1h) > 0 ? { cacheWrite1h: Number(r.cache_write_1h) } : {}),
    reasoning: Number(r.reasoning),
    ...(Number(r.web_searches) > 0 ? { webSearches: Number(r.web_searches) } : {}),
  };
}

type UsageColumns = Record<
  'input' | 'output' | 'cache_read' | 'cache_write' | 'cache_write_1h' | 'reasoning' | 'web_searches',
  string | number | null
>;

function infoFromRow(r: SessionRow): SessionInfo {
  const info: SessionInfo = {
    id: r.id,
    source: r.source as SourceName,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    messageCount: r.message_count,
  };
  if (r.cwd !== null) info.project = r.cwd;
  const title = r.title ?? shortTitle(r.first_user_text);
  if (title) info.title = title;
  if (r.parent_id !== null) info.parentId = r.parent_id;
  if (r.parent_entry_id !== null) info.parentEntryId = r.parent_entry_id;
  if (r.parent_tool_call_id !== null) info.parentToolCallId = r.parent_tool_call_id;
  if (r.written_by === 'threadbase') info.writtenBy = r.written_by;
  const extra = infoJson(r);
  if (typeof extra.title === 'string') info.title = extra.title;
  if (typeof extra.project === 'string') info.project = extra.project;
  if (extra.meta && typeof extra.meta === 'object') info.meta = extra.meta as Record<string, unknown>;
  if (Array.isArray(extra.directories)) info.directories = extra.directories as string[];
  return info;
}

/**
 * A `source` filter: the column, or for a session pushed or written here from an agent (its source is
 * then `threadbase`), the agent it came from (meta.importedFrom.source), so `?source=claude` on a team
 * server finds the Claude sessions pushed to it. The strpos test spares parsing the others' info.
 */
function sourceIs(alias: '' | 's.'): string {
  return `(${alias}source = ? OR (${alias}source = '${THREADBASE_SOURCE}' AND strpos(${alias}info, '"importedFrom"') > 0 AND (${jsonbReadable(`${alias}info`)}::jsonb #>> '{meta,importedFrom,source}') = ?))`;
}

/** The row's info JSON (an object from before migration 3, text since). */
function infoJson(r: SessionRow): Record<string, unknown> {
  const v: unknown = typeof r.info === 'string' ? JSON.parse(r.info) : r.info;
  return v && typeof v === 'object' ? { ...(v as Record<string, unknown>) } : {};
}

function shortTitle(text: string | null): string | undefined {
  if (!text) return undefined;
  const t = text.trim().replace(/\s+/g, ' ');
  if (!t) return undefined;
  return truncate(t, 80);
}

function checkUnique(entries: readonly Entry[], sessionId: string): void {
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id))
      throw new SessionEntryError(
        'duplicate_entry',
        sessionId,
        e.id,
        (sid) => `entry id ${e.id} appears twice for session ${sid}`,
      );
    ids.add(e.id);
  }
}

function storableId(id: string): boolean {
  return columnText(id) === id;
}

/** Ids are matched as they are: one a text column cannot hold exactly is refused, never altered. */
function checkId(what: string, id: string): void {
  if (!storableId(id))
    throw new ThreadbaseError(
      'unstorable_id',
      `${what} id ${JSON.stringify(id)} holds a NUL or an unpaired surrogate, which PostgreSQL cannot store`,
      { id },
    );
}

function checkEntryIds(entries: readonly Entry[]): void {
  for (const e of entries) {
    checkId('entry', e.id);
    if (e.parentId !== null) checkId('parent entry', e.parentId);
  }
}

const BATCH = 200;
/** Where the tsvector is among insertEntries' columns (its text is cast). */
const TSV_COLUMN = 19;

async function insertEntries(
  c: pg.PoolClient,
  sessionId: string,
  entries: readonly Entry[],
  startSeq: number,
  bumpSeq = true,
): Promise<void> {
  // the tools column names a result by its call: one that an earlier write stored too
  const callNames = await storedCallNames(c, sessionId, entries);
  for (let i = 0; i < entries.length; i += BATCH) {
    const batch = entries.slice(i, i + BATCH);
    const values: unknown[] = [];
    const rows: string[] = [];
    batch.forEach((e, j) => {
      const m = e.kind === 'message' ? e.message : undefined;
      const r = responseRecordOf(e);
      const u = r?.usage;
      const search = searchColumns(e, callNames);
      const cols = [
        sessionId,
        e.id,
        startSeq + i + j,
        e.parentId,
        e.kind,
        m?.role ?? null,
        e.timestamp || '',
        e.sidechain === true,
        r?.responseId === undefined ? null : columnText(r.responseId),
        r?.model !== undefined ? columnText(r.model) : null,
        u ? u.input : null,
        u ? u.output : null,
        u ? u.cacheRead : null,
        u ? u.cacheWrite : null,
        u ? (u.cacheWrite1h ?? null) : null,
        u ? (u.webSearches ?? null) : null,
        u ? u.reasoning : null,
        r ? (r.cost ?? null) : null,
        search.tools,
        search.tsv,
        JSON.stringify(e),
      ];
      const base = values.length;
      values.push(...cols);
      rows.push(`(${cols.map((_, k) => `$${base + k + 1}${k === TSV_COLUMN ? '::tsvector' : ''}`).join(',')})`);
    });
    await c.query(
      `INSERT INTO tb_entries (session_id, id, seq, parent_id, kind, role, ts, sidechain, response_id, model,
         usage_input, usage_output, usage_cache_read, usage_cache_write, usage_cache_write_1h, usage_web_searches,
         usage_reasoning, cost, tools, tsv, body)
       VALUES ${rows.join(',')} ON CONFLICT (session_id, id) DO NOTHING`,
      values,
    );
  }
  if (bumpSeq)
    await c.query('UPDATE tb_sessions SET next_seq = GREATEST(next_seq, $2) WHERE id = $1', [
      sessionId,
      startSeq + entries.length,
    ]);
}

/**
 * Message count, first user text, leaf and updated time after entries went in; reserves `seqs`
 * sequence numbers and returns the session's next_seq after them.
 */
async function refreshCounters(
  c: pg.PoolClient,
  sessionId: string,
  added: readonly Entry[],
  moveLeaf: boolean,
  seqs = 0,
): Promise<number> {
  let messages = 0;
  let firstUser: string | null = null;
  for (const e of added) {
    if (e.kind !== 'message' || e.sidechain) continue;
    messages++;
    if (firstUser === null && e.message.role === 'user') {
      const t = messageText(e.message).trim();
      if (t) firstUser = columnText(prefixOf(t, 500));
    }
  }
  const last = [...added].reverse().find((e) => !e.sidechain);
  const latest = added
    .map((e) => e.timestamp)
    .filter(Boolean)
    .sort()
    .pop();
  const res = await c.query<{ next_seq: string }>(
    `UPDATE tb_sessions SET
       message_count = message_count + $2,
       first_user_text = coalesce(first_user_text, $3),
       leaf_id = CASE WHEN $4::boolean AND $5::text IS NOT NULL THEN $5 ELSE leaf_id END,
       updated_at = CASE WHEN $6::text IS NOT NULL AND $6 > updated_at THEN $6 ELSE updated_at END,
       next_seq = next_seq + $7
     WHERE id = $1 RETURNING next_seq`,
    [sessionId, messages, firstUser, moveLeaf, last?.id ?? null, latest ?? null, seqs],
  );
  return Number(res.rows[0]?.next_seq);
}

export default openPostgresStore;
