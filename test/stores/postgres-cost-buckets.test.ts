/**
 * PostgreSQL's costBuckets by project name each session's project exactly, one a text column cannot
 * hold too (a NUL, an unpaired surrogate: kept in the session's info JSON), as the SQLite store does;
 * and by model and day they price recorded, fast, long-prompt and advisor requests as SQLite does (a
 * cost recorded without usage under its record's model).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CostBucket, CostBucketKey } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import type { SqliteStore } from '../../src/stores/sqlite/index.js';
import { chainSession, PRICE_TERMS, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

const PROJECTS = ['/tmp/buckets', '/tmp/buckets\u0000nul', '/tmp/buckets\uD800lone'];
const SESSIONS: Session[] = PROJECTS.map((project, i) =>
  chainSession(`buckets-${i}`, 'threadbase', project, [
    [`u${i}`, textMessage('user', 'go')],
    [`a${i}`, textMessage('assistant', 'recorded', { model: 'claude-sonnet-4', usage: usageOf(1000, 100), cost: 0.25 })],
    [`b${i}`, textMessage('assistant', 'long', { model: 'claude-sonnet-4', usage: usageOf(250_000 + i, 2000) })],
    [`c${i}`, textMessage('assistant', 'advised, fast', { model: 'claude-opus-4-6', usage: PRICE_TERMS })],
    // a cost recorded without usage: under its record's model
    [`d${i}`, textMessage('assistant', 'cost only', { model: 'claude-haiku-4-5', cost: 0.125 })],
  ]),
);

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ pg, sqlite, close } = await storesHolding('tb_pg_buckets', SESSIONS));
}, 60_000);

afterAll(async () => {
  await close?.();
});

const byKey = (list: readonly CostBucket[]) =>
  [...list].map((b) => ({ ...b, cost: Math.round(b.cost * 1e9) / 1e9 })).sort((a, b) => (a.key < b.key ? -1 : 1));

describe("PostgreSQL's costBuckets", () => {
  it('by project: each project as written, a NUL and an unpaired surrogate kept', async () => {
    const got = await pg.store.costBuckets('project', {}, PRICES);
    expect(got.map((b) => b.key).sort()).toEqual([...PROJECTS].sort());
    expect(byKey(got)).toEqual(byKey(await sqlite.costBuckets('project', {}, PRICES)));
  });

  it.each(['model', 'day', 'source'] as CostBucketKey[])('by %s: as the SQLite store counts and prices them', async (by) => {
    const got = await pg.store.costBuckets(by, {}, PRICES);
    expect(byKey(got)).toEqual(byKey(await sqlite.costBuckets(by, {}, PRICES)));
    if (by === 'model')
      expect(got.map((b) => b.key).sort()).toEqual(['claude-haiku-4-5', 'claude-opus-4-6', 'claude-opus-5', 'claude-sonnet-4']);
  });

  it("leave sessionCosts' cost by model as SQLite's (a cost recorded without usage under its model)", async () => {
    const costs = async (store: typeof sqlite | typeof pg.store) =>
      (await store.sessionCosts(PRICES))
        .map((c) => c.costByModel)
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    expect(await costs(pg.store)).toEqual(await costs(sqlite));
  });
});
