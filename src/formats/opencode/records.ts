/**
 * OpenCode's own records (sst/opencode `Session.Info`, `MessageV2.Info`, `MessageV2.Part`) as
 * loosely typed JSON, the id scheme, and where OpenCode keeps its data. One session's data is
 * held as `{info, messages: [{info, parts}]}`, the shape of `opencode export`; the SQLite rows and
 * the legacy JSON files are read into it and written from it.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { DriverEnv } from '../../model/driver.js';

export const SOURCE = 'opencode';
/** The OpenCode version whose schema threadbase writes (recorded in a written session's `version`). */
export const WRITTEN_VERSION = '1.18.33';

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

/** `$XDG_DATA_HOME/opencode`, default `~/.local/share/opencode`. */
export function opencodeDataDir(env: DriverEnv): string {
  const xdg = env.env.XDG_DATA_HOME || join(env.home, '.local', 'share');
  return join(xdg, 'opencode');
}

/** The database OpenCode uses: `$OPENCODE_DB` (absolute, or relative to the data dir), else `opencode.db`. */
export function opencodeDbPath(env: DriverEnv): string {
  const override = env.env.OPENCODE_DB;
  if (override && override !== ':memory:') return override.startsWith('/') ? override : join(opencodeDataDir(env), override);
  return join(opencodeDataDir(env), 'opencode.db');
}

/** The JSON storage of OpenCode versions before the database. */
export function opencodeStorageDir(env: DriverEnv): string {
  return join(opencodeDataDir(env), 'storage');
}
