/**
 * What every driver derives the same way from getSession: entry lookup, ancestry, context,
 * messages and usage. Drivers override these where they have an index that answers faster.
 */
import { createHash } from 'node:crypto';
import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { CountedResponses } from '../../model/copies.js';
import type {
  DriverCapabilities,
  GetMessagesOptions,
  SessionDriver,
  SessionFilter,
  SourceUnit,
  UsageTotals,
} from '../../model/driver.js';
import { AmbiguousIdError, NotFoundError } from '../../model/errors.js';
import { resumeContextOf } from '../../model/resume.js';
import { buildContext, type Context, type ContextOptions, indexEntries, messageText, pathTo } from '../../model/tree.js';
import type { Entry, Message, Session, SessionInfo } from '../../model/types.js';

/** The capabilities of a driver that only reads its agent's store. */
export const READ_ONLY_CAPABILITIES: DriverCapabilities = Object.freeze({
  read: true,
  write: false,
  append: false,
  fork: false,
  branch: false,
  delete: false,
  title: false,
  search: false,
});

/**
 * A folder's entries, or none when it cannot be read. Synchronous, as every listing walk here is:
 * over folders the system has cached (a sync after the last one), a readdir or stat on the thread
 * takes microseconds where one through libuv's pool takes tens (stat of 3000 files: 15-20 ms against
 * 58-61 ms with 16 at once), and the walks awaited each folder in turn anyway.
 */
export function dirEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/**
 * A sync's units of session files: each file stat'ed (on the thread, see dirEntries) and made a unit
 * by `unitOf`, in the order given. A file gone meanwhile, one `unitOf` cannot read or gives no unit
 * for, is left out: the full listing reports it.
 */
export async function fileUnits<T>(
  items: readonly T[],
  pathOf: (item: T) => string,
  unitOf: (item: T, st: Stats) => Promise<SourceUnit | undefined> | SourceUnit | undefined,
): Promise<SourceUnit[]> {
  const units: (Promise<SourceUnit | undefined> | SourceUnit | undefined)[] = [];
  for (const item of items) {
    try {
      const unit = unitOf(item, statSync(pathOf(item)));
      // a read unitOf started: its failure leaves the unit out, as a failed stat does
      units.push(unit instanceof Promise ? unit.catch(() => undefined) : unit);
    } catch {
      // gone meanwhile
    }
  }
  return (await Promise.all(units)).filter((u): u is SourceUnit => u !== undefined);
}

/**
 * A listing stamp (StampedListing) from the files a listing reads: each one's inode, size and
 * modification time in nanoseconds, or its absence. A file rewritten, replaced, grown or removed moves
 * the stamp. Not the change time: SQLite, opening a database even read-only, changes its WAL file's.
 * An empty SQLite WAL file counts as absent: a read-only open creates one, the last writer removes it.
 */
export function statStamp(paths: readonly string[]): string {
  const hash = createHash('sha256');
  for (const p of paths) {
    let part = `${p}\0-`;
    try {
      const st = statSync(p, { bigint: true });
      if (!(st.size === 0n && p.endsWith('-wal'))) part = `${p}\0${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      // absent
    }
    hash.update(part).update('\n');
  }
  return hash.digest('hex');
}

export abstract class DriverBase implements SessionDriver {
  abstract readonly name: string;
  abstract readonly capabilities: DriverCapabilities;
  abstract listSessions(filter?: SessionFilter): Promise<SessionInfo[]>;
  abstract getSession(id: string): Promise<Session | undefined>;

  /** How this agent words summaries for the model; formats override. */
  protected contextOptions(_session: Session): ContextOptions {
    return {};
  }

  protected async requireSession(id: string): Promise<Session> {
    const s = await this.getSession(id);
    if (!s) throw new NotFoundError(`${this.name} session`, id);
    return s;
  }

  async getEntry(sessionId: string, entryId: string): Promise<Entry | undefined> {
    const s = await this.getSession(sessionId);
    return s ? indexEntries(s.entries).byId.get(entryId) : undefined;
  }

  async getAncestry(sessionId: string, entryId: string): Promise<Entry[]> {
    const s = await this.requireSession(sessionId);
    const index = indexEntries(s.entries);
    if (!index.byId.has(entryId)) throw new NotFoundError('entry', entryId, { file: s.path });
    return pathTo(index, entryId);
  }

  /** The context the session's agent sends on resume (its registered ResumeContext), else the plain one. */
  async getContext(sessionId: string, opts: ContextOptions = {}): Promise<Context> {
    return this.contextOf(await this.requireSession(sessionId), opts);
  }

  contextOf(s: Session, opts: ContextOptions = {}): Context {
    const agent = resumeContextOf(s.source);
    return agent ? agent(s, opts) : buildContext(s, { ...this.contextOptions(s), ...opts });
  }

  async getMessages(sessionId: string, opts: GetMessagesOptions = {}): Promise<Message[]> {
    const s = await this.requireSession(sessionId);
    const own = buildContext(s, { ...this.contextOptions(s), leafId: opts.leafId }).messages;
    if (!opts.includeAncestors || !s.parentId) return own;
    const parent = await this.getSession(s.parentId);
    if (!parent) return own;
    // A fork that copied its history already starts with the parent's messages.
    if (s.entries.some((e) => parent.entries.some((p) => p.id === e.id))) return own;
    const upTo = s.parentEntryId && parent.entries.some((e) => e.id === s.parentEntryId) ? s.parentEntryId : undefined;
    const before = await this.getMessages(parent.id, { leafId: upTo, includeAncestors: true });
    return [...before, ...own];
  }

  /**
   * The tokens, recorded cost and responses of the sessions `filter` selects, a response copied into
   * several of them (a fork's copy of its parent's, a conversion kept beside its original) once, as
   * the stores' usage() and `stats` count them (CountedResponses).
   */
  async usage(filter?: SessionFilter): Promise<UsageTotals> {
    const counted = new CountedResponses();
    for (const info of await this.listSessions(filter)) {
      const s = await this.getSession(info.id);
      if (s) counted.add(s);
    }
    return counted.totals();
  }
}

/** Applies a SessionFilter to listed sessions (for drivers with no query language of their own). */
export function matchesFilter(s: SessionInfo, f: SessionFilter = {}): boolean {
  if (f.source && s.source !== f.source) return false;
  if (f.project && s.project !== f.project) return false;
  if (f.since && s.updatedAt < f.since) return false;
  if (f.until && s.updatedAt > f.until) return false;
  if (f.parentId && s.parentId !== f.parentId) return false;
  if (f.text && !(s.title ?? '').toLowerCase().includes(f.text.toLowerCase())) return false;
  return true;
}

/**
 * The order every listing gives: newest first, equal times by id (as the SQLite and PostgreSQL stores
 * order them), so that a listing from the index and one from the files are the same.
 */
export function newestFirst(a: SessionInfo, b: SessionInfo): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The one session an id or prefix names among candidates, by the rule of Sources.resolve (an exact
 * id first, else the one id that starts with it); NotFoundError or AmbiguousIdError else. The web
 * viewer's routes name sessions by it too.
 */
export function pickSession(candidates: SessionInfo[], idOrPrefix: string): SessionInfo {
  const sorted = [...candidates].sort(newestFirst);
  const exact = sorted.filter((s) => s.id === idOrPrefix);
  if (exact.length === 1) return exact[0] as SessionInfo;
  const matches = exact.length > 1 ? exact : sorted.filter((s) => s.id.startsWith(idOrPrefix));
  if (matches.length === 0) throw new NotFoundError('session', idOrPrefix);
  if (matches.length > 1)
    throw new AmbiguousIdError(
      idOrPrefix,
      matches.map((s) => `${s.source}:${s.id}`),
    );
  return matches[0] as SessionInfo;
}

export function applyFilter(list: SessionInfo[], f: SessionFilter = {}): SessionInfo[] {
  const out = list.filter((s) => matchesFilter(s, f)).sort(newestFirst);
  return f.limit ? out.slice(0, f.limit) : out;
}

/**
 * The listing of a driver that reads its sessions whole to list them: their infos (entries, leaf,
 * raw records and warnings left out), filtered by title or first prompt, then as applyFilter orders.
 */
export function listLoadedSessions(sessions: readonly Session[], filter: SessionFilter = {}): SessionInfo[] {
  const infos = sessions
    .filter((s) => matchesSessionText(s, s.title, filter.text))
    .map(({ entries: _e, warnings: _w, raw: _r, leafId: _l, ...info }) => info);
  return applyFilter(infos, { ...filter, text: undefined });
}

/** SessionFilter.text matches the title or the first user message (matchesFilter looks at titles only). */
export function matchesSessionText(s: Pick<Session, 'entries'>, title: string | undefined, text: string | undefined): boolean {
  if (!text) return true;
  const needle = text.toLowerCase();
  if ((title ?? '').toLowerCase().includes(needle)) return true;
  const first = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  return first?.kind === 'message' && messageText(first.message).toLowerCase().includes(needle);
}
