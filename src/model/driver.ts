/**
 * The one driver interface. Every agent format (`src/formats/<agent>`) and every store
 * (`src/stores/<backend>`) implements it; capability flags say what a driver can do, and the
 * conformance suite in `test/conformance` runs against each driver.
 *
 * Spec version: bump DRIVER_SPEC_VERSION when the interface changes shape.
 */
import { userInfo } from 'node:os';
import { ThreadbaseError } from './errors.js';
import type { PriceTable, ResponseStats } from './prices.js';
import type { Context, ContextOptions } from './tree.js';
import type { Entry, Message, MetadataEntry, Session, SessionInfo, SourceName, Usage } from './types.js';

export const DRIVER_SPEC_VERSION = 1;

export interface DriverCapabilities {
  read: boolean;
  /** create new sessions (writeSession) */
  write: boolean;
  /** append entries to an existing session */
  append: boolean;
  /** fork a session at an entry into a new session */
  fork: boolean;
  /** add an entry under an earlier entry of the same session (a branch in place) */
  branch: boolean;
  delete: boolean;
  /** setTitle */
  title: boolean;
  /** full-text search over entries */
  search: boolean;
  /**
   * writeSession writes a session's side chains (sub-agent work kept in the session, marked `sidechain`)
   * as the agent's own sub-agent sessions; convert passes them along the written path (withSideChains)
   */
  sideChains?: boolean;
}

/**
 * A project filter as a request names it: the directory without trailing separators, as agents record a
 * working directory (`/w/app/` named no session of /w/app); the root stays '/'. Empty: no filter.
 */
export function projectFilterOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  return value.replace(/(?<=[^:\\/])[\\/]+$/, '');
}

export interface SessionFilter {
  source?: SourceName;
  /** exact working directory */
  project?: string;
  /** ISO time; sessions updated at or after */
  since?: string;
  /** ISO time; sessions updated at or before */
  until?: string;
  /** substring of the title or the first user message */
  text?: string;
  /** only sessions whose parent is this id (sub-agents, forks) */
  parentId?: string;
  limit?: number;
}

export interface GetMessagesOptions {
  leafId?: string;
  /** For a forked session, prepend the context of its parent up to the fork point. */
  includeAncestors?: boolean;
}

export interface ForkOptions {
  /** The entry to fork at (inclusive); default the current leaf. */
  at?: string;
  title?: string;
}

export interface WriteOptions {
  /** Keep the session's id instead of minting a new one (only when free). */
  keepId?: boolean;
  /**
   * With keepId: the id to write under when the session's own is taken (a server project's alias of
   * an id another project holds), chosen in the same transaction as the write; when that is taken
   * too, a fresh one.
   */
  idIfTaken?: string;
}

/** What costBuckets groups by. */
export type CostBucketKey = 'day' | 'model' | 'project' | 'source';

/** One costBuckets group: key '' for no project, 'unknown' for records that name no model. */
export interface CostBucket {
  key: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  cost: number;
  responses: number;
}

export interface UsageTotals extends Usage {
  cost: number;
  messages: number;
}

export interface SearchHit {
  sessionId: string;
  entryId: string;
  source: SourceName;
  project?: string;
  role?: string;
  snippet: string;
  score: number;
  timestamp: string;
}

export interface SearchOptions extends SessionFilter {
  role?: string;
  tool?: string;
}

/** One session's cost as SessionDriver.sessionCosts prices it. */
export interface SessionCost {
  source: string;
  id: string;
  /** recorded costs plus the rest priced by the table */
  cost: number;
  /** models with unrecorded tokens the table has no price for (left out of `cost`) */
  unpricedModels: string[];
  /** `cost` by the model that billed it ('' for records that name none; an advisor request under its own model) */
  costByModel?: Record<string, number>;
}

export interface SessionDriver {
  /** 'claude', 'pi', 'opencode', 'sqlite', 'postgres', 'memory', ... */
  readonly name: string;
  readonly capabilities: DriverCapabilities;
  /**
   * What the driver reads out of the same bytes, as a number (default 0): bumped when it learns to
   * read more (a field it skipped before), so that the local index reads the agent's store whole again once.
   */
  readonly readerVersion?: number;

  listSessions(filter?: SessionFilter): Promise<SessionInfo[]>;
  /** The whole session, entries included; undefined when there is no such id. */
  getSession(id: string): Promise<Session | undefined>;
  /** One entry by id, found through an index or the session's own file, never by scanning every session. */
  getEntry(sessionId: string, entryId: string): Promise<Entry | undefined>;
  /** Entries from the root to entryId, inclusive. */
  getAncestry(sessionId: string, entryId: string): Promise<Entry[]>;
  /** The context at the leaf, worded as this agent words it for the model. */
  getContext(sessionId: string, opts?: ContextOptions): Promise<Context>;
  /**
   * getContext of a session already read (this driver's getSession), without reading it again: the
   * viewer holds the session it shows.
   */
  contextOf?(session: Session, opts?: ContextOptions): Context;
  getMessages(sessionId: string, opts?: GetMessagesOptions): Promise<Message[]>;
  usage(filter?: SessionFilter): Promise<UsageTotals>;

  /** Writes a whole session as a new session; returns where it went. */
  writeSession?(session: Session, opts?: WriteOptions): Promise<SessionInfo>;
  /**
   * Writes a sub-agent session (one with `parentToolCallId`, the call in its parent that ran it, as the
   * source named it) under `parent`, a session this driver wrote, linked as the agent links its own
   * sub-agents. Absent: the agent keeps no sub-agent sessions (convert leaves them out and says so).
   */
  writeChildSession?(parent: SessionInfo, child: Session): Promise<SessionInfo>;
  /**
   * Appends entries in order; each must name a parent the session has or that comes before it in
   * `entries`, else it is refused (`orphan_entry`). An id given twice in `entries` is refused
   * (`duplicate_entry`). In threadbase's stores (memory, SQLite, PostgreSQL, remote) an entry whose id
   * the session has already is left out when it equals the stored one as JSON (a re-send: a repeated
   * push is harmless) and refused when it differs (ThreadbaseError `duplicate_entry`, naming the
   * session and the entry; a remote store's server answers 409), nothing of that call appended.
   */
  appendEntries?(sessionId: string, entries: Entry[]): Promise<void>;
  /**
   * Replaces the session stored under `sessionId` by `session`, its header and its entries whole (kept
   * under `sessionId`), in one step: afterwards the store holds exactly `session.entries`; a write that
   * fails leaves the stored session as it was, never gone nor half written. NotFoundError when there is
   * no such session. What `push --force` does to a server's copy whose entries changed locally.
   */
  replaceSession?(sessionId: string, session: Session): Promise<SessionInfo>;
  forkSession?(sessionId: string, opts?: ForkOptions): Promise<SessionInfo>;
  setTitle?(sessionId: string, title: string): Promise<void>;
  deleteSession?(sessionId: string): Promise<void>;
  search?(query: string, opts?: SearchOptions): Promise<SearchHit[]>;
  /**
   * Appends one entry under the session's last entry outside sidechains, found and written atomically
   * (stores shared by several server processes, where one process's memory of the last entry goes
   * stale); returns the entry as stored, its parentId set. Absent: append with appendEntries.
   */
  appendToChain?(sessionId: string, entry: Entry): Promise<Entry>;
  /**
   * What sessions (`sessionIds`, default every one) cost as `stats --by session` prices them: each
   * session's own records (a copy's too), the costs agents recorded kept, the rest priced request by
   * request with `prices` (long-prompt band, fast mode, place of inference, advisors). Only for
   * stores that keep usage per request; absent: no per-request pricing here.
   */
  sessionCosts?(prices: PriceTable, sessionIds?: readonly string[]): Promise<SessionCost[]>;
  /**
   * What responses cost together and their tokens, as `stats` counts them (recorded costs, the rest
   * priced with `prices`, a response copied into several sessions once), computed in the store:
   * `source` and `project` select sessions, `since` and `until` select responses by the time of the
   * record that counts them (a session spanning either edge counts only its responses inside).
   * `sessionIds`: only these sessions (the store's own ids; a server project's). Absent: the caller
   * reads each session once and counts it (ResponseCounter).
   */
  costSummary?(filter: SessionFilter, prices: PriceTable, sessionIds?: readonly string[]): Promise<ResponseStats>;
  /**
   * Each session's metadata entries of `type` (MetadataEntry.type), in the session's order, for the
   * sessions that have any: what a listing filter needs of their history without reading each whole.
   */
  metadataEntries?(type: string): Promise<Map<string, MetadataEntry[]>>;
  /**
   * costSummary grouped by the counted record's day, its model (an advisor request's under its own),
   * the session's project or its source: each bucket's tokens, cost (recorded, the rest priced) and
   * responses, a copied response once among the sessions, only responses in since/until. What a chart
   * over many sessions needs without reading them. Absent: the caller reads or estimates per session.
   * `timeZone` (an IANA name): the zone whose calendar days 'day' counts; absent, UTC's.
   */
  costBuckets?(
    by: CostBucketKey,
    filter: SessionFilter,
    prices: PriceTable,
    sessionIds?: readonly string[],
    timeZone?: string,
  ): Promise<CostBucket[]>;
  /**
   * The same store seen as another tenant (a server project), scoped by the store itself: nothing a
   * tenant asks for returns another's. Absent: the server wraps the store (ProjectScopedDriver).
   */
  forTenant?(tenant: string): SessionDriver;
  /** The shell command that resumes this session in its own agent (printed by `threadbase handoff`). */
  resumeCommand?(session: SessionInfo): string;
  /**
   * When resumeCommand's command will not work on this machine as it is (the agent has no use of the
   * model the session recorded): the command to run instead, and why.
   */
  resumeAdvice?(session: SessionInfo): Promise<ResumeAdvice | undefined>;

  close?(): Promise<void>;
}

/** Where drivers find each agent's data; tests point these at temp dirs. */
export interface DriverEnv {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where a driver reports what an operation that returns nothing could not do (default console.warn). */
  warn?: (message: string) => void;
}

/**
 * This process's: $HOME (%USERPROFILE% on Windows), else the user's home in the passwd database (a
 * service or `env -i` may run with no HOME). Neither is an error: '/' was taken, and every agent's
 * data looked for (and threadbase's index made) under /.
 */
export function defaultDriverEnv(): DriverEnv {
  const home = process.env.HOME || process.env.USERPROFILE || passwdHome();
  if (!home)
    throw new ThreadbaseError(
      'no_home',
      'no home directory: HOME is not set and the user has none in the passwd database; set HOME (agents keep their sessions under it)',
    );
  return { home, env: process.env };
}

/** The user's home as the passwd database gives it ('' for a user it does not know); os.homedir() would give an empty $HOME. */
function passwdHome(): string {
  try {
    return userInfo().homedir;
  } catch {
    return '';
  }
}

/**
 * What the local index (`threadbase sync`) reads incrementally. Optional: a driver without it is
 * indexed through listSessions/getSession, a changed session re-read whole.
 */
export interface SourceUnit {
  /** Stable key of the unit: a file path, or `<db path>#<row id>`. */
  key: string;
  /** The session the unit holds. */
  sessionId: string;
  /** A file unit: its path, size and modification time. */
  path?: string;
  size?: number;
  mtimeMs?: number;
  /**
   * A row unit: its update time or another version that changes when the row does. A file unit may
   * have one too, for what changes a read without changing the file (Codex: the thread's /rename title).
   */
  version?: string;
  /** The file only ever grows by whole lines (JSONL), so a grown file can be read from its last byte. */
  appendOnly?: boolean;
}

export interface UnitRead {
  session: Session;
  /**
   * When read from an offset: session.entries are only the entries read (session holds the whole
   * session's listing fields), and the first `replaces` of them replace the last `replaces` entries
   * read before (a driver may re-read a few lines before the offset to settle links across it).
   */
  appended?: boolean;
  replaces?: number;
  /** The byte up to which whole lines were read. */
  offset?: number;
  /** When appended: the first line read (warnings of earlier reads from there on are replaced). */
  fromLine?: number;
  /** The driver's own state at `offset`, handed back on the next read from there (opaque to the index). */
  state?: string;
}

/** Where a grown append-only unit is read from: the last read's offset and state. */
export interface ReadFrom {
  offset: number;
  state?: string;
}

export interface IncrementalSource {
  /**
   * Every unit, without reading what the listing need not. `known`: the units the index holds, by
   * key; a file unit whose size and time are unchanged may take its session id from there instead of
   * reading the file again.
   */
  listUnits(known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]>;
  /**
   * Reads the unit; with `from`, only what was added after from.offset (or the whole unit, without
   * `appended`, when the driver cannot resume from there).
   */
  readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined>;
}

/**
 * A cheap fingerprint of everything a driver's listSessions reads (for a database: the database and
 * its WAL file's identity, size and times). Equal stamps mean an equal listing, so the index skips
 * the listing of a store whose stamp has not moved since its last complete sync. Optional, for
 * drivers without IncrementalSource whose full listing is costly (it parses the store).
 */
export interface StampedListing {
  /** undefined: no stamp now (the listing must be done) */
  listingStamp(): Promise<string | undefined>;
}

export function hasListingStamp(d: unknown): d is StampedListing {
  return typeof d === 'object' && d !== null && typeof (d as Partial<StampedListing>).listingStamp === 'function';
}

export function isIncrementalSource(d: unknown): d is IncrementalSource {
  return (
    typeof d === 'object' &&
    d !== null &&
    typeof (d as Partial<IncrementalSource>).listUnits === 'function' &&
    typeof (d as Partial<IncrementalSource>).readUnit === 'function'
  );
}

/** What `threadbase handoff` prints beside a resume command that would fail here as it is. */
export interface ResumeAdvice {
  /** the command to run instead */
  command: string;
  /** the model it resumes on (the agent's configured one), where there is one */
  model?: string;
  /** why */
  note: string;
}
