import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { loadPrices, usageCostByModel } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { openStore } from '../../src/stores/open.js';
import { ftsQuery, openSqliteStore, SqliteStore } from '../../src/stores/sqlite/index.js';
import { SCHEMA_VERSION } from '../../src/stores/sqlite/schema.js';
import { sampleSession } from '../conformance/driver-suite.js';
import { spreadUsageEntries } from '../helpers/sessions.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-sqlite-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sqlite store', () => {
  it('is a WAL database at the current schema version, and reopening does not migrate again', async () => {
    const path = join(dir, 's.db');
    const store = openSqliteStore(path);
    const info = await store.writeSession(sampleSession());
    await store.close();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    raw.close();
    const again = openSqliteStore(path);
    expect((await again.getSession(info.id))?.source).toBe('threadbase');
    await again.close();
  });

  it('opening tries again when another process creating the same database makes SQLite give way', async () => {
    // SQLite answers SQLITE_BUSY at once, without the busy handler, to one of two connections that
    // would deadlock (seen once in CI: 6 processes opening one new index, one got "database is locked").
    const real = Database.prototype.pragma;
    let refused = 0;
    const spy = vi.spyOn(Database.prototype, 'pragma').mockImplementation(function (this: Database.Database, source, options) {
      if (source === 'journal_mode = WAL' && refused < 2) {
        refused++;
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      }
      return real.call(this, source, options);
    });
    try {
      const store = openSqliteStore(join(dir, 'busy.db'));
      expect(refused).toBe(2);
      expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      await store.close();
    } finally {
      spy.mockRestore();
    }
  });

  it('migrates an index of schema 3 to the covering usage index, keeping its totals', async () => {
    const path = join(dir, 'v3.db');
    const store = openSqliteStore(path);
    await store.writeSession(sampleSession());
    const before = await store.usage();
    expect(before.messages).toBeGreaterThan(0);
    // back to how schema 3 left it
    store.db.exec(`DROP INDEX entries_counted; CREATE INDEX entries_counted ON entries(counted, timestamp) WHERE counted = 1;
      PRAGMA user_version = 3;`);
    await store.close();
    const again = openSqliteStore(path);
    expect(again.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const columns = (again.db.prepare(`SELECT name FROM pragma_index_info('entries_counted')`).all() as { name: string }[]).map(
      (r) => r.name,
    );
    expect(columns).toContain('input');
    expect(await again.usage()).toEqual(before);
    await again.close();
  });

  it('migrates an index of schema 4: sessions of several models get their usage per model', async () => {
    const path = join(dir, 'v4.db');
    const store = openSqliteStore(path);
    const usage = (input: number) => ({ input, output: 2, cacheRead: 3, cacheWrite: 4, reasoning: 0 });
    const reply = (id: string, parentId: string, model: string, input: number, responseId?: string): Entry => ({
      kind: 'message',
      id,
      parentId,
      timestamp: `2026-01-01T00:00:0${id.length}.000Z`,
      message: {
        role: 'assistant',
        model,
        usage: usage(input),
        parts: [{ type: 'text', text: id }],
        ...(responseId ? { responseId } : {}),
      },
    });
    const user: Entry = {
      kind: 'message',
      id: 'u',
      parentId: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      message: { role: 'user', parts: [{ type: 'text', text: 'go' }] },
    };
    const mixed = await store.writeSession({
      ...sampleSession(),
      entries: [user, reply('a1', 'u', 'big', 5, 'r'), reply('a2', 'a1', 'big', 7, 'r'), reply('a3', 'a2', 'small', 11)],
    });
    const single = await store.writeSession(sampleSession());
    const expected = (await store.getSession(mixed.id))?.usageByModel;
    expect(expected).toEqual({ big: usage(7), small: usage(11) });
    // the sample's advisor requests bill under their own model
    const expectedSingle = (await store.getSession(single.id))?.usageByModel;
    expect(Object.keys(expectedSingle ?? {})).toHaveLength(2);
    // back to how schema 4 left it: no usageByModel in the stored info
    for (const row of store.db.prepare('SELECT id, info_json FROM sessions').all() as { id: string; info_json: string }[]) {
      const { usageByModel: _m, ...info } = JSON.parse(row.info_json) as Session;
      store.db.prepare('UPDATE sessions SET info_json = ? WHERE id = ?').run(JSON.stringify(info), row.id);
    }
    store.db.exec('PRAGMA user_version = 4');
    expect((await store.listSessions()).find((s) => s.id === mixed.id)?.usageByModel).toBeUndefined();
    await store.close();
    const again = openSqliteStore(path);
    const listed = await again.listSessions();
    expect(listed.find((s) => s.id === mixed.id)?.usageByModel).toEqual(expected);
    // schema 5 filed the counted records' own models only; 17 files advisor requests under theirs too
    expect(listed.find((s) => s.id === single.id)?.usageByModel).toEqual(expectedSingle);
    await again.close();
  });

  it('migrates an index of schema 6: the 1-hour cache writes are a column of the counted records and their index', async () => {
    const path = join(dir, 'schema6.db');
    const store = openSqliteStore(path);
    const s = sampleSession();
    const reply = s.entries[1] as Entry & { kind: 'message' };
    reply.message.usage = { input: 1, output: 2, cacheRead: 0, cacheWrite: 30, cacheWrite1h: 20, reasoning: 0 };
    const written = await store.writeSession(s);
    const oneHour = () =>
      store.db.prepare('SELECT sum(cache_write_1h) FROM entries WHERE session_id = ? AND counted = 1').pluck().get(written.id);
    expect(oneHour()).toBe(20);
    // back to how schema 6 left it: no such column
    store.db.exec(`DROP INDEX entries_counted; ALTER TABLE entries DROP COLUMN cache_write_1h;
      CREATE INDEX entries_counted ON entries(counted, timestamp, session_id, model, cost, input, output, cache_read,
        cache_write, reasoning) WHERE counted = 1; PRAGMA user_version = 6`);
    await store.close();
    const again = openSqliteStore(path);
    expect(again.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const indexed = again.db.prepare("SELECT name FROM pragma_index_info('entries_counted')").pluck().all();
    expect(indexed).toContain('cache_write_1h');
    // what was indexed before keeps none (its file is read again when it changes); a new write has it
    expect(again.db.prepare('SELECT count(*) FROM entries WHERE cache_write_1h IS NOT NULL').pluck().get()).toBe(0);
    const next = await again.writeSession(s);
    expect(again.db.prepare('SELECT sum(cache_write_1h) FROM entries WHERE session_id = ?').pluck().get(next.id)).toBe(20);
    await again.close();
  });

  it('migrates an index of schema 7: web searches, fast mode and where a request ran are columns of the counted records and their index', async () => {
    const path = join(dir, 'schema7.db');
    const store = openSqliteStore(path);
    const s = sampleSession();
    const reply = s.entries[1] as Entry & { kind: 'message' };
    reply.message.usage = {
      input: 1,
      output: 2,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
      webSearches: 4,
      speed: 'fast',
      inferenceGeo: 'us',
    };
    const written = await store.writeSession(s);
    // counted > 0: the second session written is a copy of the first (its records count once, in one of them)
    const served = (db: typeof store.db, id: string) =>
      db.prepare('SELECT web_searches, speed, inference_geo FROM entries WHERE session_id = ? AND counted > 0').get(id);
    expect(served(store.db, written.id)).toEqual({ web_searches: 4, speed: 'fast', inference_geo: 'us' });
    // back to how schema 7 left it: no such columns
    store.db.exec(`DROP INDEX entries_counted; ALTER TABLE entries DROP COLUMN web_searches;
      ALTER TABLE entries DROP COLUMN speed; ALTER TABLE entries DROP COLUMN inference_geo;
      CREATE INDEX entries_counted ON entries(counted, timestamp, session_id, model, cost, input, output, cache_read,
        cache_write, cache_write_1h, reasoning) WHERE counted = 1; PRAGMA user_version = 7`);
    await store.close();
    const again = openSqliteStore(path);
    expect(again.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const indexed = again.db.prepare("SELECT name FROM pragma_index_info('entries_counted')").pluck().all();
    expect(indexed).toEqual(expect.arrayContaining(['web_searches', 'speed', 'inference_geo', 'cache_write_1h']));
    expect(served(again.db, written.id)).toEqual({ web_searches: null, speed: null, inference_geo: null });
    const next = await again.writeSession(s);
    expect(served(again.db, next.id)).toEqual({ web_searches: 4, speed: 'fast', inference_geo: 'us' });
    await again.close();
  });

  it('looks entries up through indexes, not scans', () => {
    const store = openSqliteStore(join(dir, 's.db'));
    const plan = (sql: string) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('a', 'b') as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan('SELECT json FROM entries WHERE session_id = ? AND id = ?')).toMatch(/USING INDEX/);
    expect(plan('SELECT json FROM entries WHERE session_id = ? ORDER BY seq LIMIT ?')).toMatch(/USING INDEX entries_seq/);
    // usage sums read the counted records' index alone, not their rows among the JSON
    expect(
      plan(`SELECT e.model, sum(e.input), sum(e.output), sum(e.cache_read), sum(e.cache_write), sum(e.cache_write_1h),
          sum(e.reasoning), sum(e.web_searches), sum(e.cost), e.input + e.cache_read + e.cache_write > 200000, e.speed, e.inference_geo
        FROM entries e JOIN sessions s ON s.id = e.session_id WHERE e.counted = 1 AND s.source = ? AND e.timestamp >= ?
        GROUP BY s.id, e.model, 10, 11, 12`),
    ).toMatch(/USING COVERING INDEX entries_counted/);
    void store.close();
  });

  it('keeps raw records, counts a split response once, and openStore opens it for a path', async () => {
    const store = (await openStore(join(dir, 'via-open.db'))) as SqliteStore;
    expect(store).toBeInstanceOf(SqliteStore);
    const s: Session = sampleSession();
    const asst = s.entries[1] as Entry & { kind: 'message' };
    asst.raw = { original: true };
    asst.rawSource = 'claude';
    // the same response continued in a second record carrying the same usage
    const cont: Entry = {
      ...structuredClone(asst),
      id: 'split-continuation',
      parentId: asst.id,
      message: { ...asst.message, parts: [{ type: 'text', text: 'more of the same response' }] },
    };
    (s.entries[2] as Entry).parentId = 'split-continuation';
    s.entries.splice(2, 0, cont);
    const info = await store.writeSession(s);
    expect((await store.getEntry(info.id, asst.id))?.raw).toEqual({ original: true });
    const u = await store.usage();
    // the sample's responses (130) and the advisor request inside its second (300)
    expect(u.input).toBe(130 + 300);
    expect(u.messages).toBe(2);
    await store.close();
  });

  it('counts usage and cost as summarizeUsage does when a response spreads them, written whole or record by record', async () => {
    const entries = spreadUsageEntries();
    const expected = summarizeUsage(entries);
    expect(expected).toMatchObject({ usage: { input: 127, output: 10 }, cost: 0.75, responses: 4 });
    // each in a store of its own: in one store the two would be copies of the same responses, counted once
    const whole = openSqliteStore(join(dir, 'whole.db'));
    await whole.writeSession({ ...sampleSession(), project: '/whole', entries });
    // appended one record at a time: each append settles its response again (recount)
    const byRecord = openSqliteStore(join(dir, 'appended.db'));
    const appended = await byRecord.writeSession({ ...sampleSession(), project: '/appended', entries: entries.slice(0, 2) });
    for (const e of entries.slice(2)) await byRecord.appendEntries(appended.id, [e]);
    const prices = loadPrices();
    for (const [project, store] of [
      ['/whole', whole],
      ['/appended', byRecord],
    ] as const) {
      const totals = await store.usage({ project });
      expect(totals).toMatchObject({ ...expected.usage, messages: expected.responses });
      expect(totals.cost).toBeCloseTo(expected.cost, 10);
      const listed = (await store.listSessions()).find((s) => s.project === project);
      expect(listed?.usage).toEqual(expected.usage);
      expect(listed?.cost).toBeCloseTo(expected.cost, 10);
      // by model: the tokens go with the model of the record that carried them, the cost is the recorded one
      const byModel = stats(store, prices, { by: 'model', project });
      expect(byModel.map((r) => [r.key, r.inputTokens, r.outputTokens, r.messages])).toEqual([
        ['big', 120, 7, 3],
        ['small', 7, 3, 1],
      ]);
      expect(byModel[0]?.cost).toBeCloseTo(0.75, 10);
    }
    expect(usageCostByModel(entries, prices).map((r) => [r.model, r.usage.input, r.cost, r.responses, r.estimated])).toEqual([
      ['big', 120, 0.75, 3, false],
      ['small', 7, null, 1, false],
    ]);
    await whole.close();
    await byRecord.close();
  });

  it('turns any user text into a safe FTS query', async () => {
    expect(ftsQuery('foo "bar baz" NOT(')).toBe('"foo" "bar baz" "NOT("');
    const store = openSqliteStore(join(dir, 's.db'));
    await store.writeSession(sampleSession());
    await expect(store.search('AND OR NOT "unbalanced')).resolves.toEqual([]);
    expect((await store.search('ls -la')).length).toBeGreaterThan(0);
    await store.close();
  });
});
