/**
 * Opening SQLite databases (threadbase's index and store, and the agents' own: OpenCode, Zed, Codex)
 * with better-sqlite3's compiled addon loaded once, by its path. Left to itself, better-sqlite3 finds
 * the addon through the `bindings` package, which tries a dozen paths: ≈ 1.5 ms of every command's
 * start (a warm `sync` at 10 MB takes ≈ 9 ms in all).
 */
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { ThreadbaseError } from '../../model/errors.js';

let addonPath: string | null | undefined;

/** The addon's path, or null where it is not at the usual place (then better-sqlite3 looks for it itself). */
function nativeAddon(): string | null {
  if (addonPath === undefined) {
    try {
      addonPath = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      addonPath = null;
    }
  }
  return addonPath;
}

export function openDatabase(path: string, options: Database.Options = {}): Database.Database {
  const native = nativeAddon();
  return new Database(path, native ? { ...options, nativeBinding: native } : options);
}

/** The columns of `table` (none: no such table). */
export function columnsOf(db: Database.Database, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as { name: string }[];
  return new Set(rows.map((r) => r.name));
}

/** An agent's database (`label` names the agent) without one of `tables` is refused, naming the file. */
export function requireTables(db: Database.Database, file: string, tables: readonly string[], label: string): void {
  for (const t of tables) {
    if (columnsOf(db, t).size === 0)
      throw new ThreadbaseError('schema', `not a ${label} database this version can read: no "${t}" table`, { file });
  }
}
