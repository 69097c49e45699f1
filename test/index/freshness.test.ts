/**
 * Freshness per store: a sync of one store lets `sessions`, `show` and `context` answer from the
 * index for that store while the others are read from their files, and a store without a cheap
 * listing (here OpenCode, whose sessions are database rows) is listed once per command, not once to
 * check and once more to answer.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { listThroughIndex, openFreshIndex, openIndexView, openThroughIndex } from '../../src/stores/index-sync/fresh.js';
import { IndexSync, indexPath, lastSync } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { type CliResult, runCli } from '../helpers/cli.js';

let dir: string;
let env: DriverEnv;
let claude: { id: string; path: string };
let opencode: { id: string; path: string };

const run = (args: string[]): Promise<CliResult> => runCli(env, args);
const sessionsJson = async (args: string[] = []): Promise<{ id: string; source: string; title: string | null }[]> => {
  const r = await run(['sessions', '--json', ...args]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-fresh-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  await mkdir(join(dir, '.threadbase'), { recursive: true });
  // OpenCode writes only into a database OpenCode made: the fixture's, emptied of its sessions
  const dataDir = join(dir, '.local', 'share', 'opencode');
  await mkdir(dataDir, { recursive: true });
  await copyFile(resolve('test/fixtures/opencode/opencode.db'), join(dataDir, 'opencode.db'));
  const db = new Database(join(dataDir, 'opencode.db'));
  db.exec('DELETE FROM part; DELETE FROM message; DELETE FROM todo; DELETE FROM session;');
  db.close();
  const sources = new Sources(env);
  const a = await sources.driver('claude').writeSession?.(sampleSession());
  const b = await sources.driver('opencode').writeSession?.(sampleSession());
  await sources.close();
  if (!a?.path || !b?.path) throw new Error('a driver wrote no file');
  claude = { id: a.id, path: a.path };
  opencode = { id: b.id, path: b.path };
  // a whole-second mtime, so that it can be put back exactly below
  await utimes(claude.path, 1_750_000_000, 1_750_000_000);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('freshness per store', () => {
  it('before any sync the index answers for nothing, and the commands read the files', async () => {
    expect(await openIndexView(env, new Sources(env))).toBeUndefined();
    const listed = await sessionsJson();
    expect(listed.map((s) => s.id).sort()).toEqual([claude.id, opencode.id].sort());
  });

  it('`sync --source claude` makes the index fresh for Claude Code only', async () => {
    const r = await run(['sync', '--source', 'claude', '--json']);
    expect(r.code, r.err).toBe(0);
    const store = openSqliteStore(indexPath(env));
    try {
      expect(lastSync(store, 'claude')).toBeDefined();
      expect(lastSync(store, 'opencode')).toBeUndefined();
      expect(lastSync(store)).toBeUndefined();
      const sources = new Sources(env);
      const checked = await new IndexSync(store).freshness(sources, ['claude', 'opencode']);
      expect(checked.map((c) => [c.format, c.fresh])).toEqual([
        ['claude', true],
        ['opencode', false],
      ]);
      // OpenCode has no cheap listing: the check's full listing comes back to be reused
      expect(checked[1]?.listed?.map((s) => s.id)).toEqual([opencode.id]);
    } finally {
      await store.close();
    }
  });

  it('sessions: Claude Code from the index, OpenCode from its files, each store listed once', async () => {
    expect(await sessionsJson()).toEqual(await sessionsJson(['--no-index']));

    const sources = new Sources(env);
    const claudeList = vi.spyOn(sources.driver('claude'), 'listSessions');
    const opencodeList = vi.spyOn(sources.driver('opencode'), 'listSessions');
    const mixed = await listThroughIndex(env, sources);
    expect(mixed?.fromIndex).toContain('claude');
    expect(mixed?.fromIndex).not.toContain('opencode');
    expect(mixed?.sessions.map((s) => s.id).sort()).toEqual([claude.id, opencode.id].sort());
    expect(claudeList).not.toHaveBeenCalled();
    expect(opencodeList).toHaveBeenCalledTimes(1);
    await sources.close();

    // An edit a listing cannot see (same size, same mtime): the index still answers for Claude
    // Code with the title it read, while --no-index shows the edit.
    const before = await stat(claude.path);
    const text = await readFile(claude.path, 'utf8');
    const title = (await sessionsJson()).find((s) => s.id === claude.id)?.title;
    expect(title).toBeTruthy();
    const edited = text.replace(title as string, (title as string).replace(/./, '#'));
    expect(edited).not.toBe(text);
    await writeFile(claude.path, edited);
    await utimes(claude.path, 1_750_000_000, 1_750_000_000);
    expect((await stat(claude.path)).mtimeMs).toBe(before.mtimeMs);
    expect((await sessionsJson()).find((s) => s.id === claude.id)?.title).toBe(title);
    expect((await sessionsJson(['--no-index'])).find((s) => s.id === claude.id)?.title).not.toBe(title);
    await writeFile(claude.path, text);
    await utimes(claude.path, 1_750_000_000, 1_750_000_000);
  });

  it('show and context: the index names Claude Code candidates, OpenCode is listed once', async () => {
    const sources = new Sources(env);
    const claudeList = vi.spyOn(sources.driver('claude'), 'listSessions');
    const opencodeList = vi.spyOn(sources.driver('opencode'), 'listSessions');
    const viaIndex = await openThroughIndex(env, sources, claude.id.slice(0, 9));
    expect(viaIndex?.info).toMatchObject({ id: claude.id, source: 'claude' });
    expect(viaIndex?.session.entries.length).toBeGreaterThan(0);
    const viaFiles = await openThroughIndex(env, sources, opencode.id);
    expect(viaFiles?.info).toMatchObject({ id: opencode.id, source: 'opencode' });
    expect(claudeList).not.toHaveBeenCalled();
    expect(opencodeList).toHaveBeenCalledTimes(2); // once per lookup, each time the freshness check's listing
    await expect(openThroughIndex(env, sources, 'ffffffff-no-such')).rejects.toThrow(/not found/);
    await sources.close();

    for (const id of [claude.id.slice(0, 9), opencode.id]) {
      const shown = await run(['show', id, '--json']);
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toBe((await run(['show', id, '--json', '--no-index'])).out);
      const context = await run(['context', id, '--format', 'anthropic']);
      expect(context.code, context.err).toBe(0);
      expect(context.out).toBe((await run(['context', id, '--format', 'anthropic', '--no-index'])).out);
    }
  });

  it('search and stats with --source claude do not sync again after `sync --source claude`', async () => {
    const sources = new Sources(env);
    const units = vi.spyOn(sources.driver('claude') as unknown as { listUnits: () => Promise<unknown> }, 'listUnits');
    const store = await openFreshIndex(env, sources, { formats: ['claude'] });
    await store.close();
    expect(units).not.toHaveBeenCalled();
    // every store asked about: OpenCode was never synced, so this one syncs (and lists Claude Code)
    const all = await openFreshIndex(env, sources);
    await all.close();
    expect(units).toHaveBeenCalled();
    await sources.close();
    const view = await openIndexView(env, new Sources(env));
    expect(view?.stale).toEqual([]);
    await view?.store.close();
  });

  it('a change in one store leaves the other answered from the index', async () => {
    const sources = new Sources(env);
    await sources.driver('opencode').setTitle?.(opencode.id, 'renamed in OpenCode');
    await sources.close();
    const view = await openIndexView(env, new Sources(env));
    expect(view?.fresh).toContain('claude');
    expect(view?.stale.map((s) => s.format)).toEqual(['opencode']);
    await view?.store.close();
    expect(await sessionsJson()).toEqual(await sessionsJson(['--no-index']));
  });

  it('sync --full reads every file and database row whole again, then syncs incrementally again', async () => {
    const report = async (args: string[]) => {
      const r = await run(['sync', '--json', ...args]);
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out) as { units: number; unchanged: number; reread: number };
    };
    await report([]); // what the tests before changed
    const before = await report([]);
    expect(before.unchanged).toBe(before.units);
    // both kinds of store: a Claude Code file and OpenCode's rows (known by the database's stamp)
    const full = await report(['--full']);
    expect(full.units).toBe(before.units);
    expect(full.units).toBeGreaterThanOrEqual(2);
    expect(full).toEqual(expect.objectContaining({ reread: full.units, unchanged: 0 }));
    expect(await report([])).toEqual(expect.objectContaining({ unchanged: full.units, reread: 0 }));
    expect((await sessionsJson()).map((s) => s.id)).toEqual(expect.arrayContaining([claude.id, opencode.id]));
    // a --full killed after marking: the next plain sync reads what was marked
    const store = openSqliteStore(indexPath(env));
    try {
      new IndexSync(store).forgetReads(['claude', 'opencode']);
    } finally {
      await store.close();
    }
    expect(await report([])).toEqual(expect.objectContaining({ reread: full.units, unchanged: 0 }));
  });
});
