/**
 * `threadbase sync`: indexes every local agent store into one SQLite store ($THREADBASE_HOME/index.db)
 * where each session keeps its own source. Incremental by source unit (a file, or a database row):
 * an unchanged unit is not read; an append-only file that grew is read from its last indexed byte
 * (when its driver offers IncrementalSource and the bytes before that offset are unchanged); anything
 * else that changed is re-read whole. Many units per transaction, each unit whole, so a sync killed
 * mid-way leaves a sound index that the next sync completes.
 */
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Sources } from '../../formats/registry.js';
import { type DriverEnv, hasListingStamp, isIncrementalSource, type SessionDriver, type SourceUnit } from '../../model/driver.js';
import type { ParseWarning, SessionInfo } from '../../model/types.js';
import { threadbaseHome } from '../open.js';
import { THREADBASE_SOURCE } from '../shared.js';
import type { SqliteStore } from '../sqlite/index.js';
import { edgeHashes, prepareRead, type ReadJob, type ReadResult, readWhole, type WholeRead } from './read.js';
import { withInitialOldSpace } from './worker-heap.js';

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
  /** 0: read every unit in this thread; 1: in a worker thread (default: a worker when many units are read whole and there is a second core) */
  workers?: number;
  /**
   * Read every unit whole again, changed or not (what an older version did not index). Marked
   * first, so a sync killed mid-way leaves the rest for the next one to read.
   */
  full?: boolean;
  /**
   * How long to wait for another writer of the index (default SYNC_BUSY_TIMEOUT_MS); a unit that
   * cannot be written in time counts as failed and is left for the next sync.
   */
  busyTimeoutMs?: number;
  /**
   * A freshness check of these stores made just before (IndexSync.freshness): the listings it made
   * are used instead of listing those stores again. A unit another sync indexed since is still seen
   * (each unit's row is read again inside the write transaction).
   */
  checked?: readonly SourceFreshness[];
}

export interface SyncReport {
  units: number;
  unchanged: number;
  reread: number;
  appended: number;
  removed: number;
  failed: number;
  /** units read whole in the worker thread */
  inWorker: number;
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

/** Commit after this much source read (or this many changed units): few commits, bounded loss on a kill. */
const BATCH_BYTES = 32 * 1024 * 1024;
const BATCH_UNITS = 2000;
const FTS_HASH_BYTES = 16 * 1024 * 1024;
/** While syncing, the WAL is copied into the database once it holds this much (not after every 4 MB). */
const CHECKPOINT_BYTES = 80 * 1024 * 1024;
/** How long a sync waits for another writer of the index (a store write waits 5 s). */
const SYNC_BUSY_TIMEOUT_MS = 120_000;
const FTS_CRISIS_MERGE = 64;
/** FTS5's default automerge, restored after a sync */
const FTS_AUTOMERGE = 4;

/**
 * Units of a driver without IncrementalSource: one per listed session. A file that holds only that
 * session is versioned by size and mtime; a shared file (a database) by the session's update time.
 * The sessions listed come back too: that listing is a full one, worth reusing to answer.
 */
async function fallbackUnits(format: string, driver: SessionDriver): Promise<{ units: SourceUnit[]; infos: SessionInfo[] }> {
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
  return { units, infos };
}

/** fn for every store (at once: a listing may wait on a read), in the order given; a store that throws gives its error. */
async function eachStore<T extends object>(
  formats: readonly string[],
  fn: (format: string) => Promise<T>,
): Promise<({ format: string; error: Error } | ({ format: string; error?: undefined } & T))[]> {
  return Promise.all(
    formats.map(async (format) => {
      try {
        return { format, ...(await fn(format)) };
      } catch (error) {
        return { format, error: error as Error };
      }
    }),
  );
}

/** Whether the index answers for one store, found by listing only. */
export interface SourceFreshness {
  format: string;
  /** synced at least once, and the listing shows nothing new, changed or gone since */
  fresh: boolean;
  /** the sessions the check listed, when that was a full listing (a store without a cheap one): reuse it */
  listed?: SessionInfo[];
  /** for a store synced before: how many of its units are new, changed or gone since */
  changed?: number;
  /** the store could not be listed */
  error?: Error;
}

/** A store as a sync or the freshness check sees it (IndexSync.look). */
type StoreLook =
  | { holds: true; stamp?: string }
  | { holds: false; stamp?: string; units: SourceUnit[]; infos?: SessionInfo[]; rows: Map<string, UnitRow> };

/** What each freshness answer saw, for a sync that follows it (SyncOptions.checked). */
const looksOf = new WeakMap<SourceFreshness, StoreLook>();

function versionOf(i: SessionInfo): string {
  return `${i.updatedAt}|${i.messageCount}|${i.title ?? ''}`;
}

function unchanged(prev: UnitRow, u: SourceUnit): boolean {
  if (prev.session_id !== u.sessionId) return false;
  // a file unit may carry a version too: something outside the file that changes what is read
  if (u.path !== undefined)
    return prev.size === (u.size ?? null) && prev.mtime_ms === (u.mtimeMs ?? null) && prev.version === (u.version ?? null);
  return prev.version === (u.version ?? null);
}

/**
 * Units read whole in a worker thread only when there are this many, of this much (starting one
 * costs 100-200 ms: a cold sync of 10 MB took 455-506 ms with it against 356-369 ms without; of
 * 50 MB, 1.27 s against 1.41 s).
 */
const WORKER_MIN_UNITS = 8;
const WORKER_MIN_BYTES = 16 * 1024 * 1024;
/** Reads handed to the worker ahead of the writes: at most this much source at once (bounds memory). */
const AHEAD_BYTES = 8 * 1024 * 1024;
const AHEAD_UNITS = 8;
/**
 * A smaller heap than V8's default makes the worker collect sooner (peak memory of a sync stays
 * bounded); a session too big for it fails the worker, and this thread reads the rest itself.
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 160 };
/**
 * The worker's old generation starts at this size (V8 starts a new isolate's small and collects it
 * whenever it doubles: ≈ 100 mark-compacts per 200 MB of sessions, whose marking threads took as
 * much CPU as the parsing). 64 MB: a 1 GB cold sync 18.7-20.9 s against 29.4-29.8 s, peak RSS
 * 308-366 MB against 289-321 MB; 32 or 48 MB gained little (bench/RESULTS.md). At 20 MB it gains nothing
 * (worker forced: 6.5-9.5 s with it against 5.5-8.4 s without, 8 runs each interleaved, two shared cores).
 * Set for this worker's isolate only (worker-heap.ts).
 */
const WORKER_INITIAL_OLD_SPACE_MB = 64;

/** One worker thread that reads and prepares whole units (read-worker.ts) while this thread writes. */
class ReadPool {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (r: WholeRead | undefined) => void; reject: (e: Error) => void }>();
  private seq = 0;
  private failed: Error | undefined;

  constructor(env: DriverEnv) {
    const workerData: DriverEnv = { home: env.home, env: { ...env.env } };
    if (import.meta.url.endsWith('.ts')) {
      // Run from the TypeScript sources (tests, bench): the worker registers tsx before loading its module.
      const tsx = pathToFileURL(
        createRequire(import.meta.url)
          .resolve('tsx/esm/api')
          .replace(/\.cjs$/, '.mjs'),
      ).href;
      const main = new URL('./read-worker.ts', import.meta.url).href;
      const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(main)}); })`;
      this.worker = withInitialOldSpace(
        WORKER_INITIAL_OLD_SPACE_MB,
        () => new Worker(boot, { eval: true, workerData, resourceLimits: WORKER_LIMITS }),
      );
    } else
      this.worker = withInitialOldSpace(
        WORKER_INITIAL_OLD_SPACE_MB,
        () => new Worker(new URL('./read-worker.js', import.meta.url), { workerData, resourceLimits: WORKER_LIMITS }),
      );
    this.worker.on('message', (r: ReadResult) => {
      const w = this.waiting.get(r.seq);
      if (!w) return;
      this.waiting.delete(r.seq);
      if (r.error !== undefined) w.reject(new Error(r.error));
      else w.resolve(r.read);
    });
    const fail = (error: Error) => {
      this.failed = error;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`read worker exited with code ${code}`)));
  }

  read(format: string, unit: SourceUnit): Promise<WholeRead | undefined> {
    if (this.failed) return Promise.reject(this.failed);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.postMessage({ seq, format, unit } satisfies ReadJob);
    });
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}

export class IndexSync {
  readonly store: SqliteStore;
  constructor(store: SqliteStore) {
    this.store = store;
  }

  /**
   * The store's listing stamp now (StampedListing), and whether the index holds the store as it was
   * at that stamp: its last complete sync recorded the same stamp over the units it still has.
   */
  private async stampNow(format: string, driver: SessionDriver): Promise<{ stamp?: string; holds: boolean }> {
    if (!hasListingStamp(driver)) return { holds: false };
    let stamp: string | undefined;
    try {
      stamp = await driver.listingStamp();
    } catch {
      stamp = undefined;
    }
    if (stamp === undefined) return { holds: false };
    return { stamp, holds: indexMeta(this.store, `${STAMP}:${format}`) === `${stamp}|${this.unitCount(format)}` };
  }

  /**
   * Marks every unit of these stores as never read, and forgets their stamps: the next sync reads them
   * whole. With `sources`, records the readers that will read them (see readerChanged).
   */
  forgetReads(formats: readonly string[], sources?: Sources): void {
    const units = this.store.stmt(
      'UPDATE units SET size = NULL, mtime_ms = NULL, version = NULL, offset = NULL WHERE format = ?',
    );
    this.store.db.transaction(() => {
      for (const f of formats) {
        units.run(f);
        deleteIndexMeta(this.store, `${STAMP}:${f}`);
        if (sources) setIndexMeta(this.store, `${READER}:${f}`, readerMark(sources.driver(f)));
      }
    })();
  }

  /**
   * Whether an agent has written, since the last sync of one of these stores, where agents were
   * writing last: a store with a listing stamp (a database) by its stamp; the others by the files the
   * index saw change last and their folders and the folders above (a new session file changes its
   * folder's time, a new project folder its parent's). A few stats: `search` and `stats` ask it inside
   * their window, so that a turn just taken in an agent is found at once. An older session an agent
   * resumes is seen when the window has passed (or after `sync`).
   */
  async recentlyWritten(sources: Sources, formats: readonly string[]): Promise<boolean> {
    for (const format of formats) {
      const driver = sources.driver(format);
      const { stamp, holds } = await this.stampNow(format, driver);
      if (stamp !== undefined) {
        if (!holds) return true;
        continue;
      }
      const since = lastSync(this.store, format);
      if (since === undefined) return true;
      const rows = this.store
        .stmt(
          `SELECT key, size, mtime_ms FROM units WHERE format = ? AND mtime_ms IS NOT NULL ORDER BY mtime_ms DESC LIMIT ${RECENT_UNITS}`,
        )
        .all(format) as { key: string; size: number | null; mtime_ms: number }[];
      const folders = new Set(rows.flatMap((r) => [dirname(r.key), dirname(dirname(r.key))]));
      const changed = await Promise.all([
        ...rows.map(async (r) => {
          const st = await stat(r.key).catch(() => undefined);
          return !st || st.size !== r.size || st.mtimeMs !== r.mtime_ms;
        }),
        ...[...folders].map(async (f) => {
          const st = await stat(f).catch(() => undefined);
          return !st || st.mtimeMs > Date.parse(since);
        }),
      ]);
      if (changed.some(Boolean)) return true;
    }
    return false;
  }

  /**
   * A store as a sync or the freshness check sees it: its stamp (taken before the listing, so that a
   * change made while listing moves it again and is seen next time) and, unless the stamp holds, its
   * units (with the sessions, when that was a full listing) and the index's rows of it by key.
   */
  private async look(format: string, driver: SessionDriver): Promise<StoreLook> {
    const { stamp, holds } = await this.stampNow(format, driver);
    if (holds) return { holds, stamp };
    const rows = this.unitRows(format);
    if (!isIncrementalSource(driver)) return { holds, stamp, rows, ...(await fallbackUnits(format, driver)) };
    const known = new Map<string, SourceUnit>();
    for (const r of rows.values()) {
      if (r.session_id === null) continue;
      known.set(r.key, {
        key: r.key,
        sessionId: r.session_id,
        ...(r.size !== null ? { size: r.size } : {}),
        ...(r.mtime_ms !== null ? { mtimeMs: r.mtime_ms } : {}),
        ...(r.version !== null ? { version: r.version } : {}),
      });
    }
    return { holds, stamp, rows, units: await driver.listUnits(known) };
  }

  private unitRows(format: string): Map<string, UnitRow> {
    return new Map((this.store.stmt('SELECT * FROM units WHERE format = ?').all(format) as UnitRow[]).map((r) => [r.key, r]));
  }

  private unitCount(format: string): number {
    return (this.store.stmt('SELECT count(*) n FROM units WHERE format = ?').get(format) as { n: number }).n;
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

  /** Units that differ from what the index holds of this format (new, changed or gone). */
  private static changedUnits(rows: ReadonlyMap<string, UnitRow>, units: readonly SourceUnit[]): number {
    let n = 0;
    const gone = new Set(rows.keys());
    for (const u of units) {
      const p = rows.get(u.key);
      if (!p || !unchanged(p, u)) n++;
      gone.delete(u.key);
    }
    return n + gone.size;
  }

  /**
   * For each store (default every one), whether the index answers for it: it was synced (a sync of
   * that store alone counts) and its listing shows no change since. Listing only, nothing is read.
   */
  async freshness(sources: Sources, formats?: readonly string[]): Promise<SourceFreshness[]> {
    const answers = await eachStore(
      (formats ?? sources.names()).filter((f) => f !== THREADBASE_SOURCE),
      async (format): Promise<Omit<SourceFreshness, 'format'> & { seen?: StoreLook }> => {
        // read by an older reader: what it holds may lack what the running one reads
        const synced = lastSync(this.store, format) !== undefined && !readerChanged(this.store, sources, format);
        const driver = sources.driver(format);
        // never synced: a cheap listing would tell nothing; a full one is still worth keeping
        if (!synced && isIncrementalSource(driver)) return { fresh: false };
        const seen = await this.look(format, driver);
        if (seen.holds) return { fresh: synced, ...(synced ? { changed: 0 } : {}) };
        const changed = IndexSync.changedUnits(seen.rows, seen.units);
        return {
          fresh: synced && changed === 0,
          ...(synced ? { changed } : {}),
          ...(seen.infos ? { listed: seen.infos } : {}),
          seen,
        };
      },
    );
    return answers.map((a) => {
      if (a.error) return { format: a.format, fresh: false, error: a.error };
      const { seen, ...answer } = a;
      if (seen) looksOf.set(answer, seen);
      return answer;
    });
  }

  async sync(sources: Sources, opts: SyncOptions = {}): Promise<SyncReport> {
    const started = performance.now();
    // The time recorded is when this sync began listing: a write into a store after that (which the
    // listing may have missed) is then newer than the store's sync time (see writtenSinceSync).
    const startedAt = new Date().toISOString();
    const report: SyncReport = {
      units: 0,
      unchanged: 0,
      reread: 0,
      appended: 0,
      removed: 0,
      failed: 0,
      inWorker: 0,
      warnings: [],
      ms: 0,
    };
    const warnAll = (ws: readonly ParseWarning[] | undefined) => {
      for (const w of ws ?? []) {
        report.warnings.push(w);
        opts.onWarning?.(w);
      }
    };
    // threadbase's own sessions live in this very database: never indexed into it again
    const formats = (opts.formats ?? sources.names()).filter((f) => f !== THREADBASE_SOURCE);
    // after an upgrade that reads more of each record: every unit of that store again, once
    const reread = opts.full ? formats : formats.filter((f) => readerChanged(this.store, sources, f));
    if (reread.length > 0) this.forgetReads(reread, sources);
    const listed = await eachStore(formats, async (format) => {
      const driver = sources.driver(format);
      // a store marked for reading again just now has other rows than the check saw
      const checked = reread.includes(format) ? undefined : opts.checked?.find((c) => c.format === format);
      const seen = checked && looksOf.get(checked);
      return { driver, ...(seen ?? (await this.look(format, driver))) };
    });
    const plan: {
      format: string;
      driver: SessionDriver;
      units: SourceUnit[];
      stamp: string | undefined;
      rows: Map<string, UnitRow>;
    }[] = [];
    /** stores whose stamp shows no change since their last sync: not listed, every unit unchanged */
    const still: { format: string; units: number }[] = [];
    for (const l of listed) {
      // A store that cannot be listed now keeps what the index has of it.
      if (l.error) warnAll([{ file: l.format, message: `could not list: ${l.error.message}` }]);
      else if (l.holds) still.push({ format: l.format, units: this.unitCount(l.format) });
      else plan.push({ format: l.format, driver: l.driver, units: l.units, stamp: l.stamp, rows: l.rows });
    }
    const total = plan.reduce((n, p) => n + p.units.length, 0) + still.reduce((n, p) => n + p.units, 0);
    const db = this.store.db;
    // Another sync of this index holds the write lock for a whole batch, longer than a store write
    // on a loaded machine: a sync waits for it (up to 2 min) rather than failing as "locked".
    const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? Math.max(busyTimeout, SYNC_BUSY_TIMEOUT_MS)}`);
    let pendingBytes = 0;
    let pendingUnits = 0;
    /** writes begun by this sync (a sync that finds nothing changed writes nothing, not even its time) */
    let writes = 0;
    const begin = () => {
      writes++;
      // IMMEDIATE: the write lock first, so another sync of this index is waited for (busy_timeout)
      // instead of failing with "database is locked" when a read transaction would upgrade.
      if (!db.inTransaction) db.exec('BEGIN IMMEDIATE');
    };
    // A sync's time is recorded when it changed the index, or the first time: one that finds nothing
    // changed takes no write lock and leaves no WAL to copy back when the index is closed (a warm sync
    // of a small history took 2-9 ms more with that write than without). Reading commands that sync
    // when the time is older than their limit (fresh.ts) then check the listing again, which is as cheap.
    const recordTime = (key: string, changed: boolean) => {
      if (!changed && indexMeta(this.store, key) !== undefined) return;
      begin();
      setIndexMeta(this.store, key, startedAt);
    };
    const commit = (force: boolean) => {
      if (db.inTransaction && (force || pendingBytes >= BATCH_BYTES || pendingUnits >= (opts.batchUnits ?? BATCH_UNITS))) {
        db.exec('COMMIT');
        pendingBytes = 0;
        pendingUnits = 0;
      }
    };
    // A unit's row as it is now, inside this sync's write transaction: another sync of this index may
    // have indexed the unit since this one listed the rows, and must not be indexed over again.
    const unitNow = (u: SourceUnit, format: string): UnitRow | undefined => {
      const row = this.store.stmt('SELECT * FROM units WHERE key = ?').get(u.key) as UnitRow | undefined;
      return row?.format === format ? row : undefined;
    };
    // Set for writing before the first store with a change: a sync that finds nothing changed writes
    // no more than the sync times (each setting below is a write of its own).
    let tuned = false;
    const tuneForWrites = () => {
      begin();
      if (tuned) return;
      tuned = true;
      // FTS5 keeps up to this much of new terms in memory before writing a segment (default 1 MB)
      db.exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', ${FTS_HASH_BYTES})`);
      // No merging of FTS5 segments while writing (a cold sync merged what it had just written over
      // and over; with the store's 16 KB pages a cold sync takes 14-26 % less CPU, bench/RESULTS.md).
      // FTS5's crisis merge still bounds the segments per level, and the default is back for later
      // writes, which merge what is left a little at a time (a sync killed mid-way leaves it to the next).
      db.exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`);
      // Segments on one level before FTS5 merges them at once (default 16): a cold sync flushes a
      // segment per batch, so at 1 GB the default rewrote the index twice in 2.7 s commits (18 % of
      // the sync); 64 leaves them to the incremental automerge later, and search is no slower over
      // them (bench/RESULTS.md). Kept after the sync: set back to 16, the next small write would
      // merge the whole index at once.
      db.exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('crisismerge', ${FTS_CRISIS_MERGE})`);
    };
    let done = 0;
    let pool: ReadPool | undefined;
    const progress = (format: string) => opts.onProgress?.({ total, done: ++done, format });
    try {
      // While indexing: fewer, larger checkpoints and a larger page cache; several units per
      // transaction (each unit still whole: a sync killed mid-way loses at most the open batch).
      db.pragma(`wal_autocheckpoint = ${Math.ceil(CHECKPOINT_BYTES / (db.pragma('page_size', { simple: true }) as number))}`);
      db.pragma('cache_size = -65536');
      for (const { format, units: n } of still) {
        report.units += n;
        report.unchanged += n;
        done += n;
        if (n > 0) opts.onProgress?.({ total, done, format });
        // (a store threadbase wrote into since its last sync gets a newer time, so it counts as synced)
        recordTime(`${LAST_SYNC}:${format}`, writtenSinceSync(this.store, format));
      }
      for (const { format, driver, units, stamp, rows: prevByKey } of plan) {
        const failedBefore = report.failed;
        const writesBefore = writes;
        if (IndexSync.changedUnits(prevByKey, units) > 0) tuneForWrites();
        const seen = new Set<string>();
        const liveSessions = new Set(units.map((x) => x.sessionId));
        const afterWrite = (u: SourceUnit, prev: UnitRow | undefined) => {
          pendingBytes += Math.max(0, (u.size ?? 0) - (prev?.offset ?? 0));
          pendingUnits++;
          commit(false);
          progress(format);
        };
        const fail = (u: SourceUnit, error: unknown) => {
          report.failed++;
          warnAll([{ file: u.path ?? u.key, id: u.sessionId, message: `not indexed: ${(error as Error).message}` }]);
        };
        // Unchanged units are skipped, grown ones appended to here; the rest are read whole below.
        const whole: SourceUnit[] = [];
        for (const u of units) {
          report.units++;
          seen.add(u.key);
          const prev = prevByKey.get(u.key);
          if (prev && unchanged(prev, u)) {
            report.unchanged++;
            progress(format);
            continue;
          }
          try {
            begin();
            const cur = unitNow(u, format);
            if (cur && unchanged(cur, u)) {
              report.unchanged++;
              progress(format);
              continue;
            }
            if (await this.appendUnit(format, driver, u, cur, report, warnAll)) {
              afterWrite(u, cur);
              continue;
            }
          } catch (error) {
            fail(u, error);
            afterWrite(u, prev);
            continue;
          }
          whole.push(u);
        }
        // Whole reads: parsed in a worker thread while this one writes, when there are enough of them.
        const wholeBytes = whole.reduce((n, u) => n + (u.size ?? 0), 0);
        // By default whenever there is a second core: even on two shared ones a cold sync takes 15-25 %
        // less time so (for about a third more CPU; bench/RESULTS.md).
        const wanted =
          opts.workers === undefined
            ? availableParallelism() >= 2 && whole.length >= WORKER_MIN_UNITS && wholeBytes >= WORKER_MIN_BYTES
            : opts.workers > 0 && whole.length > 0;
        if (!pool && wanted) {
          try {
            pool = new ReadPool(sources.env);
          } catch {
            pool = undefined;
          }
        }
        const usePool = pool;
        const readOne = (u: SourceUnit): Promise<WholeRead | undefined> =>
          usePool
            ? usePool.read(format, u).then(
                (r) => {
                  report.inWorker++;
                  return r;
                },
                // a worker that failed (or could not load) leaves the reading to this thread
                () => readWhole(format, driver, u),
              )
            : readWhole(format, driver, u);
        const ahead: { u: SourceUnit; read: Promise<WholeRead | undefined> }[] = [];
        let aheadBytes = 0;
        let next = 0;
        while (next < whole.length || ahead.length) {
          while (
            next < whole.length &&
            (ahead.length === 0 || (usePool && ahead.length < AHEAD_UNITS && aheadBytes < AHEAD_BYTES))
          ) {
            const u = whole[next++] as SourceUnit;
            const read = readOne(u);
            // settled later, in order; a rejection here must not be unhandled meanwhile
            read.catch(() => undefined);
            ahead.push({ u, read });
            aheadBytes += u.size ?? 0;
          }
          const { u, read } = ahead.shift() as { u: SourceUnit; read: Promise<WholeRead | undefined> };
          aheadBytes -= u.size ?? 0;
          let prev = prevByKey.get(u.key);
          try {
            begin();
            prev = unitNow(u, format);
            if (prev && unchanged(prev, u)) {
              report.unchanged++;
              progress(format);
              continue;
            }
            this.putWhole(format, u, prev, await read, report, warnAll);
          } catch (error) {
            fail(u, error);
          }
          afterWrite(u, prev);
        }
        // Sessions gone from their store leave the index.
        for (const [key, row] of prevByKey) {
          if (seen.has(key)) continue;
          begin();
          // A unit key may change (a new driver version) while its session lives on under another key.
          if (row.session_id && !liveSessions.has(row.session_id)) this.store.removeSessionNow(row.session_id);
          this.store.stmt('DELETE FROM units WHERE key = ?').run(key);
          report.removed++;
        }
        // this store alone is up to date: reading commands may answer for it from the index
        recordTime(`${LAST_SYNC}:${format}`, writes > writesBefore || writtenSinceSync(this.store, format));
        // its stamp, unless a unit failed (the next sync lists the store and tries that unit again)
        const stampKey = `${STAMP}:${format}`;
        const stampNow = stamp !== undefined && report.failed === failedBefore ? `${stamp}|${this.unitCount(format)}` : undefined;
        if (stampNow !== indexMeta(this.store, stampKey)) {
          begin();
          if (stampNow !== undefined) setIndexMeta(this.store, stampKey, stampNow);
          else deleteIndexMeta(this.store, stampKey);
        }
      }
      // the time every store was last synced (a sync of some formats only leaves it)
      if (!opts.formats || sources.names().every((f) => f === THREADBASE_SOURCE || opts.formats?.includes(f)))
        recordTime(LAST_SYNC, writes > 0);
    } finally {
      commit(true);
      await pool?.close();
      db.pragma('wal_autocheckpoint = 1000');
      db.pragma('cache_size = -2000');
      try {
        // also after a sync killed mid-way, which left it off
        if (tuned || automergeOff(db))
          db.exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', ${FTS_AUTOMERGE})`);
      } catch {
        // (the index locked by another writer) the next sync restores it; the sync's own error matters
      }
      db.pragma(`busy_timeout = ${busyTimeout}`);
    }
    if (tuned) db.pragma('wal_checkpoint(PASSIVE)');
    report.ms = performance.now() - started;
    return report;
  }

  /**
   * A grown append-only file whose first bytes and bytes before the last offset are unchanged: only
   * what was added is read and appended, in one savepoint. False when the unit must be read whole.
   */
  private async appendUnit(
    format: string,
    driver: SessionDriver,
    u: SourceUnit,
    prev: UnitRow | undefined,
    report: SyncReport,
    warnAll: (ws: readonly ParseWarning[] | undefined) => void,
  ): Promise<boolean> {
    const incremental = isIncrementalSource(driver) ? driver : undefined;
    if (
      !incremental ||
      !u.appendOnly ||
      !u.path ||
      !prev?.offset ||
      prev.session_id !== u.sessionId ||
      u.size === undefined ||
      u.size <= (prev.size ?? 0) ||
      !prev.head_hash ||
      !prev.tail_hash ||
      !this.store.stmt('SELECT 1 FROM sessions WHERE id = ?').get(u.sessionId)
    )
      return false;
    const edges = await edgeHashes(u.path, prev.offset);
    if (!edges || edges.head !== prev.head_hash || edges.tail !== prev.tail_hash) return false;
    const read = await incremental.readUnit(u, { offset: prev.offset, ...(prev.state ? { state: prev.state } : {}) });
    if (!read) return false;
    if (!read.appended) {
      this.putWhole(format, u, prev, await prepareRead(format, u, read), report, warnAll);
      return true;
    }
    const after = read.offset !== undefined ? await edgeHashes(u.path, read.offset) : undefined;
    try {
      this.store.db
        .transaction(() => {
          this.store.appendEntriesNow(u.sessionId, read.session.entries, {
            warnings: read.session.warnings ?? [],
            ...(read.fromLine !== undefined ? { warningsFromLine: read.fromLine } : {}),
            replaceLast: read.replaces ?? 0,
            info: read.session,
            leafId: read.session.leafId,
          });
          this.upsertUnit(format, u, read, after, read.session.warnings);
        })
        .immediate();
    } catch {
      // The added part does not fit what the index has (a parent it lacks, or an id it already stores:
      // appendEntriesNow refuses both): read it whole. A repeated id is not replaced in place, as which
      // record of an id counts, and what else that moves (the leaf, a tree the reader relinks), is the
      // reader's rule: the whole read applies it, and prepareSession keeps the last of any id left twice.
      return false;
    }
    warnAll(read.session.warnings);
    report.appended++;
    return true;
  }

  /** Stores a unit read whole (or removes its session when the read found none), in one savepoint. */
  private putWhole(
    format: string,
    u: SourceUnit,
    prev: UnitRow | undefined,
    read: WholeRead | undefined,
    report: SyncReport,
    warnAll: (ws: readonly ParseWarning[] | undefined) => void,
  ): void {
    const db = this.store.db;
    if (!read) {
      db.transaction(() => {
        this.store.removeSessionNow(u.sessionId);
        this.store.stmt('DELETE FROM units WHERE key = ?').run(u.key);
      }).immediate();
      report.removed++;
      return;
    }
    const { info } = read.prepared;
    // The index shares its database with threadbase's own store: never replace a session the store
    // made (same id, e.g. a conversion that kept the id) with the agent's copy.
    const owner = this.store
      .stmt(`SELECT s.source source, (SELECT count(*) FROM units WHERE session_id = s.id) units FROM sessions s WHERE s.id = ?`)
      .get(info.id) as { source: string; units: number } | undefined;
    if (owner && owner.source === THREADBASE_SOURCE && owner.units === 0) {
      warnAll([{ file: u.path ?? u.key, id: info.id, message: `not indexed: a threadbase session has the id ${info.id}` }]);
      report.failed++;
      return;
    }
    warnAll(read.warnings);
    // Inside the open batch but without a savepoint of its own: FTS5 flushes its pending terms into a
    // new segment at every savepoint, so one per unit makes thousands of tiny segments to merge. A
    // unit that fails half-written is taken out again instead.
    try {
      if (prev?.session_id && prev.session_id !== info.id) this.store.removeSessionNow(prev.session_id);
      this.store.putPreparedNow(read.prepared);
      this.upsertUnit(format, { ...u, sessionId: info.id }, read, read.edges, read.warnings);
    } catch (error) {
      this.store.removeSessionNow(info.id);
      this.store.stmt('DELETE FROM units WHERE key = ?').run(u.key);
      throw error;
    }
    report.reread++;
  }
}

/** Whether FTS5's automerge is off in the index (a sync sets it so while writing). */
function automergeOff(db: SqliteStore['db']): boolean {
  const row = db.prepare(`SELECT v FROM entries_fts_config WHERE k = 'automerge'`).get() as { v: number } | undefined;
  return row !== undefined && Number(row.v) === 0;
}

/** A value the index keeps about itself (index_meta), or undefined. */
function indexMeta(store: SqliteStore, key: string): string | undefined {
  return (store.stmt(`SELECT value FROM index_meta WHERE key = ?`).get(key) as { value: string } | undefined)?.value;
}

const LAST_SYNC = 'last_sync';
/** `stamp:<format>`: the listing stamp at the store's last complete sync, and its unit count then */
const STAMP = 'stamp';

function setIndexMeta(store: SqliteStore, key: string, value: string): void {
  store
    .stmt(`INSERT INTO index_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
    .run(key, value);
}

function deleteIndexMeta(store: SqliteStore, key: string): void {
  store.stmt('DELETE FROM index_meta WHERE key = ?').run(key);
}

/**
 * What the index keeps of each entry, as a number: bumped when it keeps more than before (as schema
 * 7, 8 and 11 did) or decides otherwise what it keeps (which copy of a response counts), so that every
 * store is read whole again once and the entries indexed before follow it.
 * 2: on a tie of sessions' starts and costs, a copy in a fork counts after one in its parent.
 * 3: the agent records a ResumeContext reads are kept (Codex's base instructions, compactions).
 */
export const INDEX_READER_VERSION = 3;

/** `reader:<format>`: the readers (the index's and the driver's versions) the store was last read whole with */
const READER = 'reader';

function readerMark(driver: SessionDriver): string {
  return `${INDEX_READER_VERSION}.${driver.readerVersion ?? 0}`;
}

/**
 * Whether the store was read by other readers than the running ones (an index from before reader
 * versions counts so): the next sync reads all of it again, and until then the index does not answer for it.
 */
export function readerChanged(store: SqliteStore, sources: Sources, format: string): boolean {
  return indexMeta(store, `${READER}:${format}`) !== readerMark(sources.driver(format));
}

/** How many of a store's most recently changed files `recentlyWritten` looks at. */
const RECENT_UNITS = 16;

/** `written:<format>`: when threadbase last wrote into that agent's store (markWritten) */
const WRITTEN = 'written';

/**
 * Records that threadbase has just written into an agent's store (a new session, an append, a fork),
 * so that reading commands sync it before answering, however recent its last sync.
 */
export function markWritten(store: SqliteStore, format: string): void {
  setIndexMeta(store, `${WRITTEN}:${format}`, new Date().toISOString());
}

/** Whether threadbase wrote into the store since the sync that last began listing it (or it was never synced). */
export function writtenSinceSync(store: SqliteStore, format: string): boolean {
  const written = indexMeta(store, `${WRITTEN}:${format}`);
  if (written === undefined) return false;
  const synced = lastSync(store, format);
  return synced === undefined || written >= synced;
}

/**
 * When the index last began a sync that completed (ISO), or undefined if never: of every store, or of the one
 * given (a sync of every store counts for each; an index from before per-store times has only that).
 */
export function lastSync(store: SqliteStore, format?: string): string | undefined {
  const get = (key: string) => indexMeta(store, key);
  if (format === undefined) return get(LAST_SYNC);
  const own = get(`${LAST_SYNC}:${format}`);
  const all = get(LAST_SYNC);
  return own === undefined || (all !== undefined && all > own) ? all : own;
}
