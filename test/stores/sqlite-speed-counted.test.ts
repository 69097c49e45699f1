/**
 * The counted records' sums read only their covering index (entries_counted), never the entries'
 * rows, whichever records they count: the copy that counts (`stats`, the viewer's charts) and each
 * session's own records, copies included (StatsOptions.ownRecords: sessionCosts, what the viewer's
 * list and session page price; its copies that do not count through entries_copied, few). The own
 * records were read row by row through entries_copy_key, whose index holds no usage: 0.9 s for every
 * session's on a 200 MB index (bench/RESULTS.md, reading commands). Checked by SQLite's own plan of
 * each statement run.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { respondedSession } from '../helpers/sessions.js';

let dir: string;
let store: SqliteStore;

/**
 * The plan lines SQLite gives for every statement `fn` runs on `db` (each with the arguments it was
 * run with): `db.prepare` watched while `fn` runs.
 */
async function plansOf(db: Database.Database, fn: () => unknown): Promise<string[]> {
  const lines: string[] = [];
  const prepare = db.prepare;
  const prep = (sql: string): Database.Statement<unknown[]> => prepare.call(db, sql);
  const explain = (sql: string, args: unknown[]) => {
    for (const r of prep(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]) lines.push(r.detail);
  };
  db.prepare = ((sql: string) => {
    const st = prep(sql);
    return new Proxy(st, {
      get(target, key) {
        const v = Reflect.get(target, key, target);
        if (typeof v !== 'function') return v;
        if (key === 'all' || key === 'get' || key === 'iterate')
          return (...args: unknown[]) => {
            if (st.reader) explain(sql, args);
            return v.apply(target, args);
          };
        return v.bind(target);
      },
    });
  }) as typeof db.prepare;
  try {
    await fn();
  } finally {
    db.prepare = prepare;
  }
  return lines;
}

/**
 * The plan's steps over the entries table (`e`) that read its rows: not from a covering index, nor
 * the few records with advisor requests (entries_advisors, whose JSON the sums read), nor the few
 * copies that do not count (entries_copied).
 */
const entryRowReads = (lines: readonly string[]) =>
  lines.filter((l) => /^(SCAN|SEARCH) e\b/.test(l) && !/COVERING INDEX|INDEX entries_(advisors|copied)\b/.test(l));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-sqlite-speed-'));
  store = openSqliteStore(join(dir, 'index.db'));
  const original = respondedSession('s-original', '2026-01-01T10:00:00.000Z', 6);
  store.putSession(original);
  // a fork made later, with copies of the original's first two responses (counted = 2)
  store.putSession(respondedSession('s-fork', '2026-01-02T10:00:00.000Z', 3, original));
  for (let k = 0; k < 5; k++) store.putSession(respondedSession(`s-other-${k}`, `2026-01-0${k + 3}T10:00:00.000Z`, 4));
  // the copies are there: the fork's own records include two that do not count
  expect(store.db.prepare('SELECT count(*) FROM entries WHERE counted = 2').pluck().get()).toBe(2);
});

afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the counted records are summed from their covering index', () => {
  it("every session's own records (sessionCosts: the viewer's list by cost)", async () => {
    let costs: Awaited<ReturnType<SqliteStore['sessionCosts']>> = [];
    const plans = await plansOf(store.db, async () => {
      costs = await store.sessionCosts(PRICES);
    });
    expect(plans.some((l) => /COVERING INDEX entries_counted/.test(l))).toBe(true);
    expect(entryRowReads(plans)).toEqual([]);
    // the fork's own records count its copies too: 3 + 2 responses
    const fork = costs.find((c) => c.id === 's-fork');
    const other = costs.find((c) => c.id === 's-other-0');
    expect(fork && other && fork.cost / other.cost).toBeGreaterThan(1);
    expect(costs).toHaveLength(7);
  });

  it('stats by day, model, project, session and source, and usage totals', async () => {
    for (const by of ['day', 'model', 'project', 'session', 'source'] as const) {
      const plans = await plansOf(store.db, () => stats(store, PRICES, { by }));
      expect(
        plans.some((l) => /COVERING INDEX entries_counted/.test(l)),
        by,
      ).toBe(true);
      expect(entryRowReads(plans), by).toEqual([]);
    }
    // by day or model, unfiltered, no counted record looks its session up (the advisors' part does)
    for (const by of ['day', 'model'] as const) {
      const plans = await plansOf(store.db, () => stats(store, PRICES, { by }));
      expect(
        plans.filter((l) => /^SEARCH s\b/.test(l)),
        by,
      ).toHaveLength(1);
    }
    const plans = await plansOf(store.db, () => store.usage());
    expect(entryRowReads(plans)).toEqual([]);
    // each response once: 6 + 3 (the fork's copies count in the original) + 5 × 4
    expect((await store.usage()).messages).toBe(6 + 3 + 5 * 4);
  });

  it('a time window seeks in the index', async () => {
    const plans = await plansOf(store.db, () => stats(store, PRICES, { by: 'day', since: '2026-01-05' }));
    expect(plans.some((l) => /COVERING INDEX entries_counted \(counted=\? AND timestamp>\?\)/.test(l))).toBe(true);
    expect(entryRowReads(plans)).toEqual([]);
  });
});
