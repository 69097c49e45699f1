import { appendFile, mkdtemp, rm, stat, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { IndexSync, indexPath, lastSync } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { sampleSession } from '../conformance/driver-suite.js';

let dir: string;
let env: DriverEnv;
let store: SqliteStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-sync-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(dir, '.threadbase'), { recursive: true });
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function writeClaude(sources: Sources, n: number): Promise<{ id: string; path: string }[]> {
  const claude = sources.driver('claude');
  const out: { id: string; path: string }[] = [];
  for (let i = 0; i < n; i++) {
    const info = await claude.writeSession?.(sampleSession());
    if (!info?.path) throw new Error('claude wrote no file');
    out.push({ id: info.id, path: info.path });
  }
  return out;
}

describe('sync', () => {
  it('indexes Claude Code files, skips unchanged ones, re-reads grown and removes deleted ones', async () => {
    const sources = new Sources(env);
    const written = await writeClaude(sources, 3);
    const sync = new IndexSync(store);
    const first = await sync.sync(sources, { formats: ['claude'] });
    expect(first.reread).toBe(3);
    expect((await store.listSessions({ source: 'claude' })).map((s) => s.id).sort()).toEqual(written.map((w) => w.id).sort());
    const hits = await store.search('zanzibarquokka');
    expect(new Set(hits.map((h) => h.sessionId))).toEqual(new Set(written.map((w) => w.id)));
    const u = await store.usage({ source: 'claude' });
    // each sample: 130 input tokens of its own responses and 300 of an advisor request
    expect(u.input).toBe(3 * (130 + 300));
    expect(u.messages).toBe(6);

    const again = await sync.sync(sources, { formats: ['claude'] });
    expect(again.unchanged).toBe(3);
    expect(again.reread + again.appended).toBe(0);

    const target = written[0] as { id: string; path: string };
    const s = await sources.driver('claude').getSession(target.id);
    const leaf = s?.entries[s.entries.length - 1];
    await sources.driver('claude').appendEntries?.(target.id, [
      {
        kind: 'message',
        id: 'd4d4d4d4-0000-4000-8000-000000000004',
        parentId: leaf?.id ?? null,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', parts: [{ type: 'text', text: 'platypusword appended later' }] },
      },
    ]);
    const grown = await sync.sync(sources, { formats: ['claude'] });
    expect(grown.unchanged).toBe(2);
    expect(grown.reread + grown.appended).toBe(1);
    expect((await store.search('platypusword')).map((h) => h.sessionId)).toEqual([target.id]);

    await unlink((written[1] as { path: string }).path);
    const removed = await sync.sync(sources, { formats: ['claude'] });
    expect(removed.removed).toBe(1);
    expect(await store.getSession((written[1] as { id: string }).id)).toBeUndefined();
  });

  it('indexes a damaged file up to what reads, warns with file and line, and retries when it changes', async () => {
    const sources = new Sources(env);
    const [w] = await writeClaude(sources, 1);
    if (!w) throw new Error('no session');
    await appendFile(w.path, '{"type":"user","uuid":"torn-line", "mess');
    const sync = new IndexSync(store);
    const r = await sync.sync(sources, { formats: ['claude'] });
    expect(r.reread).toBe(1);
    expect(r.warnings.some((x) => x.file === w.path && typeof x.line === 'number')).toBe(true);
    const got = await store.getSession(w.id);
    expect(got?.entries.filter((e) => e.kind === 'message').length).toBe(4);
    // repaired: the torn line cut off
    const size = (await stat(w.path)).size;
    await truncate(w.path, size - '{"type":"user","uuid":"torn-line", "mess'.length);
    const r2 = await sync.sync(sources, { formats: ['claude'] });
    expect(r2.reread).toBe(1);
    expect(r2.warnings.length).toBe(0);
  });

  it('indexes pi sessions by file, and re-reads one that changed', async () => {
    const sources = new Sources(env);
    const pi = sources.driver('pi');
    const info = await pi.writeSession?.(sampleSession());
    if (!info) throw new Error('pi wrote nothing');
    const sync = new IndexSync(store);
    const first = await sync.sync(sources, { formats: ['pi'] });
    expect(first.reread).toBe(1);
    const indexed = await store.getSession(info.id);
    expect(indexed?.source).toBe('pi');
    expect(indexed?.entries.filter((e) => e.kind === 'message').length).toBe(4);
    expect((await sync.sync(sources, { formats: ['pi'] })).unchanged).toBe(1);
    const s = await pi.getSession(info.id);
    const leaf = s?.entries[s.entries.length - 1];
    await pi.appendEntries?.(info.id, [
      {
        kind: 'message',
        id: 'e5e5e5e5',
        parentId: leaf?.id ?? null,
        timestamp: '2026-02-01T00:00:00.000Z',
        message: { role: 'user', parts: [{ type: 'text', text: 'echidnaword from pi' }] },
      },
    ]);
    expect((await sync.sync(sources, { formats: ['pi'] })).appended).toBe(1);
    expect((await store.search('echidnaword')).map((h) => h.sessionId)).toEqual([info.id]);
  });

  it('indexes OpenCode rows from its database and skips rows whose update time is unchanged', async () => {
    const { copyFile, mkdir } = await import('node:fs/promises');
    const dataDir = join(dir, '.local', 'share', 'opencode');
    await mkdir(dataDir, { recursive: true });
    await copyFile(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), join(dataDir, 'opencode.db'));
    const sources = new Sources(env);
    const listed = await sources.driver('opencode').listSessions();
    expect(listed.length).toBeGreaterThan(0);
    const sync = new IndexSync(store);
    const first = await sync.sync(sources, { formats: ['opencode'] });
    expect(first.reread).toBe(listed.length);
    expect((await store.listSessions({ source: 'opencode' })).map((s) => s.id).sort()).toEqual(listed.map((s) => s.id).sort());
    // listed from the index as the agent's own listing lists them (what `sessions` prints either way)
    const pick = (s: { id: string; title?: string; messageCount: number; project?: string }) => [
      s.id,
      s.title,
      s.messageCount,
      s.project,
    ];
    expect((await store.listSessions({ source: 'opencode' })).map(pick).sort()).toEqual(listed.map(pick).sort());
    const again = await sync.sync(sources, { formats: ['opencode'] });
    expect(again.unchanged).toBe(listed.length);
    expect(again.reread).toBe(0);
    const one = listed[0] as { id: string };
    // OpenCode renames a session: a new title and a later update time on its row
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(join(dataDir, 'opencode.db'));
    raw
      .prepare('UPDATE session SET title = ?, time_updated = time_updated + 1000 WHERE id = ?')
      .run('renamed in opencode', one.id);
    raw.close();
    const third = await sync.sync(sources, { formats: ['opencode'] });
    expect(third.reread).toBe(1);
    expect((await store.getSession(one.id))?.title).toBe('renamed in opencode');
  });

  it('never replaces a session the threadbase store holds under the same id', async () => {
    const sources = new Sources(env);
    const [w] = await writeClaude(sources, 1);
    if (!w) throw new Error('no session');
    const mine = await sources.driver('claude').getSession(w.id);
    if (!mine) throw new Error('unreadable');
    await store.writeSession({ ...mine, title: 'my own copy' }, { keepId: true });
    const r = await new IndexSync(store).sync(sources, { formats: ['claude'] });
    expect(r.failed).toBe(1);
    expect(r.warnings.some((x) => x.id === w.id && x.message.includes('threadbase session'))).toBe(true);
    const kept = await store.getSession(w.id);
    expect(kept?.source).toBe('threadbase');
    expect(kept?.title).toBe('my own copy');
  });

  it('writes a new index in 16 KB pages, merges no FTS5 segments while syncing, and restores automerge after', async () => {
    expect(store.db.pragma('page_size', { simple: true })).toBe(16384);
    const sources = new Sources(env);
    await writeClaude(sources, 2);
    const automerge = () =>
      (store.db.prepare(`SELECT v FROM entries_fts_config WHERE k = 'automerge'`).get() as { v: number } | undefined)?.v;
    const during: (number | undefined)[] = [];
    await new IndexSync(store).sync(sources, { formats: ['claude'], onProgress: () => during.push(automerge()) });
    expect(during.length).toBeGreaterThan(0);
    expect(new Set(during)).toEqual(new Set([0]));
    expect(automerge()).toBe(4);
    expect((await store.search('zanzibarquokka')).length).toBeGreaterThan(0);
  });

  it('leaves up to 64 FTS5 segments unmerged (a cold sync does not rewrite the index at every 16th batch), and searches them all', async () => {
    const sources = new Sources(env);
    const written = await writeClaude(sources, 20);
    // one unit per transaction: each commit flushes one segment
    await new IndexSync(store).sync(sources, { formats: ['claude'], batchUnits: 1 });
    const segments = (store.db.prepare('SELECT count(DISTINCT segid) n FROM entries_fts_idx').get() as { n: number }).n;
    // FTS5's default (crisismerge 16) would have merged the first 16 into one
    expect(segments).toBeGreaterThan(16);
    const hits = await store.search('zanzibarquokka', { limit: 100 });
    expect(new Set(hits.map((h) => h.sessionId))).toEqual(new Set(written.map((w) => w.id)));
  });

  it('a sync that finds nothing changed writes nothing, not even its time, and turns back on an automerge a killed sync left off', async () => {
    const sources = new Sources(env);
    await writeClaude(sources, 2);
    const sync = new IndexSync(store);
    await sync.sync(sources, { formats: ['claude'] });
    const automerge = () =>
      (store.db.prepare(`SELECT v FROM entries_fts_config WHERE k = 'automerge'`).get() as { v: number } | undefined)?.v;
    expect(automerge()).toBe(4);
    const changes = () => (store.db.prepare('SELECT total_changes() n').get() as { n: number }).n;
    const before = changes();
    const firstTime = lastSync(store, 'claude');
    expect(firstTime).toBeDefined();
    await new Promise((r) => setTimeout(r, 5));
    const warm = await sync.sync(sources, { formats: ['claude'] });
    expect(warm.unchanged).toBe(2);
    // no row at all: neither the sync's time nor FTS5 settings written and set back
    expect(changes() - before).toBe(0);
    expect(lastSync(store, 'claude')).toBe(firstTime);
    // a store with nothing in it is synced all the same the first time, and answers from then on
    expect(lastSync(store, 'pi')).toBeUndefined();
    const empty = await sync.sync(sources, { formats: ['pi'] });
    expect(empty.units).toBe(0);
    expect(lastSync(store, 'pi')).toBeDefined();
    expect((await sync.freshness(sources, ['pi']))[0]?.fresh).toBe(true);
    // a sync that changes something records its time
    await writeClaude(sources, 1);
    const grown = await sync.sync(sources, { formats: ['claude'] });
    expect(grown.reread).toBe(1);
    expect((lastSync(store, 'claude') as string) > (firstTime as string)).toBe(true);
    // a sync killed while writing leaves FTS5's automerge off: the next one, with nothing to write, restores it
    store.db.exec(`INSERT INTO entries_fts (entries_fts, rank) VALUES ('automerge', 0)`);
    expect(automerge()).toBe(0);
    await sync.sync(sources, { formats: ['claude'] });
    expect(automerge()).toBe(4);
  });

  it('a pi file unchanged since the index read it is not read again to list its session id', async () => {
    const sources = new Sources(env);
    const pi = sources.driver('pi') as unknown as {
      writeSession: (s: ReturnType<typeof sampleSession>) => Promise<{ id: string; path?: string }>;
      listUnits: (
        known?: ReadonlyMap<string, import('../../src/model/driver.js').SourceUnit>,
      ) => Promise<import('../../src/model/driver.js').SourceUnit[]>;
    };
    const info = await pi.writeSession(sampleSession());
    const file = info.path as string;
    const { readFile, writeFile, utimes } = await import('node:fs/promises');
    // a whole-second time, so that it can be put back exactly below
    await utimes(file, 1_750_000_000, 1_750_000_000);
    const [unit] = await pi.listUnits();
    expect(unit?.sessionId).toBe(info.id);
    // the header's id changed in place, same length, same size and time: only a read can tell
    const text = await readFile(file, 'utf8');
    const other = info.id.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0'));
    await writeFile(file, text.replace(info.id, other));
    await utimes(file, 1_750_000_000, 1_750_000_000);
    expect((await pi.listUnits(new Map([[file, unit as import('../../src/model/driver.js').SourceUnit]])))[0]?.sessionId).toBe(
      info.id,
    );
    expect((await pi.listUnits())[0]?.sessionId).toBe(other);
    // a changed file (its size or time moved) is read again
    await utimes(file, 1_750_000_000, 1_750_000_005);
    expect((await pi.listUnits(new Map([[file, unit as import('../../src/model/driver.js').SourceUnit]])))[0]?.sessionId).toBe(
      other,
    );
  });

  it('gives the store its own busy timeout back when the sync fails before writing anything', async () => {
    const sources = new Sources(env);
    await writeClaude(sources, 1);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    // the sync's first statements (FTS5 settings) fail on an index without its full-text table
    store.db.exec('DROP TABLE entries_fts');
    await expect(new IndexSync(store).sync(sources, { formats: ['claude'] })).rejects.toThrow(/entries_fts/);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });
});

describe('search', () => {
  it('ranks by bm25; a word in very many rows is ranked among its most recent matches only', async () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({
      kind: 'message' as const,
      id: `e${String(i).padStart(2, '0')}`,
      parentId: i === 0 ? null : `e${String(i - 1).padStart(2, '0')}`,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      message: {
        role: 'user' as const,
        // the first entry says it most often (best bm25), the rest once among other words
        parts: [{ type: 'text' as const, text: i === 0 ? 'quokka quokka quokka' : `quokka and some other words number ${i}` }],
      },
    }));
    store.putSession({
      id: 'rank-session',
      source: 'claude',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T01:00:00.000Z',
      messageCount: 12,
      entries,
    });
    const all = await store.search('quokka', { limit: 3 });
    expect(all.map((h) => h.entryId)[0]).toBe('e00');
    expect(all[0]?.snippet).toBe('[quokka] [quokka] [quokka]');
    expect(all.every((h, i) => i === 0 || h.score <= (all[i - 1]?.score ?? 0))).toBe(true);
    store.rankWindow = 5;
    const recent = await store.search('quokka', { limit: 20 });
    expect(recent.map((h) => h.entryId).sort()).toEqual(['e07', 'e08', 'e09', 'e10', 'e11']);
    // a filter ranks every match
    expect((await store.search('quokka', { limit: 20, source: 'threadbase' })).length).toBe(12);
  });
});
