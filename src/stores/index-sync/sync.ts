/**
 * `threadbase sync`: indexes every local agent store into one SQLite store ($THREADBASE_HOME/index.db)
 * where each session keeps its own source. Incremental by source unit (a file, or a database row):
 * an unchanged unit is not read; an append-only file that grew is read from its last indexed byte
 * (when its driver offers IncrementalSource); anything else that changed is re-read whole. One
 * transaction per unit, so a sync killed mid-way leaves an index the next sync completes.
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
}

const HEAD_BYTES = 4096;

/** Hash of a file's first bytes: a grown file whose head changed was rewritten, not appended to. */
async function headHash(path: string, upTo: number): Promise<string | undefined> {
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(HEAD_BYTES, upTo));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return createHash('sha1').update(buf.subarray(0, bytesRead)).digest('hex');
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
    offset: number | undefined,
    head: string | undefined,
    warnings: ParseWarning[] | undefined,
  ): void {
    this.store.db
      .prepare(
        `INSERT INTO units (key, format, session_id, size, mtime_ms, version, offset, head_hash, indexed_at, warnings_json)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET format = excluded.format, session_id = excluded.session_id, size = excluded.size,
           mtime_ms = excluded.mtime_ms, version = excluded.version, offset = excluded.offset, head_hash = excluded.head_hash,
           indexed_at = excluded.indexed_at, warnings_json = excluded.warnings_json`,
      )
      .run(
        u.key,
        format,
        u.sessionId,
        u.size ?? null,
        u.mtimeMs ?? null,
        u.version ?? null,
        offset ?? null,
        head ?? null,
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
    const formats = opts.formats ?? sources.names();
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
    // Fewer, larger checkpoints while indexing (each one syncs the file); one at the end.
    this.store.db.pragma('wal_autocheckpoint = 20000');
    let done = 0;
    const db = this.store.db;
    const known = db.prepare('SELECT * FROM units WHERE format = ?');
    for (const { format, driver, units } of plan) {
      const prevByKey = new Map((known.all(format) as UnitRow[]).map((r) => [r.key, r]));
      const seen = new Set<string>();
      const liveSessions = new Set(units.map((x) => x.sessionId));
      for (const u of units) {
        report.units++;
        seen.add(u.key);
        const prev = prevByKey.get(u.key);
        try {
          if (prev && unchanged(prev, u)) {
            report.unchanged++;
          } else {
            await this.indexUnit(format, driver, u, prev, report, warnAll);
          }
        } catch (error) {
          report.failed++;
          warnAll([{ file: u.path ?? u.key, id: u.sessionId, message: `not indexed: ${(error as Error).message}` }]);
        }
        opts.onProgress?.({ total, done: ++done, format });
      }
      // Sessions gone from their store leave the index.
      for (const [key, row] of prevByKey) {
        if (seen.has(key)) continue;
        db.transaction(() => {
          // A unit key may change (a new driver version) while its session lives on under another key.
          if (row.session_id && !liveSessions.has(row.session_id)) this.store.removeSessionNow(row.session_id);
          db.prepare('DELETE FROM units WHERE key = ?').run(key);
        })();
        report.removed++;
      }
    }
    db.prepare(
      `INSERT INTO index_meta (key, value) VALUES ('last_sync', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    ).run(new Date().toISOString());
    this.store.db.pragma('wal_autocheckpoint = 1000');
    this.store.db.pragma('wal_checkpoint(PASSIVE)');
    report.ms = performance.now() - started;
    return report;
  }

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
    // Grown append-only file with the same head: read only what was added.
    if (
      incremental &&
      u.appendOnly &&
      u.path &&
      prev?.offset &&
      prev.session_id === u.sessionId &&
      u.size !== undefined &&
      u.size > (prev.size ?? 0) &&
      prev.head_hash &&
      (await headHash(u.path, prev.offset)) === prev.head_hash &&
      this.store.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(u.sessionId)
    ) {
      const read = await incremental.readUnit(u, prev.offset);
      if (read && !read.appended) return this.putRead(format, u, prev, read, report, warnAll);
      if (read?.appended) {
        warnAll(read.session.warnings);
        db.transaction(() => {
          this.store.appendEntriesNow(u.sessionId, read.session.entries, { warnings: read.session.warnings ?? [] });
          this.upsertUnit(format, u, read.offset, prev.head_hash ?? undefined, undefined);
        })();
        report.appended++;
        return;
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
        db.prepare('DELETE FROM units WHERE key = ?').run(u.key);
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
    const owner = db
      .prepare(
        `SELECT s.source source, (SELECT count(*) FROM units WHERE session_id = s.id) units FROM sessions s WHERE s.id = ?`,
      )
      .get(session.id) as { source: string; units: number } | undefined;
    if (owner && owner.source === THREADBASE_SOURCE && owner.units === 0) {
      warnAll([{ file: u.path ?? u.key, id: session.id, message: `not indexed: a threadbase session has the id ${session.id}` }]);
      report.failed++;
      return;
    }
    warnAll(session.warnings);
    const head = u.path && read.offset ? await headHash(u.path, read.offset) : undefined;
    db.transaction(() => {
      if (prev?.session_id && prev.session_id !== session.id) this.store.removeSessionNow(prev.session_id);
      this.store.putSessionNow({ ...session, source: session.source || format }, { keepSource: true, dropRaw: true });
      this.upsertUnit(format, { ...u, sessionId: session.id }, read?.offset, head, session.warnings);
    })();
    report.reread++;
  }
}

/** When the index last finished a sync (ISO), or undefined if never. */
export function lastSync(store: SqliteStore): string | undefined {
  const row = store.db.prepare(`SELECT value FROM index_meta WHERE key = 'last_sync'`).get() as { value: string } | undefined;
  return row?.value;
}
