/**
 * OpenCode's own records (sst/opencode `Session.Info`, `MessageV2.Info`, `MessageV2.Part`) as
 * loosely typed JSON, the id scheme, and where OpenCode keeps its data. One session's data is
 * held as `{info, messages: [{info, parts}]}`, the shape of `opencode export`; the SQLite rows and
 * the legacy JSON files are read into it and written from it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DriverEnv } from '../../model/driver.js';
import type { SourceName } from '../../model/types.js';

export const SOURCE = 'opencode';
/** The OpenCode version whose schema threadbase writes (recorded in a written session's `version`). */
export const WRITTEN_VERSION = '1.18.33';

/**
 * An agent keeping OpenCode's records: OpenCode itself, or a fork of it with its own data folder,
 * database name and agent names (its format folder describes it and registers its source name
 * with registerOpenCodeRecords). Everything else (schema, parts, ids) is OpenCode's.
 */
export interface OpenCodeFlavor {
  /** the source name its sessions are listed under */
  source: SourceName;
  /** its name in messages, e.g. 'OpenCode' */
  label: string;
  /** the folder under `$XDG_DATA_HOME` holding its data */
  dataDir: string;
  /** its database file in that folder */
  dbFile: string;
  /** the variable that names another database file */
  dbEnv: string;
  /** the databases of other release channels beside it */
  channelDb: RegExp;
  /** the file in a repository's common git directory caching its project id */
  gitCacheFile: string;
  /** the version recorded in a session threadbase writes */
  writtenVersion: string;
  /** its default primary agent, named on the messages threadbase writes */
  agent: string;
  /** the command that opens a session */
  command: string;
  /**
   * whether a session threadbase writes keeps its own last time beside the time of the write (its
   * time_updated) in the row's `metadata.threadbase`, read back by updatedTimeOf: Kilo deletes sessions
   * by time_updated (its retention), so that one must be recent while threadbase shows the session's own
   */
  keepsOwnLastTime?: boolean;
}

export const OPENCODE: OpenCodeFlavor = {
  source: SOURCE,
  label: 'OpenCode',
  dataDir: 'opencode',
  dbFile: 'opencode.db',
  dbEnv: 'OPENCODE_DB',
  channelDb: /^opencode-[A-Za-z0-9._-]+\.db$/,
  gitCacheFile: 'opencode',
  writtenVersion: WRITTEN_VERSION,
  agent: 'build',
  command: 'opencode',
};

/** The source names whose entries' `raw` holds OpenCode records (OpenCode's and its forks'). */
const RECORD_SOURCES = new Set<string>([SOURCE]);

/** Marks a fork's source name as keeping OpenCode's records, so its entries are written back from them. */
export function registerOpenCodeRecords(source: SourceName): void {
  RECORD_SOURCES.add(source);
}

/** Whether an entry read from `source` holds OpenCode records in its `raw`. */
export function holdsOpenCodeRecords(source: string | undefined): boolean {
  return source !== undefined && RECORD_SOURCES.has(source);
}

export type Json = Record<string, unknown>;

export interface OcMessage {
  /** MessageV2.Info: id, sessionID, role, time, … */
  info: Json;
  /** MessageV2.Part[] ordered by id */
  parts: Json[];
}

/** One session in OpenCode's export shape, plus the project it belongs to where known. */
export interface OcSessionData {
  /** Session.Info: id, slug, projectID, directory, parentID, title, version, time, tokens, cost, … */
  info: Json;
  messages: OcMessage[];
  project?: { id: string; worktree: string; vcs?: string };
  /** For a sub-agent session: the call id of the parent's task tool that ran it. */
  parentToolCallId?: string;
}

export function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const obj = (v: unknown): Json | undefined => (isJson(v) ? v : undefined);

/** Milliseconds since the epoch as ISO 8601 (OpenCode stores times as epoch ms). */
export function isoOf(ms: unknown, fallback = new Date(0).toISOString()): string {
  const n = num(ms);
  // Past ±8.64e15 ms a Date is invalid and toISOString throws: such a time is damage, not a time.
  return n === undefined || Math.abs(n) > 8.64e15 ? fallback : new Date(n).toISOString();
}

/**
 * A session's last time (epoch ms) as threadbase reads it: the session's own last time kept in the info's
 * `metadata.threadbase.lastUpdated` while `time.updated` is still the time threadbase wrote it
 * (`writtenAt`; encode.ts, a flavor with keepsOwnLastTime); else `time.updated` (a later one is the
 * agent's: the session went on there).
 */
export function updatedTimeOf(info: Json): unknown {
  const updated = obj(info.time)?.updated;
  const kept = obj(obj(info.metadata)?.threadbase);
  const writtenAt = num(kept?.writtenAt);
  return writtenAt !== undefined && num(updated) === writtenAt ? (num(kept?.lastUpdated) ?? updated) : updated;
}

// ---- ids: prefix + 12 hex digits of (ms * 0x1000 + counter), bit-inverted for descending ids,
// then 14 random base62 characters (sst/opencode src/id/id.ts).

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
let lastMs = 0;
let counter = 0;

function randomBase62(n: number): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[(bytes[i] as number) % 62];
  return out;
}

export type IdPrefix = 'ses' | 'msg' | 'prt';

/** A new id in OpenCode's scheme; `ses` ids descend (newest sorts first), `msg`/`prt` ascend. */
export function newId(prefix: IdPrefix, at = Date.now()): string {
  if (at !== lastMs) {
    lastMs = at;
    counter = 0;
  }
  counter++;
  let value = BigInt(at) * 0x1000n + BigInt(counter);
  if (prefix === 'ses') value = ~value;
  let hex = '';
  for (let i = 0; i < 6; i++)
    hex += Number((value >> BigInt(40 - 8 * i)) & 0xffn)
      .toString(16)
      .padStart(2, '0');
  return `${prefix}_${hex}${randomBase62(14)}`;
}

const ADJECTIVES = ['brave', 'calm', 'clever', 'eager', 'gentle', 'jolly', 'lucky', 'neon', 'quiet', 'swift'];
const NOUNS = ['eagle', 'circuit', 'harbor', 'meadow', 'otter', 'pixel', 'sailor', 'tiger', 'comet', 'river'];
/** A session slug like OpenCode's `neon-circuit`. */
export function newSlug(): string {
  const b = randomBytes(2);
  return `${ADJECTIVES[(b[0] as number) % ADJECTIVES.length]}-${NOUNS[(b[1] as number) % NOUNS.length]}`;
}

// ---- where OpenCode keeps its data

/** `$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode` (or the fork's folder there). */
export function opencodeDataDir(env: DriverEnv, flavor: OpenCodeFlavor = OPENCODE): string {
  const xdg = env.env.XDG_DATA_HOME || join(env.home, '.local', 'share');
  return join(xdg, flavor.dataDir);
}

/** The database OpenCode uses: `$OPENCODE_DB` (absolute, or relative to the data dir), else `opencode.db`. */
export function opencodeDbPath(env: DriverEnv, flavor: OpenCodeFlavor = OPENCODE): string {
  const override = env.env[flavor.dbEnv];
  if (override && override !== ':memory:')
    return override.startsWith('/') ? override : join(opencodeDataDir(env, flavor), override);
  return join(opencodeDataDir(env, flavor), flavor.dbFile);
}

/** The JSON storage of OpenCode versions before the database. */
export function opencodeStorageDir(env: DriverEnv, flavor: OpenCodeFlavor = OPENCODE): string {
  return join(opencodeDataDir(env, flavor), 'storage');
}
