/**
 * Opening SQLite databases (threadbase's index and store, and the agents' own: OpenCode, Zed, Codex)
 * with better-sqlite3's compiled addon loaded once, by its path. Left to itself, better-sqlite3 finds
 * the addon through the `bindings` package, which tries a dozen paths: ≈ 1.5 ms of every command's
 * start (a warm `sync` at 10 MB takes ≈ 9 ms in all).
 */
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';

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
