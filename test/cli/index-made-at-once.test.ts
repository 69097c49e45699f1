/**
 * Two commands starting at once on a new index: one makes index.db between the other's look for it
 * and its own making of it. The other must go on with the file that is now there, not fail with
 * EEXIST (a CI run of hardening/concurrent caught `sync` exiting 1 so). The race is made certain by
 * answering the first look at the index as "missing" after the file was made.
 */
import * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const seenMissing = new Set<string>();
let raceOn: string | undefined;

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const statSync = ((path: fs.PathLike, opts?: fs.StatSyncOptions) => {
    // the first look at the raced index: "missing", as it was a moment before the other command made it
    if (raceOn !== undefined && String(path) === raceOn && !seenMissing.has(raceOn)) {
      seenMissing.add(raceOn);
      return undefined;
    }
    return real.statSync(path, opts);
  }) as typeof fs.statSync;
  return { ...real, statSync, default: { ...real, statSync } };
});

const { makeContext, writableIndexPath } = await import('../../src/cli/io.js');

const homes: string[] = [];
afterEach(() => {
  raceOn = undefined;
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function raced(made: (path: string) => void) {
  const home = mkdtempSync(join(tmpdir(), 'tb-index-race-'));
  homes.push(home);
  const path = join(home, 'index.db');
  made(path);
  raceOn = path;
  const ctx = makeContext({ home, env: { THREADBASE_HOME: home } });
  return { path, ctx };
}

describe('an index another command made after this one looked for it', () => {
  it('is used, not refused with EEXIST, and left as the other command made it', () => {
    const { path, ctx } = raced((p) => writeFileSync(p, 'SQLite format 3\0 made by the other command'));
    expect(writableIndexPath(ctx)).toBe(path);
    expect(seenMissing.has(path)).toBe(true);
    expect(fs.readFileSync(path, 'utf8')).toContain('made by the other command');
  });

  it('that is no regular file is still refused, naming the index', () => {
    const { path, ctx } = raced((p) => fs.mkdirSync(p));
    expect(() => writableIndexPath(ctx)).toThrow(`the index ${path} cannot be made or opened (not a regular file)`);
  });
});
