/**
 * A SQLite store (WAL mode) in a folder this process cannot write in is read from a copy in memory
 * (src/stores/sqlite/read-only.ts): SQLite could not open it at all, not even read-only, for it makes
 * its -wal and -shm files beside the database first. Listing, reading and search work; a write is
 * refused; nothing is made in the folder. As root the folder is made immutable (makeUnwritable); the
 * tests are skipped where that cannot be done.
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { helloSession } from '../helpers/sessions.js';
import { makeUnwritable } from '../helpers/unwritable-folder.js';

let dir: string;
let readOnly: string;
let undo: (() => void) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tb-sqlite-ro-'));
  const store = openSqliteStore(join(dir, 'store.db'));
  await store.writeSession(helloSession('read-only-walrus'), { keepId: true });
  await store.close();
  readOnly = mkdtempSync(join(tmpdir(), 'tb-sqlite-ro-copy-'));
  copyFileSync(join(dir, 'store.db'), join(readOnly, 'store.db'));
  undo = makeUnwritable(readOnly);
});
afterAll(() => {
  undo?.();
  for (const d of [dir, readOnly]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('a SQLite store in a folder that cannot be written', () => {
  it('lists, reads and searches its sessions, and refuses a write, making nothing in the folder', async (t) => {
    if (!undo) return t.skip('neither chmod nor chattr stops this process from writing there');
    const store = openSqliteStore(join(readOnly, 'store.db'));
    try {
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['read-only-walrus']);
      expect((await store.getSession('read-only-walrus'))?.entries.map((e) => e.id)).toEqual(['read-only-walrus-e1']);
      expect((await store.search('hello walrus')).map((h) => [h.entryId, h.snippet])).toEqual([
        ['read-only-walrus-e1', '[hello] from read-only-[walrus]'],
      ]);
      await expect(store.writeSession(helloSession('another'), { keepId: true })).rejects.toThrow(/readonly/);
    } finally {
      await store.close();
    }
    expect(readdirSync(readOnly)).toEqual(['store.db']);
  });
});
