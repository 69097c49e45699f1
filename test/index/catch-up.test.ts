/**
 * `sessions`, `show` and the other commands that open one session bring a store that changed a little
 * since its last sync up to date before the index answers for it (CATCH_UP_UNITS), rather than
 * listing every file of that store; a store that changed more, was never synced or cannot be synced
 * now (a lock held by another writer) is answered from its files, as before.
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { type DriverEnv, isIncrementalSource } from '../../src/model/driver.js';
import { listThroughIndex, openIndexIfFresh, openThroughIndex } from '../../src/stores/index-sync/fresh.js';
import { indexPath, lastSync } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { type CliResult, runCli } from '../helpers/cli.js';

let dir: string;
let env: DriverEnv;
const claude: { id: string; path: string }[] = [];

const run = async (args: string[]): Promise<CliResult> => {
  const r = await runCli(env, args);
  expect(r.code, r.err).toBe(0);
  return r;
};
const sessionsJson = async (args: string[] = []) =>
  JSON.parse((await run(['sessions', '--json', ...args])).out) as { id: string; source: string; title: string | null }[];
const retitle = (s: { id: string; path: string }, title: string) =>
  appendFile(s.path, `${JSON.stringify({ type: 'custom-title', customTitle: title, sessionId: s.id })}\n`);
const indexTime = (format: string): string | undefined => {
  const store = openSqliteStore(indexPath(env));
  try {
    return lastSync(store, format);
  } finally {
    void store.close();
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-catch-up-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const sources = new Sources(env);
  for (let i = 0; i < 3; i++) {
    const w = await sources.driver('claude').writeSession?.(sampleSession());
    if (!w?.path) throw new Error('no file written');
    claude.push({ id: w.id, path: w.path });
  }
  await sources.driver('pi').writeSession?.(sampleSession());
  await sources.close();
  await run(['sync', '--source', 'claude', '--json']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('catching up a store that changed a little', () => {
  it('a session threadbase just wrote (fork) is listed and opened from the index, which syncs it first', async () => {
    const before = indexTime('claude');
    const forked = JSON.parse((await run(['fork', claude[0]?.id ?? '', '--json'])).out) as { id: string };
    const listing = await listThroughIndex(env, new Sources(env));
    expect(listing?.fromIndex).toContain('claude');
    expect(listing?.sessions.map((s) => s.id)).toContain(forked.id);
    // the index itself now holds it: it is fresh for Claude Code without another sync
    expect(indexTime('claude')).not.toBe(before);
    const fresh = await openIndexIfFresh(env, new Sources(env), ['claude']);
    expect(fresh).toBeDefined();
    await fresh?.close();
    const shown = JSON.parse((await run(['show', forked.id.slice(0, 8), '--json'])).out) as { id: string };
    expect(shown.id).toBe(forked.id);
    const exported = JSON.parse((await run(['export', forked.id.slice(0, 8), '--format', 'json'])).out) as { id: string };
    expect(exported.id).toBe(forked.id);
  });

  it('appends seen by `sessions` and `show` are the same as from the files', async () => {
    await retitle(claude[1] as { id: string; path: string }, 'retitled once');
    const listed = await sessionsJson();
    expect(listed.find((s) => s.id === claude[1]?.id)?.title).toBe('retitled once');
    // (the fork and its parent end at the same time: both listings order them by id)
    expect(listed).toEqual(await sessionsJson(['--no-index']));
    await retitle(claude[1] as { id: string; path: string }, 'retitled twice');
    const opened = await openThroughIndex(env, new Sources(env), claude[1]?.id ?? '');
    expect(opened?.fromIndex).toContain('claude');
    expect(opened?.session.title).toBe('retitled twice');
  });

  it("a store behind is listed once: the sync reuses the freshness check's listing", async () => {
    await retitle(claude[1] as { id: string; path: string }, 'retitled thrice');
    const sources = new Sources(env);
    const driver = sources.driver('claude');
    if (!isIncrementalSource(driver)) throw new Error('Claude Code has a cheap listing');
    const listUnits = driver.listUnits.bind(driver);
    let listings = 0;
    driver.listUnits = (known) => {
      listings++;
      return listUnits(known);
    };
    const before = indexTime('claude');
    const opened = await openThroughIndex(env, sources, claude[1]?.id ?? '', 'claude');
    expect(opened?.fromIndex).toContain('claude');
    expect(indexTime('claude')).not.toBe(before);
    expect(opened?.session.title).toBe('retitled thrice');
    expect(listings).toBe(1);
  });

  it('more changes than the limit: the files answer and the index is left as it was', async () => {
    await retitle(claude[0] as { id: string; path: string }, 'a');
    await retitle(claude[2] as { id: string; path: string }, 'b');
    const before = indexTime('claude');
    const listing = await listThroughIndex(env, new Sources(env), {}, { catchUpUnits: 1 });
    expect(listing?.fromIndex).not.toContain('claude');
    expect(listing?.sessions.find((s) => s.id === claude[2]?.id)?.title).toBe('b');
    expect(indexTime('claude')).toBe(before);
    // within the default limit the same two changes are caught up
    expect((await listThroughIndex(env, new Sources(env)))?.fromIndex).toContain('claude');
  });

  it('a store never synced is read from its files, never synced by a reading command', async () => {
    const listed = await sessionsJson();
    expect(listed.filter((s) => s.source === 'pi')).toHaveLength(1);
    expect((await listThroughIndex(env, new Sources(env)))?.fromIndex).not.toContain('pi');
    expect(indexTime('pi')).toBeUndefined();
  });

  it('an index another writer holds: the files answer, nothing fails', { timeout: 30_000 }, async () => {
    await retitle(claude[2] as { id: string; path: string }, 'while locked');
    const other = new Database(indexPath(env));
    other.exec('BEGIN IMMEDIATE');
    try {
      const listing = await listThroughIndex(env, new Sources(env));
      expect(listing?.fromIndex).not.toContain('claude');
      expect(listing?.sessions.find((s) => s.id === claude[2]?.id)?.title).toBe('while locked');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await listThroughIndex(env, new Sources(env)))?.fromIndex).toContain('claude');
  });
});
