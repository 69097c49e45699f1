/**
 * openStore(url?): the threadbase store to keep sessions in.
 *   no url            → the local SQLite store at $THREADBASE_HOME/index.db (default ~/.threadbase)
 *   postgres://…      → PostgreSQL
 *   http(s)://…       → a remote threadbase server (key: https://KEY@host, opts.key or $THREADBASE_API_KEY)
 *   memory:           → an in-memory store
 * Backends are loaded when asked for, so a library user who never opens PostgreSQL never loads pg.
 */
import { dirname, join } from 'node:path';
import { makeDirectory } from '../formats/shared/atomic.js';
import { type DriverEnv, defaultDriverEnv, type SessionDriver } from '../model/driver.js';
import { ThreadbaseError } from '../model/errors.js';
import { MemoryStore } from './memory/index.js';
import { isServerUrl, serverKeyOf } from './remote/address.js';
import { RemoteStore } from './remote/index.js';

export interface OpenStoreOptions {
  env?: DriverEnv;
  /** Where to report that a backend is missing and a fallback is used (default console.warn). */
  warn?: (message: string) => void;
  /** API key for a remote server (default: the URL's user part, else $THREADBASE_API_KEY). */
  key?: string;
}

/** $THREADBASE_HOME, else ~/.threadbase. */
export function threadbaseHome(env: DriverEnv = defaultDriverEnv()): string {
  return env.env.THREADBASE_HOME || join(env.home, '.threadbase');
}

/** The kinds of store openStore opens. */
export type StoreKind = 'sqlite' | 'postgres' | 'memory' | 'remote';

/**
 * Which kind of store `url` names, undefined for a value openStore refuses: the one list of URL kinds
 * that openStore, the CLI's store options (`--from`, `--store`) and `--db` go by.
 *   sqlite:PATH, file:PATH, a path starting with / or . (`./a:b` too)  → 'sqlite'
 *   postgres://… or postgresql://…                                     → 'postgres'
 *   memory: or memory                                                  → 'memory'
 *   http://host… or https://host… (isServerUrl)                         → 'remote'
 * Schemes are matched as written (`SQLITE:x` is no store URL: its path would keep the scheme).
 * `fileNames`: a value with no scheme (`team.db`) or a Windows path (`C:\x`) names a SQLite file too,
 * as `serve --db` takes it; openStore wants such a file as ./team.db, so that a mistyped URL is no file.
 */
export function storeKindOf(url: string, opts: { fileNames?: boolean } = {}): StoreKind | undefined {
  if (url === 'memory:' || url === 'memory') return 'memory';
  if (/^(sqlite:|file:|\/|\.)/.test(url)) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (isServerUrl(url)) return 'remote';
  // C:\… and C:/… are Windows paths, not URLs of a scheme C
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(url) && !/^[A-Za-z]:[\\/]/.test(url);
  return opts.fileNames && !scheme ? 'sqlite' : undefined;
}

/** The file a SQLite store URL names (storeKindOf 'sqlite'): the URL without its sqlite: or file: (and //). */
export function sqliteFileOf(url: string): string {
  return url.replace(/^(sqlite|file):(\/\/)?/, '');
}

type Factory = (target: string) => Promise<SessionDriver> | SessionDriver;

/** The writes every threadbase store offers (memory, SQLite, PostgreSQL, a server); setTitle a server does not. */
const STORE_METHODS = ['writeSession', 'appendEntries', 'forkSession', 'deleteSession', 'search'] as const;

/**
 * What openStore returns: a driver whose writes are there, so a library user calls
 * `store.writeSession(...)` without checking for it first.
 */
export type ThreadbaseStore = SessionDriver & Required<Pick<SessionDriver, (typeof STORE_METHODS)[number]>>;

/**
 * The store, checked to offer every write openStore promises (a backend module is loaded by name).
 * The error names the driver, not the URL: a PostgreSQL URL may hold a password.
 */
function asStore(driver: SessionDriver): ThreadbaseStore {
  const missing = STORE_METHODS.filter((m) => typeof driver[m] !== 'function');
  if (missing.length) throw new ThreadbaseError('unsupported', `the ${driver.name} store cannot ${missing.join(', ')}`);
  return driver as ThreadbaseStore;
}

/**
 * Loads a backend module by path and finds how it opens a store from a path or URL. The module is
 * written by another part of the project; these are the export names it may use.
 */
async function loadBackend(specifier: string, names: readonly string[]): Promise<Factory | undefined> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // Only the backend itself missing means "not in this build"; a broken backend is an error.
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(specifier.replace(/^file:\/\//, '').replace(/\.js$/, ''));
    if (missing) return undefined;
    throw error;
  }
  for (const name of names) {
    const f = mod[name];
    if (typeof f !== 'function') continue;
    const isClass = /^class\b/.test(Function.prototype.toString.call(f));
    return isClass
      ? (target) => new (f as new (t: string) => SessionDriver)(target)
      : (target) => (f as (t: string) => Promise<SessionDriver> | SessionDriver)(target);
  }
  return undefined;
}

// Variables, not literals: these modules may not exist yet in a given build.
const SQLITE_MODULE = './sqlite/index.js';
const POSTGRES_MODULE = './postgres/index.js';

export async function openStore(url?: string, opts: OpenStoreOptions = {}): Promise<ThreadbaseStore> {
  const env = opts.env ?? defaultDriverEnv();
  const warn = opts.warn ?? ((m: string) => console.warn(`threadbase: ${m}`));
  const kind = url ? storeKindOf(url) : 'sqlite';
  if (kind === 'memory') return new MemoryStore();

  if (kind === 'sqlite') {
    const path = url ? sqliteFileOf(url) : join(threadbaseHome(env), 'index.db');
    const open = await loadBackend(new URL(SQLITE_MODULE, import.meta.url).href, [
      'openSqliteStore',
      'openStore',
      'SqliteStore',
      'default',
    ]);
    if (open) {
      await makeDirectory(dirname(path));
      return asStore(await open(path));
    }
    warn(`the SQLite store is not available in this build; sessions go to memory and are lost at exit`);
    return new MemoryStore();
  }
  if (kind === 'postgres' && url) {
    const open = await loadBackend(new URL(POSTGRES_MODULE, import.meta.url).href, [
      'openPostgresStore',
      'openStore',
      'PostgresStore',
      'default',
    ]);
    if (!open) throw new ThreadbaseError('unsupported', 'the PostgreSQL store is not available in this build');
    return asStore(await open(url));
  }
  if (kind === 'remote' && url) {
    const key = opts.key ?? serverKeyOf(url, env.env);
    return new RemoteStore(url, key ? { key } : {});
  }
  throw new ThreadbaseError(
    'bad_url',
    `not a store URL: ${url} (expected postgres://, http(s)://, sqlite:, memory: or nothing for the local store)`,
  );
}
