/**
 * The Zed driver (read-only): agent threads in `threads.db` under Zed's data dir
 * (`$XDG_DATA_HOME/zed/threads/threads.db`, default `~/.local/share/zed/…`; on macOS
 * `~/Library/Application Support/Zed/threads/threads.db`). Opened read-only; rows are JSON or
 * zstd-compressed JSON, decompressed with fzstd (Node 20's zlib has no zstd).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { decompress } from 'fzstd';
import type { DriverCapabilities, DriverEnv, SessionFilter, SourceUnit, UnitRead } from '../../model/driver.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { applyFilter, DriverBase, matchesSessionText, READ_ONLY_CAPABILITIES, statStamp } from '../shared/base.js';
import { parseJson } from '../shared/jsonl.js';
import { columnsOf, openDatabase, requireTables } from '../shared/sqlite.js';
import { isObject, type JsonObject, SOURCE, type ThreadRow, threadToSession } from './thread.js';

export function zedThreadsDbCandidates(env: DriverEnv): string[] {
  const xdg = env.env.XDG_DATA_HOME || join(env.home, '.local', 'share');
  return [
    join(xdg, 'zed', 'threads', 'threads.db'),
    join(env.home, 'Library', 'Application Support', 'Zed', 'threads', 'threads.db'),
  ];
}

interface RawRow extends ThreadRow {
  data_type: string;
  data: Buffer;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A row's thread JSON, or why it could not be read. */
export function decodeThread(dataType: string, data: Buffer | string): { thread?: JsonObject; error?: string } {
  try {
    let text: string;
    if (dataType === 'zstd') text = utf8.decode(decompress(typeof data === 'string' ? Buffer.from(data) : data));
    else if (dataType === 'json') text = typeof data === 'string' ? data : utf8.decode(data);
    else return { error: `unknown data_type ${JSON.stringify(dataType)}` };
    const v: unknown = parseJson(text);
    return isObject(v) ? { thread: v } : { error: 'thread data is not a JSON object' };
  } catch (err) {
    return { error: `cannot decode ${dataType} thread data: ${(err as Error).message}` };
  }
}

export class ZedDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 1: row and thread times in one form (UTC, `Z`); 2: a message without a Zed id is named after its
   * thread (`<thread id>:m<n>`), no copy of another thread's
   */
  readonly readerVersion = 2;
  readonly capabilities: DriverCapabilities = READ_ONLY_CAPABILITIES;
  private cache = new Map<string, { updatedAt: string; session: Session }>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  get dbPath(): string | undefined {
    return zedThreadsDbCandidates(this.env).find((p) => existsSync(p) && statSync(p).isFile());
  }

  private withDb<T>(fn: (db: Database.Database, file: string) => T): T | undefined {
    const file = this.dbPath;
    if (!file) return undefined;
    // Never write to the user's database: read-only, and no WAL checkpoint on close.
    const db = openDatabase(file, { readonly: true, fileMustExist: true });
    try {
      requireTables(db, file, ['threads'], 'Zed');
      return fn(db, file);
    } finally {
      db.close();
    }
  }

  /** The columns of a thread row this Zed version has besides the thread data. */
  private rowColumns(db: Database.Database): string[] {
    const cols = columnsOf(db, 'threads');
    return [
      'id',
      'summary',
      'updated_at',
      'data_type',
      ...['created_at', 'parent_id', 'folder_paths'].filter((c) => cols.has(c)),
    ];
  }

  private select(db: Database.Database, where = '', params: unknown[] = []): RawRow[] {
    return db.prepare(`SELECT ${[...this.rowColumns(db), 'data'].join(', ')} FROM threads ${where}`).all(...params) as RawRow[];
  }

  /** A row as a session (decoded each time: readUnit keeps nothing, so a long sync stays small). */
  private decode(row: RawRow, file: string): Session {
    const warnings: ParseWarning[] = [];
    const { thread, error } = decodeThread(row.data_type, row.data);
    if (error) warnings.push({ file, id: row.id, message: error });
    const { data: _d, data_type: _t, ...meta } = row;
    return threadToSession(meta, thread, file, warnings);
  }

  private toSession(row: RawRow, file: string): Session {
    const hit = this.cache.get(row.id);
    if (hit && hit.updatedAt === row.updated_at) return hit.session;
    const session = this.decode(row, file);
    this.cache.set(row.id, { updatedAt: row.updated_at, session });
    return session;
  }

  /**
   * IncrementalSource: one unit per thread row, versioned by its small columns and the size of its
   * data, none decoded (a listing decodes every thread).
   */
  async listUnits(): Promise<SourceUnit[]> {
    return (
      this.withDb((db, file) => {
        const cols = this.rowColumns(db);
        const rows = db.prepare(`SELECT ${cols.join(', ')}, length(data) AS data_length FROM threads`).all() as Record<
          string,
          unknown
        >[];
        return rows.map((r) => ({
          key: `${file}#${String(r.id)}`,
          sessionId: String(r.id),
          version: JSON.stringify([...cols.slice(1), 'data_length'].map((c) => r[c] ?? null)),
        }));
      }) ?? []
    );
  }

  async readUnit(unit: SourceUnit): Promise<UnitRead | undefined> {
    return this.withDb((db, file) => {
      const [row] = this.select(db, 'WHERE id = ?', [unit.sessionId]);
      return row ? { session: this.decode(row, file) } : undefined;
    });
  }

  /** StampedListing: the database and its WAL file (a listing decodes every thread). */
  async listingStamp(): Promise<string> {
    const file = this.dbPath;
    return statStamp(file ? [file, `${file}-wal`] : zedThreadsDbCandidates(this.env));
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const sessions =
      this.withDb((db, file) =>
        this.select(db).flatMap((row) => {
          const s = this.toSession(row, file);
          const { entries: _e, warnings: _w, raw: _r, ...info } = s;
          return matchesSessionText(s, s.title, filter?.text) ? [info] : [];
        }),
      ) ?? [];
    return applyFilter(sessions, { ...filter, text: undefined });
  }

  async getSession(id: string): Promise<Session | undefined> {
    return this.withDb((db, file) => {
      const [row] = this.select(db, 'WHERE id = ?', [id]);
      return row ? this.toSession(row, file) : undefined;
    });
  }
}
