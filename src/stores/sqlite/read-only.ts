/**
 * A store file in a folder this process cannot write in (a read-only mount, a shared folder, a copy
 * in a chmod 555 directory). A database in WAL mode cannot be read there, not even opened read-only:
 * SQLite makes its -wal and -shm files beside it before the first read (SQLITE_READONLY_DIRECTORY,
 * SQLITE_CANTOPEN), and SQLite's way around that (a `file:…?immutable=1` URI) is not open to us:
 * better-sqlite3 is built without URI filenames. Such a file is read from a copy in memory instead,
 * marked as not in WAL mode (the header's two version bytes), read-only. Its WAL, when another
 * process that can write there has one open, holds changes not in the file yet: then SQLite's own
 * read-only open (which uses the -shm that is there) or an error.
 */
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../formats/shared/sqlite.js';
import { ThreadbaseError } from '../../model/errors.js';

/** The errors SQLite gives for a WAL database whose folder cannot be written. */
const UNWRITABLE_FOLDER = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

/**
 * Whether opening the database at `path` failed with `err` because its folder cannot be written: the
 * file is there, SQLite could not make its files beside it, and this process may not write the folder.
 */
export function failedForUnwritableFolder(path: string, err: unknown): boolean {
  if (!UNWRITABLE_FOLDER.has((err as { code?: unknown } | null)?.code as string) || !existsSync(path)) return false;
  try {
    accessSync(dirname(path), constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/**
 * The database at `path` for reading only, where its folder cannot be written (see above);
 * `cause` is the error opening it in place gave.
 */
export function openUnwritableFolderCopy(path: string, cause: unknown): Database.Database {
  if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
    try {
      const db = openDatabase(path, { readonly: true, fileMustExist: true });
      db.pragma('user_version');
      return db;
    } catch (err) {
      throw new ThreadbaseError(
        'unwritable_folder',
        `cannot read ${path}: its folder cannot be written and its WAL (${path}-wal) holds changes SQLite cannot read without its -shm file (${(err as Error).message})`,
        { file: path },
        { cause },
      );
    }
  }
  const bytes = readFileSync(path);
  // bytes 18 and 19: the file format's write and read versions, 2 for WAL, 1 for a rollback journal
  if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) bytes.fill(1, 18, 20);
  return new Database(bytes, { readonly: true });
}
