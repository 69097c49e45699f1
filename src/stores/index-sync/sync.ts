/**
 * `threadbase sync`: indexes every local agent store into one SQLite store ($THREADBASE_HOME/index.db)
 * where each session keeps its own source. Incremental by source unit (a file, or a database row):
 * an unchanged unit is not read; an append-only file that grew is read from its last indexed byte
 * (when its driver offers IncrementalSource and the bytes before that offset are unchanged); anything
 * else that changed is re-read whole. Many units per transaction, each unit whole, so a sync killed
 * mid-way leaves a sound index that the next sync completes.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sources } from '../../formats/registry.js';
import { type DriverEnv, isIncrementalSource, type SessionDriver, type SourceUnit, type UnitRead } from '../../model/driver.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { threadbaseHome } from '../open.js';
import { THREADBASE_SOURCE } from '../shared.js';
import type { SqliteStore } from '../sqlite/index.js';

export function indexPath(env: DriverEnv): string {
  return join(threadbaseHome(env), 'index.db');
}

export interface SyncProgress {
  /** total units found so far and units handled */
  total: number;
  done: number;
  format: string;
}

export interface SyncOptions {
  /** only these formats (default every registered one) */
  formats?: string[];
  onProgress?: (p: SyncProgress) => void;
  onWarning?: (w: ParseWarning) => void;
  /** commit after this many changed units (default BATCH_UNITS) */
  batchUnits?: number;
}

export interface SyncReport {
  units: number;
  unchanged: number;
  reread: number;
  appended: number;
  removed: number;
  failed: number;
  warnings: ParseWarning[];
  ms: number;
}

interface UnitRow {
  key: string;
  format: string;
  session_id: string | null;
  size: number | null;
  mtime_ms: number | null;
  version: string | null;
  offset: number | null;
  head_hash: string | null;
  tail_hash: string | null;
  state: string | null;
}

const EDGE_BYTES = 4096;
/** Commit after this much source read (or this many changed units): few commits, bounded loss on a kill. */
const BATCH_BYTES = 32 * 1024 * 1024;
const BATCH_UNITS = 2000;

/**
 * Hashes of a file's first bytes and of the bytes just before `offset`: when both still match, the
 * file grew by appending; otherwise it was rewritten and is re-read whole.
 */
async function edgeHashes(path: string, offset: number): Promise<{ head: string; tail: string } | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const read = async (from: number, len: number) => {
        const buf = Buffer.alloc(len);
        const { bytesRead } = await fh.read(buf, 0, len, from);
        return createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex');
      };
      const tailFrom = Math.max(0, offset - EDGE_BYTES);
      return { head: await read(0, Math.min(EDGE_BYTES, offset)), tail: await read(tailFrom, offset - tailFrom) };
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Units of a driver without IncrementalSource: one per listed session. A file that holds only that
 * session is versioned by size and mtime; a shared file (a database) by the session's update time.
 */
async function fallbackUnits(format: string, driver: SessionDriver): Promise<SourceUnit[]> {
  const infos = await driver.listSessions();
  const perPath = new Map<string, number>();
  for (const i of infos) if (i.path) perPath.set(i.path, (perPath.get(i.path) ?? 0) + 1);
  const units: SourceUnit[] = [];
  for (const i of infos) {
    const unit: SourceUnit = { key: `${format}:${i.id}`, sessionId: i.id, version: versionOf(i) };
    if (i.path && perPath.get(i.path) === 1) {
      try {
        const st = await stat(i.path);
        if (st.isFile()) {
          unit.path = i.path;
          unit.size = st.size;
          unit.mtimeMs = st.mtimeMs;
          delete unit.version;
        }
      } catch {
        // listed but gone: keep the row version
      }
    }
    units.push(unit);
  }
  return units;
}

function versionOf(i: SessionInfo): string {
  return `${i.updatedAt}|${i.messageCount}|${i.title ?? ''}`;
}

function unchanged(prev: UnitRow, u: SourceUnit): boolean {
  if (prev.session_id !== u.sessionId) return false;
  if (u.path !== undefined) return prev.size === (u.size ?? null) && prev.mtime_ms === (u.mtimeMs ?? null);
  return prev.version === (u.version ?? null);
}

export class IndexSync {
  readonly store: SqliteStore;
  constructor(store: SqliteStore) {
    this.store = store;
  }

  private upsertUnit(
    format: string,
    u: SourceUnit,
    read: { offset?: number; state?: string } | undefined,
    edges: { head: string; tail: string } | undefined,
    warnings: readonly ParseWarning[] | undefined,
  ): void {
    this.store
      .stmt(
        `INSERT INTO units (key, format, session_id, size, mtime_ms, version, offset, head_hash, tail_hash, state, indexed_at, warnings_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET format = excluded.format, session_id = excluded.session_id, size = excluded.size,
           mtime_ms = excluded.mtime_ms, version = excluded.version, offset = excluded.offset, head_hash = excluded.head_hash,
           tail_hash = excluded.tail_hash, state = excluded.state, indexed_at = excluded.indexed_at,
           warnings_json = excluded.warnings_json`,
      )
      .run(
        u.key,
        format,
        u.sessionId,
        u.size ?? null,
        u.mtimeMs ?? null,
        u.version ?? null,
        read?.offset ?? null,
        edges?.head ?? null,
        edges?.tail ?? null,
        read?.state ?? null,
        new Date().toISOString(),
        warnings?.length ? JSON.stringify(warnings) : null,
      );
  }

  async sync(sources: Sources, opts: SyncOptions = {}): Promise<SyncReport> {
    const started = performance.now();
    const report: SyncReport = { units: 0, unchanged: 0, reread: 0, appended: 0, removed: 0, failed: 0, warnings: [], ms: 0 };
    const warnAll = (ws: readonly ParseWarning[] | undefined) => {
      for (const w of ws ?? []) {
        report.warnings.push(w);
        opts.onWarning?.(w);
      }
    };
    // threadbase's own sessions live in this very database: never indexed into it again
    const formats = (opts.formats ?? sources.names()).filter((f) => f !== THREADBASE_SOURCE);
    const plan: { format: string; driver: SessionDriver; units: SourceUnit[] }[] = [];
    for (const format of formats) {
      try {
        const driver = sources.driver(format);
        const units = isIncrementalSource(driver) ? await driver.listUnits() : await fallbackUnits(format, driver);
        plan.push({ format, driver, units });
      } catch (error) {
        // A store that cannot be listed now keeps what the index has of it.
        warnAll([{ file: format, message: `could not list: ${(error as Error).message}` }]);
      }
    }
    const total = plan.reduce((n, p) => n + p.units.length, 0);
    const db = this.store.db;
    // While indexing: fewer, larger checkpoints and a larger page cache; several units per
    // transaction (each unit still whole: a sync killed mid-way loses at most the open batch).
    db.pragma('wal_autocheckpoint = 20000');
    db.pragma('cache_size = -65536');
    let pendingBytes = 0;
    let pendingUnits = 0;
    const begin = () => {
      if (!db.inTransaction) db.exec('BEGIN');
    };
    const commit = (force: boolean) => {
      if (db.inTransaction && (force || pendingBytes >= BATCH_BYTES || pendingUnits >= (opts.batchUnits ?? BATCH_UNITS))) {
        db.exec('COMMIT');
        pendingBytes = 0;
        pendingUnits = 0;
      }
    };
    let done = 0;
    try {
      for (const { format, driver, units } of plan) {
        const prevByKey = new Map(
          (this.store.stmt('SELECT * FROM units WHERE format = ?').all(format) as UnitRow[]).map((r) => [r.key, r]),
        );
        const seen = new Set<string>();
        const liveSessions = new Set(units.map((x) => x.sessionId));
        for (const u of units) {
          report.units++;
          seen.add(u.key);
          const prev = prevByKey.get(u.key);
          if (prev && unchanged(prev, u)) report.unchanged++;
          else {
            try {
              begin();
              await this.indexUnit(format, driver, u, prev, report, warnAll);
            } catch (error) {
              report.failed++;
              warnAll([{ file: u.path ?? u.key, id: u.sessionId, message: `not indexed: ${(error as Error).message}` }]);
            }
            pendingBytes += Math.max(0, (u.size ?? 0) - (prev?.offset ?? 0));
            pendingUnits++;
            commit(false);
          }
          opts.onProgress?.({ total, done: ++done, format });
        }
        // Sessions gone from their store leave the index.
        begin();
        for (const [key, row] of prevByKey) {
          if (seen.has(key)) continue;
          // A unit key may change (a new driver version) while its session lives on under another key.
          if (row.session_id && !liveSessions.has(row.session_id)) this.store.removeSessionNow(row.session_id);
          this.store.stmt('DELETE FROM units WHERE key = ?').run(key);
          report.removed++;
        }
      }
      begin();
      this.store
        .stmt(`INSERT INTO index_meta (key, value) VALUES ('last_sync', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
        .run(new Date().toISOString());
    } finally {
      commit(true);
      db.pragma('wal_autocheckpoint = 1000');
      db.pragma('cache_size = -2000');
    }
    db.pragma('wal_checkpoint(PASSIVE)');
    report.ms = performance.now() - started;
    return report;
  }

  /** One changed unit, inside the open batch; its own writes are one savepoint (all or nothing). */
  private async indexUnit(
    format: string,
    driver: SessionDriver,
    u: SourceUnit,
    prev: UnitRow | undefined,
    report: SyncReport,
    warnAll: (ws: readonly ParseWarning[] | undefined) => void,
  ): Promise<void> {
    const db = this.store.db;
    const incremental = isIncrementalSource(driver) ? driver : undefined;
    // A grown append-only file whose first bytes and bytes before the last offset are unchanged:
    // read only what was added.
    if (
      incremental &&
      u.appendOnly &&
      u.path &&
      prev?.offset &&
      prev.session_id === u.sessionId &&
      u.size !== undefined &&
      u.size > (prev.size ?? 0) &&
      prev.head_hash &&
      prev.tail_hash &&
      this.store.stmt('SELECT 1 FROM sessions WHERE id = ?').get(u.sessionId)
    ) {
      const edges = await edgeHashes(u.path, prev.offset);
      if (edges && edges.head === prev.head_hash && edges.tail === prev.tail_hash) {
        const read = await incremental.readUnit(u, { offset: prev.offset, ...(prev.state ? { state: prev.state } : {}) });
        if (read && !read.appended) return this.putRead(format, u, prev, read, report, warnAll);
        if (read?.appended) {
          const ok = db.transaction(() =>
            this.store.appendEntriesNow(u.sessionId, read.session.entries, {
              warnings: read.session.warnings ?? [],
              replaceLast: read.replaces ?? 0,
              info: read.session,
              leafId: read.session.leafId,
            }),
          );
          try {
            ok();
            warnAll(read.session.warnings);
            const after = read.offset !== undefined ? await edgeHashes(u.path, read.offset) : undefined;
            db.transaction(() => this.upsertUnit(format, u, read, after, undefined))();
            report.appended++;
            return;
          } catch {
            // The added part does not fit what the index has (a repeated id, a parent it lacks): read it whole.
          }
        }
      }
    }
    let read: UnitRead | undefined;
    if (incremental) read = await incremental.readUnit(u);
    else {
      const session = await driver.getSession(u.sessionId);
      read = session ? { session } : undefined;
    }
    if (!read) {
      db.transaction(() => {
        this.store.removeSessionNow(u.sessionId);
        this.store.stmt('DELETE FROM units WHERE key = ?').run(u.key);
      })();
      report.removed++;
      return;
    }
    return this.putRead(format, u, prev, read, report, warnAll);
  }

  private async putRead(
    format: string,
    u: SourceUnit,
    prev: UnitRow | undefined,
    read: UnitRead,
    report: SyncReport,
    warnAll: (ws: readonly ParseWarning[] | undefined) => void,
  ): Promise<void> {
    const db = this.store.db;
    const session: Session = read.session;
    // The index shares its database with threadbase's own store: never replace a session the store
    // made (same id, e.g. a conversion that kept the id) with the agent's copy.
    const owner = this.store
      .stmt(`SELECT s.source source, (SELECT count(*) FROM units WHERE session_id = s.id) units FROM sessions s WHERE s.id = ?`)
      .get(session.id) as { source: string; units: number } | undefined;
    if (owner && owner.source === THREADBASE_SOURCE && owner.units === 0) {
      warnAll([{ file: u.path ?? u.key, id: session.id, message: `not indexed: a threadbase session has the id ${session.id}` }]);
      report.failed++;
      return;
    }
    warnAll(session.warnings);
    const edges = u.path && read.offset ? await edgeHashes(u.path, read.offset) : undefined;
    db.transaction(() => {
      if (prev?.session_id && prev.session_id !== session.id) this.store.removeSessionNow(prev.session_id);
      this.store.putSessionNow({ ...session, source: session.source || format }, { keepSource: true, dropRaw: true });
      this.upsertUnit(format, { ...u, sessionId: session.id }, read, edges, session.warnings);
    })();
    report.reread++;
  }
}

/** When the index last finished a sync (ISO), or undefined if never. */
export function lastSync(store: SqliteStore): string | undefined {
  const row = store.stmt(`SELECT value FROM index_meta WHERE key = 'last_sync'`).get() as { value: string } | undefined;
  return row?.value;
}
