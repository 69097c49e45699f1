import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/model/errors.js';
import type { Entry, Session } from '../../src/model/types.js';
import { createApp } from '../../src/server/app.js';
import { ProjectScopedDriver, projectStores } from '../../src/server/scope.js';
import { ProjectIdsDriver } from '../../src/server/tenant-ids.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { WebData } from '../../src/server/web/data.js';
import { costOf, estimatedCostOf, PRICES, priceOf } from '../../src/stores/index-sync/prices.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';
import { storesHolding, type TestSchema } from './pg-helpers.js';

const MODEL = 'claude-sonnet-4'; // long-prompt rates above 200,000 tokens, 1.1 times in the US

/** One recorded response (0.5) and two unrecorded ones: a long prompt run in the US, a short one. */
function mixedSession(id: string, ids: [string, string, string, string]): Session {
  return chainSession(id, 'threadbase', '/tmp/list-cost', [
    [ids[0], textMessage('user', 'go')],
    [ids[1], textMessage('assistant', 'recorded', { model: MODEL, usage: usageOf(1000, 100), cost: 0.5 })],
    [ids[2], textMessage('assistant', 'long, US', { model: MODEL, usage: usageOf(250_000, 2000, { inferenceGeo: 'us' }) })],
    [ids[3], textMessage('assistant', 'short', { model: MODEL, usage: usageOf(3000, 400) })],
  ]);
}

const A = mixedSession('list-cost-a', ['a0', 'a1', 'a2', 'a3']);
/** a fork of A: the same records (ids and times) in a session of its own, created later */
const FORK: Session = {
  ...mixedSession('list-cost-fork', ['a0', 'a1', 'a2', 'a3']),
  parentId: A.id,
  createdAt: '2026-01-02T00:00:00.000Z',
};
/** request by request, as the session's page and `stats --by session` price it */
const EXPECTED = 0.5 + estimatedCostOf(A.entries, PRICES).cost;
/** the per-model sum at base rates (what the list showed off the local index, when nothing was recorded) */
const BASE = costOf(priceOf(PRICES, MODEL), usageOf(253_000, 2400), 0);

let pg: TestSchema;
let sqlite: SqliteStore;
let dir: string;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ pg, sqlite, dir, close } = await storesHolding('tb_list_cost', [A, FORK]));
}, 60_000);

afterAll(async () => {
  await close?.();
});

describe('sessionCosts', () => {
  it('prices each request at its own rates and keeps recorded costs, on PostgreSQL as on SQLite', async () => {
    // the long US request above the threshold costs more than base rates: the case the sum misses
    expect(EXPECTED).toBeGreaterThan(0.5 + BASE + 0.1);
    for (const store of [pg.store, sqlite]) {
      const rows = await store.sessionCosts(PRICES);
      const costs = Object.fromEntries(rows.map((r) => [r.id, r.cost]));
      // a fork counts its own records, as the local list does (copies included)
      expect(Object.keys(costs).sort()).toEqual([A.id, FORK.id]);
      expect(Math.abs((costs[A.id] ?? 0) - EXPECTED)).toBeLessThan(1e-9);
      expect(Math.abs((costs[FORK.id] ?? 0) - EXPECTED)).toBeLessThan(1e-9);
      expect(rows.every((r) => r.source === 'threadbase' && r.unpricedModels.length === 0)).toBe(true);
      // only the sessions asked for
      expect((await store.sessionCosts(PRICES, [FORK.id])).map((r) => r.id)).toEqual([FORK.id]);
    }
  });

  it("gives nothing of another PostgreSQL tenant's sessions, asked for or not", async () => {
    const other = pg.store.forTenant('someone-else');
    expect(await other.sessionCosts(PRICES)).toEqual([]);
    expect(await other.sessionCosts(PRICES, [A.id, FORK.id])).toEqual([]);
  });

  it("the web list on PostgreSQL shows that cost, not only the recorded 0.5 (the list's page and sorted by cost)", async () => {
    const web = new WebData(pg.store);
    for (const sort of ['updated', 'cost'] as const) {
      const page = await web.listSessions({ sort });
      const row = page.sessions.find((s) => s.id === A.id);
      expect(Math.abs((row?.cost ?? 0) - EXPECTED)).toBeLessThan(1e-9);
      expect(row?.costEstimated).toBe(true);
    }
  });
});

describe('the project scope forwards the optional methods, scoped', () => {
  it("sessionCosts: only the project's own sessions, even when another's ids are asked for", async () => {
    const inner = openSqliteStore(join(dir, 'scoped.db'));
    try {
      const mine = new ProjectScopedDriver(inner, 'p1');
      const theirs = new ProjectScopedDriver(inner, 'p2');
      await mine.writeSession(A, { keepId: true });
      await theirs.writeSession(FORK, { keepId: true });
      expect((await mine.sessionCosts?.(PRICES))?.map((r) => r.id)).toEqual([A.id]);
      expect(await mine.sessionCosts?.(PRICES, [FORK.id])).toEqual([]);
      expect((await theirs.sessionCosts?.(PRICES, [A.id, FORK.id]))?.map((r) => r.id)).toEqual([FORK.id]);
      // SQLite appends with appendEntries: the scope offers no appendToChain it could not forward
      expect(mine.appendToChain).toBeUndefined();
    } finally {
      inner.close();
    }
  });

  it("appendToChain: forwarded where the store has it, refused for another project's session", async () => {
    const inner = new ChainStore();
    const mine = new ProjectScopedDriver(inner, 'p1');
    const theirs = new ProjectScopedDriver(inner, 'p2');
    const info = await mine.writeSession(chainSession('chain-1', 'threadbase', '/tmp/x', [['c0', textMessage('user', 'hi')]]));
    const entry: Entry = {
      kind: 'message',
      id: 'c1',
      parentId: null,
      timestamp: new Date().toISOString(),
      message: textMessage('user', 'more'),
    };
    await expect(theirs.appendToChain?.(info.id, entry)).rejects.toBeInstanceOf(NotFoundError);
    expect((await mine.appendToChain?.(info.id, entry))?.parentId).toBe('c0');
    expect(inner.chainAppends).toBe(1);
  });
});

/** A memory store that appends under the last entry itself, as PostgreSQL does (counting its calls). */
class ChainStore extends MemoryStore {
  chainAppends = 0;
  async appendToChain(sessionId: string, entry: Entry): Promise<Entry> {
    this.chainAppends++;
    const s = await this.getSession(sessionId);
    if (!s) throw new NotFoundError('memory session', sessionId);
    const stored = { ...entry, parentId: s.entries.at(-1)?.id ?? null };
    await this.appendEntries(sessionId, [stored]);
    return stored;
  }
}

describe("the Acontext messages route asks the store for appendToChain (not for PostgreSQL's class)", () => {
  it('appends through appendToChain on any store that has it', async () => {
    const store = new ChainStore();
    const tokens = new MemoryTokenStore();
    const key = (await tokens.createToken('team')).key;
    const app = createApp({ store, tokens, log: () => undefined });
    const call = async (path: string, body: unknown) =>
      app.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await call('/api/v1/session', {});
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    for (const content of ['one', 'two']) {
      const r = await call(`/api/v1/session/${id}/messages`, { blob: { role: 'user', content }, format: 'openai' });
      expect(r.status).toBe(201);
    }
    expect(store.chainAppends).toBe(2);
    const session = await store.getSession(id);
    const [first, second] = session?.entries ?? [];
    expect(second?.parentId).toBe(first?.id);
  });
});

describe("projectStores asks the store for forTenant (not for PostgreSQL's class)", () => {
  it("uses any store's own tenant views, one per project, kept", () => {
    const views: string[] = [];
    class TenantStore extends MemoryStore {
      forTenant(tenant: string): MemoryStore {
        views.push(tenant);
        return new MemoryStore();
      }
    }
    const stores = projectStores(new TenantStore());
    const p1 = stores('p1');
    expect(p1).toBeInstanceOf(ProjectIdsDriver);
    expect((p1 as ProjectIdsDriver).inner).not.toBeInstanceOf(ProjectScopedDriver);
    expect(stores('p1')).toBe(p1);
    stores('p2');
    expect(views).toEqual(['p1', 'p2']);
    // a store without forTenant is wrapped
    expect((projectStores(new MemoryStore())('p1') as ProjectIdsDriver).inner).toBeInstanceOf(ProjectScopedDriver);
  });
});
