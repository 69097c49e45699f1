/**
 * threadbase's own writes into an agent's store (convert, branch) are seen by the very next `search`
 * and `stats`, inside the 30 s in which they otherwise trust a recent sync: the write tells the
 * index, and the next reading command syncs that store first. Writes by the agents themselves (here a
 * bare Sources) where agents were writing last are seen at once too, by a few stats; nothing written,
 * nothing is listed again. No write creates an index.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { noteAgentWrite, openFreshIndex } from '../../src/stores/index-sync/fresh.js';
import { indexPath, lastSync, writtenSinceSync } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { runCli, runCliOk } from '../helpers/cli.js';

let dir: string;
let env: DriverEnv;
let claudeId: string;

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await runCliOk(env, [...args, '--json'])) as T;
const statsKeys = async () =>
  (await json<{ key: string; source?: string }[]>(['stats', '--by', 'session'])).map((r) => `${r.source}:${r.key}`);
const searchHits = async (q: string, ...opts: string[]) =>
  (await json<{ sessionId: string; source: string }[]>(['search', q, ...opts])).map((h) => `${h.source}:${h.sessionId}`);
/** what the index records of the pi store: its sync time and whether a write of ours is newer */
const piState = async () => {
  const store = openSqliteStore(indexPath(env));
  try {
    return { synced: lastSync(store, 'pi'), pending: writtenSinceSync(store, 'pi') };
  } finally {
    await store.close();
  }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-own-writes-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const sources = new Sources(env);
  const written = await sources.driver('claude').writeSession?.(sampleSession());
  await sources.close();
  if (!written) throw new Error('no Claude Code session written');
  claudeId = written.id;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the index and threadbase's own writes", () => {
  it('a write with no index creates none', async () => {
    // (into Codex: a second copy in one agent would count as a copy of the first, not a session)
    const written = await json<{ source: string }>(['convert', claudeId, '--to', 'codex']);
    expect(written.source).toBe('codex');
    expect(existsSync(indexPath(env))).toBe(false);
  });

  it('`search` right after `convert` finds the new session', async () => {
    await runCliOk(env, ['sync']);
    const before = await searchHits('zanzibarquokka');
    expect(before).toContain(`claude:${claudeId}`);
    const converted = await json<{ id: string; source: string }>(['convert', claudeId, '--to', 'pi']);
    expect(converted.source).toBe('pi');
    expect((await piState()).pending).toBe(true);
    // the conversion keeps each entry's id and time: a copy, found where pi's sessions are searched
    // (all of them: once, in the original)
    expect(await searchHits('zanzibarquokka', '--source', 'pi')).toContain(`pi:${converted.id}`);
    expect(await searchHits('zanzibarquokka')).toEqual(before);
    // the sync that search ran took the write in: the next command trusts the index again
    const state = await piState();
    expect(state.pending).toBe(false);
    await statsKeys();
    expect(await piState()).toEqual(state);
  });

  it('`search` right after `branch` finds the new message', async () => {
    const piSession = (await json<{ id: string; source: string }[]>(['sessions', '--source', 'pi']))[0];
    if (!piSession) throw new Error('no pi session');
    const shown = await json<{ entries: { id: string }[] }>(['show', piSession.id, '--source', 'pi']);
    const at = shown.entries[1]?.id;
    if (!at) throw new Error('no entry to branch at');
    expect(await searchHits('wombatcircus')).toEqual([]);
    await runCliOk(env, ['branch', piSession.id, '--source', 'pi', '--at', at, '--message', 'now try the wombatcircus file']);
    expect(await searchHits('wombatcircus')).toEqual([`pi:${piSession.id}`]);
  });

  it("an agent's own write where agents were writing last is seen at once too (a new session, a turn appended)", async () => {
    await statsKeys();
    const sources = new Sources(env);
    // as an agent would: a session in a new project folder, then a turn appended to it
    const other = await sources.driver('claude').writeSession?.(sampleSession());
    if (!other) throw new Error('no Claude Code session written');
    expect((await piState()).pending).toBe(false);
    expect(await statsKeys()).toContain(`claude:${other.id}`);
    const last = (await sources.driver('claude').getSession(other.id))?.entries.at(-1);
    await sources.driver('claude').appendEntries?.(other.id, [
      {
        kind: 'message',
        id: '5f0e7a2b-0000-4000-8000-0000000000ab',
        parentId: last?.id ?? null,
        timestamp: new Date().toISOString(),
        message: { role: 'user', parts: [{ type: 'text', text: 'and the platypusjamboree file?' }] },
      },
    ]);
    await sources.close();
    expect(await searchHits('platypusjamboree')).toEqual([`claude:${other.id}`]);
  });

  it('nothing written: search and stats inside the window do not list the stores again', async () => {
    await statsKeys();
    const sources = new Sources(env);
    const units = vi.spyOn(sources.driver('claude') as unknown as { listUnits: () => Promise<unknown> }, 'listUnits');
    const store = await openFreshIndex(env, sources);
    await store.close();
    await sources.close();
    expect(units).not.toHaveBeenCalled();
  });

  it('a write while another writer holds the index is not held up, and the next search still finds it', async () => {
    const other = new Database(indexPath(env));
    other.exec('BEGIN IMMEDIATE');
    let written: { id: string; source: string };
    try {
      // the note is skipped at once (before, it waited 5 s and failed with "database is locked")
      await expect(noteAgentWrite(env, 'pi')).resolves.toBeUndefined();
      const r = await runCli(env, ['convert', claudeId, '--to', 'pi', '--json']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).not.toMatch(/could not be told|locked/);
      written = JSON.parse(r.out) as { id: string; source: string };
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // nothing noted, but the new file is among pi's newest: the next search syncs pi first
    expect((await piState()).pending).toBe(false);
    expect(await searchHits('zanzibarquokka', '--source', 'pi')).not.toEqual([]);
    // that search synced pi: the index holds the new session (its entries are copies of the first
    // conversion's, which search shows)
    const store = openSqliteStore(indexPath(env));
    try {
      expect((await store.listSessions({ source: 'pi' })).map((s) => s.id)).toContain(written.id);
    } finally {
      await store.close();
    }
  });
});
