/**
 * The sums a viewer asks again and again (SessionDriver.costBuckets for its stats page, sessionCosts
 * for its list sorted by cost) are counted once while the index is unchanged: asked again, the
 * SQLite store runs no query. A write, its own or another connection's (a sync in another process),
 * makes it count again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { respondedSession } from '../helpers/sessions.js';

let dir: string;
let path: string;
let store: SqliteStore;

/** How many sums of the counted records (stats' GROUP BY) `fn` has the store run. */
async function sumsRun(fn: () => Promise<unknown>): Promise<number> {
  const prepare = store.db.prepare;
  let n = 0;
  store.db.prepare = ((sql: string) => {
    if (/GROUP BY 1, 2, 3/.test(sql)) n++;
    return prepare.call(store.db, sql);
  }) as typeof store.db.prepare;
  try {
    await fn();
  } finally {
    store.db.prepare = prepare;
  }
  return n;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-sqlite-memo-'));
  path = join(dir, 'index.db');
  store = openSqliteStore(path);
  for (let k = 0; k < 3; k++) store.putSession(respondedSession(`s-${k}`, `2026-01-0${k + 1}T10:00:00.000Z`, 4));
});

afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const responses = (buckets: { responses: number }[]) => buckets.reduce((n, b) => n + b.responses, 0);

describe("the viewer's sums on an unchanged index", () => {
  it('are counted once, and what the caller changes in an answer is not kept', async () => {
    let first: Awaited<ReturnType<SqliteStore['costBuckets']>> = [];
    expect(
      await sumsRun(async () => {
        first = await store.costBuckets('day', {}, PRICES);
      }),
    ).toBe(1);
    expect(responses(first)).toBe(12);
    const kept = structuredClone(first);
    (first[0] as { responses: number }).responses = 999;
    let again: typeof first = [];
    expect(
      await sumsRun(async () => {
        again = await store.costBuckets('day', {}, PRICES);
      }),
    ).toBe(0);
    expect(again).toEqual(kept);
    // another grouping, filter or price table is its own sum
    expect(await sumsRun(() => store.costBuckets('model', {}, PRICES))).toBe(1);
    expect(await sumsRun(() => store.costBuckets('day', { project: '/w/app' }, PRICES))).toBe(1);
    expect(await sumsRun(() => store.costBuckets('day', {}, { ...PRICES }))).toBe(1);
    // the list's prices of every session
    const costs = await store.sessionCosts(PRICES);
    (costs[0] as { costByModel: Record<string, number> }).costByModel.x = 1;
    let costsAgain: typeof costs = [];
    expect(
      await sumsRun(async () => {
        costsAgain = await store.sessionCosts(PRICES);
      }),
    ).toBe(0);
    expect(costsAgain.map((c) => c.costByModel?.x)).toEqual([undefined, undefined, undefined]);
  });

  it("are counted again after the store's own write", async () => {
    store.putSession(respondedSession('s-new', '2026-01-05T10:00:00.000Z', 2));
    let after: Awaited<ReturnType<SqliteStore['costBuckets']>> = [];
    expect(
      await sumsRun(async () => {
        after = await store.costBuckets('day', {}, PRICES);
      }),
    ).toBe(1);
    expect(responses(after)).toBe(14);
  });

  it("are counted again after another connection's write (a sync in another process)", async () => {
    expect(await sumsRun(() => store.costBuckets('day', {}, PRICES))).toBe(0);
    const other = openSqliteStore(path);
    try {
      other.putSession(respondedSession('s-other', '2026-01-06T10:00:00.000Z', 3));
    } finally {
      await other.close();
    }
    let after: Awaited<ReturnType<SqliteStore['costBuckets']>> = [];
    expect(
      await sumsRun(async () => {
        after = await store.costBuckets('day', {}, PRICES);
      }),
    ).toBe(1);
    expect(responses(after)).toBe(17);
    expect((await store.sessionCosts(PRICES)).map((c) => c.id).sort()).toEqual(['s-0', 's-1', 's-2', 's-new', 's-other']);
  });
});
