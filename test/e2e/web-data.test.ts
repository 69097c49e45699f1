/**
 * The viewer's JSON routes over a real store: paging the path of a 10,000-entry session, the
 * folded branch tree, a hit on an abandoned branch opening that branch, tool results paired with
 * their calls, stats that agree with per-session usage, list filters and sort, and errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { createWebApp } from '../../src/server/web/index.js';
import { costOf, PRICES, priceOf } from '../../src/stores/index-sync/prices.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { spreadUsageEntries } from '../helpers/sessions.js';
import {
  ALT_LEAF,
  BIG_ENTRIES,
  BIG_ID,
  BIG_NEEDLE,
  BIG_NEEDLE_INDEX,
  PARSER_ID,
  seedMemoryStore,
  seedStore,
} from './fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies read in assertions
type Json = Record<string, any>;

describe('web data routes', () => {
  let app: ReturnType<typeof createWebApp>;
  let sessions: Session[];
  const get = async (path: string): Promise<Json> => {
    const res = await app.request(`/api/v1/web${path}`);
    const body = (await res.json()) as Json;
    return { status: res.status, ...body };
  };

  beforeAll(async () => {
    const seeded = await seedMemoryStore();
    sessions = seeded.sessions;
    app = createWebApp({ driver: seeded.driver });
  });

  it('pages the path of a 10,000-entry session and finds the page of an entry', async () => {
    const first = await get(`/sessions/${BIG_ID}/path?limit=100`);
    expect(first.total).toBe(BIG_ENTRIES);
    expect(first.entries).toHaveLength(100);
    expect(first.entries[0].id).toBe('big-0');
    expect(first.entries[0].raw).toBeUndefined();
    const page = await get(`/sessions/${BIG_ID}/path?entry=big-${BIG_NEEDLE_INDEX + 17}&limit=100`);
    expect(page.offset).toBe(BIG_NEEDLE_INDEX);
    expect(page.entryPosition).toBe(BIG_NEEDLE_INDEX + 17);
    expect(page.entries[17].id).toBe(`big-${BIG_NEEDLE_INDEX + 17}`);
    const last = await get(`/sessions/${BIG_ID}/path?offset=9950&limit=100`);
    expect(last.entries).toHaveLength(50);
    // a call on this page has its result with it, and the answering tool message knows it is paired
    const withCall = await get(`/sessions/${BIG_ID}/path?offset=100&limit=2`);
    expect(withCall.toolResults['bc-101'].content).toContain('module-101/index.ts');
    const withResult = await get(`/sessions/${BIG_ID}/path?offset=103&limit=1`);
    expect(withResult.pairedResultIds).toEqual(['bc-101']);
  });

  it('folds the tree to roots, branch points, compactions and leaves', async () => {
    const { nodes, currentLeafId } = await get(`/sessions/${PARSER_ID}/tree`);
    expect(currentLeafId).toBe('p-8');
    const ids = nodes.map((n: Json) => n.id).sort();
    expect(ids).toEqual(['p-1', 'p-2', 'p-8', 'p-c', ALT_LEAF].sort());
    const comp = nodes.find((n: Json) => n.id === 'p-c');
    expect(comp.kind).toBe('compaction');
    expect(comp.parentId).toBe('p-2');
    expect(comp.skipped).toBe(4);
    expect(
      nodes
        .filter((n: Json) => n.leaf)
        .map((n: Json) => n.id)
        .sort(),
    ).toEqual(['p-8', ALT_LEAF].sort());
    const big = await get(`/sessions/${BIG_ID}/tree`);
    expect(big.nodes).toHaveLength(2);
    expect(big.nodes[1].skipped).toBe(BIG_ENTRIES - 2);
  });

  it('opens an entry of an abandoned branch on that branch', async () => {
    const page = await get(`/sessions/${PARSER_ID}/path?entry=p-alt-1`);
    expect(page.leafId).toBe(ALT_LEAF);
    expect(page.entries.map((e: Json) => e.id)).toEqual(['p-1', 'p-2', 'p-alt-1', ALT_LEAF]);
    // the edit call has no result on this branch
    expect(page.toolResults['call-edit-1']).toBeUndefined();
    const main = await get(`/sessions/${PARSER_ID}/path?entry=p-3`);
    expect(main.leafId).toBe('p-8');
    expect(main.toolResults['call-edit-1'].content).toContain('has been updated');
  });

  it('pages the context a model sees, worded by the store', async () => {
    const ctx = await get(`/sessions/${PARSER_ID}/context`);
    expect(ctx.leafId).toBe('p-8');
    expect(ctx.model).toBe('claude-sonnet-4-5');
    expect(ctx.entries[0].message.meta.compactionSummary).toBe(true);
    expect(ctx.total).toBe(4);
    const alt = await get(`/sessions/${PARSER_ID}/context?leaf=${ALT_LEAF}`);
    expect(alt.total).toBe(4);
    expect(alt.model).toBe('claude-opus-4-1');
    const big = await get(`/sessions/${BIG_ID}/context?offset=9990&limit=100`);
    expect(big.total).toBe(BIG_ENTRIES);
    expect(big.entries).toHaveLength(10);
  });

  it('lists with facets, filters and sort', async () => {
    const all = await get('/sessions?limit=5');
    expect(all.total).toBe(sessions.length);
    expect(all.sessions).toHaveLength(5);
    expect(all.facets.sources).toEqual(['claude', 'codex', 'opencode', 'pi']);
    const pi = await get('/sessions?source=pi');
    expect(pi.sessions.every((s: Json) => s.source === 'pi')).toBe(true);
    expect(pi.total).toBe(sessions.filter((s) => s.source === 'pi').length);
    const byCost = await get('/sessions?sort=cost&order=asc&limit=500');
    const costs = byCost.sessions.map((s: Json) => s.cost);
    expect(costs).toEqual([...costs].sort((a: number, b: number) => a - b));
    const opus = await get('/sessions?model=claude-opus-4-1');
    expect(opus.sessions.map((s: Json) => s.id)).toEqual([PARSER_ID]);
    expect(opus.sessions[0].costEstimated).toBe(false); // recorded by its agent
    const paged = await get('/sessions?offset=10&limit=5');
    expect(paged.sessions).toHaveLength(sessions.length - 10);
  });

  it('counts stats per response, agreeing with each session’s usage', async () => {
    const stats = await get('/stats');
    expect(stats.granularity).toBe('message');
    let cost = 0;
    let input = 0;
    for (const s of sessions) {
      const u = summarizeUsage(s.entries);
      cost += u.cost;
      input += u.usage.input;
    }
    expect(stats.totals.cost).toBeCloseTo(cost, 6);
    expect(stats.totals.input).toBe(input);
    const sum = (k: string) => stats[k].reduce((a: number, b: Json) => a + b.cost, 0);
    for (const k of ['byDay', 'byModel', 'byProject', 'bySource']) expect(sum(k)).toBeCloseTo(cost, 6);
    const opus = stats.byModel.find((b: Json) => b.key === 'claude-opus-4-1');
    expect(opus.cost).toBeCloseTo(0.105, 6);
    // the parser session spans two days, counted on the day of each response
    const parser = await get('/stats?project=/home/dev/parser');
    expect(parser.byDay.map((b: Json) => b.key)).toEqual(['2026-11-18', '2026-11-19']);
  });

  it('counts responses that spread usage and cost over their records (the last with no usage), as `stats` does', async () => {
    const entries = spreadUsageEntries();
    const session: Session = {
      id: 'split-tail',
      source: 'pi',
      createdAt: entries[0]?.timestamp ?? '',
      updatedAt: entries.at(-1)?.timestamp ?? '',
      messageCount: entries.length,
      entries,
    };
    const seeded = await seedStore(new MemoryStore(), [session]);
    const one = createWebApp({ driver: seeded.driver });
    const stats = (await (await one.request('/api/v1/web/stats')).json()) as Json;
    const expected = summarizeUsage(session.entries);
    expect(expected.usage.input).toBe(127);
    expect(stats.totals.input).toBe(expected.usage.input);
    expect(stats.totals.output).toBe(expected.usage.output);
    expect(stats.totals.cost).toBeCloseTo(expected.cost, 10);
    expect(stats.totals.responses).toBe(expected.responses);
    expect(stats.byModel.find((b: Json) => b.key === 'big')).toMatchObject({ input: 120, output: 7 });
  });

  it('prices each response whose agent recorded no cost, once per split response, on the path page', async () => {
    const t = (i: number) => new Date(Date.UTC(2026, 10, 20, 10, i)).toISOString();
    const u = (input: number, output: number) => ({ input, output, cacheRead: 1000, cacheWrite: 0, reasoning: 0 });
    const session: Session = {
      id: 'unpriced',
      source: 'claude',
      createdAt: t(0),
      updatedAt: t(4),
      messageCount: 5,
      entries: [
        {
          kind: 'message',
          id: 'u1',
          parentId: null,
          timestamp: t(0),
          message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        },
        // one response split over two records (Claude Code's shape): the last one's usage counts
        {
          kind: 'message',
          id: 'a1',
          parentId: 'u1',
          timestamp: t(1),
          message: {
            role: 'assistant',
            responseId: 'msg_1',
            model: 'claude-sonnet-4-5',
            usage: u(300, 5),
            parts: [{ type: 'thinking', thinking: 'hm' }],
          },
        },
        {
          kind: 'message',
          id: 'a2',
          parentId: 'a1',
          timestamp: t(2),
          message: {
            role: 'assistant',
            responseId: 'msg_1',
            model: 'claude-sonnet-4-5',
            usage: u(300, 80),
            parts: [{ type: 'text', text: 'hello' }],
          },
        },
        // a recorded cost is shown as recorded, not priced
        {
          kind: 'message',
          id: 'a3',
          parentId: 'a2',
          timestamp: t(3),
          message: {
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            usage: u(400, 10),
            cost: 0.5,
            parts: [{ type: 'text', text: 'more' }],
          },
        },
        // a model the table does not know: no price
        {
          kind: 'message',
          id: 'a4',
          parentId: 'a3',
          timestamp: t(4),
          message: { role: 'assistant', model: 'local-llama', usage: u(400, 10), parts: [{ type: 'text', text: 'local' }] },
        },
      ],
    };
    const seeded = await seedStore(new MemoryStore(), [session]);
    const one = createWebApp({ driver: seeded.driver });
    const page = (await (await one.request('/api/v1/web/sessions/unpriced/path')).json()) as Json;
    const expected = costOf(priceOf(PRICES, 'claude-sonnet-4-5') as NonNullable<ReturnType<typeof priceOf>>, u(300, 80));
    expect(expected).toBeGreaterThan(0);
    expect(Object.keys(page.pricedCosts)).toEqual(['a2']);
    expect(page.pricedCosts.a2).toBeCloseTo(expected, 10);
    // a later page has the costs of its own entries only
    const second = (await (await one.request('/api/v1/web/sessions/unpriced/path?offset=2&limit=2')).json()) as Json;
    expect(second.entries.map((e: Json) => e.id)).toEqual(['a2', 'a3']);
    expect(Object.keys(second.pricedCosts)).toEqual(['a2']);
    // the header: the recorded cost plus the priced ones, marked as partly estimated
    const head = (await (await one.request('/api/v1/web/sessions/unpriced')).json()) as Json;
    expect(head.cost).toBeCloseTo(0.5 + expected, 10);
    expect(head.costEstimated).toBe(true);
    // a session whose every cost is recorded is not an estimate
    const recorded = await get(`/sessions/${PARSER_ID}`);
    expect(recorded.costEstimated).toBe(false);
    expect(recorded.cost).toBeCloseTo(summarizeUsage(sessions.find((x) => x.id === PARSER_ID)?.entries ?? []).cost, 10);
    expect(recorded.cost).toBeGreaterThan(0);
  });

  it('prices a session of several models in the list, each model at its own price', async () => {
    const t = (i: number) => new Date(Date.UTC(2026, 10, 21, 9, i)).toISOString();
    const u = (input: number, output: number) => ({ input, output, cacheRead: 2000, cacheWrite: 100, reasoning: 0 });
    const reply = (id: string, parentId: string, i: number, model: string, usage: ReturnType<typeof u>, responseId?: string) => ({
      kind: 'message' as const,
      id,
      parentId,
      timestamp: t(i),
      message: {
        role: 'assistant' as const,
        model,
        usage,
        ...(responseId ? { responseId } : {}),
        parts: [{ type: 'text' as const, text: id }],
      },
    });
    const user = {
      kind: 'message' as const,
      id: 'u1',
      parentId: null,
      timestamp: t(0),
      message: { role: 'user' as const, parts: [{ type: 'text' as const, text: 'go' }] },
    };
    const mixed: Session = {
      id: 'two-models',
      source: 'claude',
      createdAt: t(0),
      updatedAt: t(3),
      messageCount: 4,
      entries: [
        user,
        // a split response of one model: its last record's usage counts, once
        reply('a1', 'u1', 1, 'claude-sonnet-4-5', u(500, 5), 'msg_1'),
        reply('a2', 'a1', 2, 'claude-sonnet-4-5', u(500, 90), 'msg_1'),
        reply('a3', 'a2', 3, 'claude-haiku-4-5', u(800, 40)),
      ],
    };
    const unknown: Session = {
      ...mixed,
      id: 'with-unknown',
      entries: [user, reply('b1', 'u1', 1, 'claude-sonnet-4-5', u(500, 90)), reply('b2', 'b1', 2, 'local-llama', u(10, 10))],
    };
    const price = (model: string) => priceOf(PRICES, model) as NonNullable<ReturnType<typeof priceOf>>;
    const expected = costOf(price('claude-sonnet-4-5'), u(500, 90)) + costOf(price('claude-haiku-4-5'), u(800, 40));
    expect(price('claude-haiku-4-5').input).not.toBe(price('claude-sonnet-4-5').input);
    for (const driver of [new MemoryStore(), openSqliteStore(':memory:')]) {
      const seeded = await seedStore(driver, [mixed, unknown]);
      const list = async (app: ReturnType<typeof createWebApp>) =>
        ((await (await app.request('/api/v1/web/sessions?sort=cost')).json()) as Json).sessions as Json[];
      const rows = await list(createWebApp({ driver: seeded.driver }));
      const row = (id: string) => rows.find((r) => r.id === id);
      expect(row('two-models')?.cost).toBeCloseTo(expected, 10);
      expect(row('two-models')?.costEstimated).toBe(true);
      // a model the table does not know: the priced part, that model named as left out of it (the page: ≈$…+)
      expect(row('with-unknown')?.cost).toBeCloseTo(costOf(price('claude-sonnet-4-5'), u(500, 90)), 10);
      expect(row('with-unknown')?.costEstimated).toBe(true);
      expect(row('with-unknown')?.unpricedModels).toEqual(['local-llama']);
      // the header prices every response the same way
      const head = (await (
        await createWebApp({ driver: seeded.driver }).request('/api/v1/web/sessions/two-models')
      ).json()) as Json;
      expect(head.cost).toBeCloseTo(expected, 10);
      // stats from the listing alone (past the per-message limit) split the session by model
      const stats = (await (
        await createWebApp({ driver: seeded.driver, statsSessionLimit: 0 }).request('/api/v1/web/stats')
      ).json()) as Json;
      const byModel = new Map((stats.byModel as Json[]).map((b) => [b.key, b]));
      expect(byModel.get('claude-haiku-4-5')?.input).toBe(800);
      expect(byModel.get('claude-sonnet-4-5')?.input).toBe(500 + 500);
      expect(byModel.get('claude-haiku-4-5')?.cost).toBeCloseTo(costOf(price('claude-haiku-4-5'), u(800, 40)), 10);
    }
  });

  it('on the local index, lists a session priced request by request, as its page and `stats` price it', async () => {
    const t = (i: number) => new Date(Date.UTC(2026, 10, 22, 9, i)).toISOString();
    const u = (input: number, cacheRead: number) => ({ input, output: 900, cacheRead, cacheWrite: 0, reasoning: 0 });
    // two requests of a model with long-prompt rates: one prompt above the threshold, one below
    const long = u(60_000, 90_000);
    const short = u(2_000, 10_000);
    const reply = (id: string, parentId: string, i: number, usage: ReturnType<typeof u>) => ({
      kind: 'message' as const,
      id,
      parentId,
      timestamp: t(i),
      message: { role: 'assistant' as const, model: 'claude-haiku-5-5', usage, parts: [{ type: 'text' as const, text: id }] },
    });
    const session: Session = {
      id: 'long-and-short',
      source: 'claude',
      createdAt: t(0),
      updatedAt: t(2),
      messageCount: 3,
      entries: [
        {
          kind: 'message',
          id: 'q',
          parentId: null,
          timestamp: t(0),
          message: { role: 'user', parts: [{ type: 'text', text: 'go' }] },
        },
        reply('r1', 'q', 1, long),
        reply('r2', 'r1', 2, short),
      ],
    };
    const price = priceOf(PRICES, 'claude-haiku-5-5') as NonNullable<ReturnType<typeof priceOf>>;
    const perRequest = costOf(price, long) + costOf(price, short);
    const perSum = costOf(price, { ...u(62_000, 100_000), output: 1800 }, 0);
    expect(perRequest).not.toBeCloseTo(perSum, 6);
    // a session whose cost is between the two: sorted by cost, it is above or below the first
    const middleUsage = { input: 90_000, output: 20_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const middle: Session = {
      ...session,
      id: 'in-between',
      entries: [session.entries[0] as Session['entries'][number], reply('m1', 'q', 1, middleUsage)],
    };
    const middleCost = costOf(price, middleUsage);
    expect(middleCost).toBeGreaterThan(perSum);
    expect(middleCost).toBeLessThan(perRequest);
    for (const [driver, listed, order] of [
      [openSqliteStore(':memory:'), perRequest, ['long-and-short', 'in-between']],
      // a store without a per-request index lists and sorts by the per-model sum
      [new MemoryStore(), perSum, ['in-between', 'long-and-short']],
    ] as const) {
      await driver.writeSession(session, { keepId: true });
      await driver.writeSession(middle, { keepId: true });
      const app = createWebApp({ driver });
      const rows = ((await (await app.request('/api/v1/web/sessions')).json()) as Json).sessions as Json[];
      expect(rows.find((r) => r.id === 'long-and-short')?.cost).toBeCloseTo(listed, 10);
      const head = (await (await app.request('/api/v1/web/sessions/long-and-short')).json()) as Json;
      expect(head.cost).toBeCloseTo(perRequest, 10);
      const byCost = ((await (await app.request('/api/v1/web/sessions?sort=cost')).json()) as Json).sessions as Json[];
      expect(byCost.map((r) => r.id)).toEqual(order);
    }
  });

  it('searches with titles on the hits', async () => {
    const { hits } = await get(`/search?q=${BIG_NEEDLE}`);
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ sessionId: BIG_ID, entryId: `big-${BIG_NEEDLE_INDEX}`, title: 'A very long session' });
    expect((await get('/search?q=')).hits).toEqual([]);
  });

  it('answers unknown sessions, entries and bad queries with errors', async () => {
    expect((await get('/sessions/nope')).status).toBe(404);
    expect((await get(`/sessions/${PARSER_ID}/path?leaf=nope`)).status).toBe(404);
    expect((await get('/sessions?sort=sideways')).status).toBe(400);
    const convert = (on: ReturnType<typeof createWebApp>, id: string, body: Json) =>
      on.request(`/api/v1/web/sessions/${id}/convert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // an agent that cannot write sessions is never offered
    expect((await convert(app, PARSER_ID, { to: 'zed' })).status).toBe(400);
    expect((await convert(app, 'nope', { to: 'pi' })).status).toBe(404);
    expect((await convert(app, PARSER_ID, { to: 'pi', leaf: 'nope' })).status).toBe(404);
    // a viewer told to offer no "Continue in…"
    const { driver } = await seedMemoryStore();
    const closed = createWebApp({ driver, handoff: false });
    expect((await convert(closed, PARSER_ID, { to: 'pi' })).status).toBe(400);
    expect(((await (await closed.request('/api/v1/web/meta')).json()) as Json).continueMode).toBe('none');
  });

  it('without agent stores of its own (a team server), continues in another agent by a handoff command', async () => {
    const meta = await get('/meta');
    expect(meta.continueMode).toBe('handoff');
    expect(meta.targets).toEqual(expect.arrayContaining(['claude', 'pi', 'opencode', 'codex']));
    const res = await app.request(`/api/v1/web/sessions/${PARSER_ID}/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'pi', leaf: ALT_LEAF, origin: 'https://threads.example.com:8443/some/page' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.mode).toBe('handoff');
    expect(body.command).toBe(`threadbase handoff ${PARSER_ID} --from https://threads.example.com:8443 --to pi --at ${ALT_LEAF}`);
    // an origin carrying credentials is not repeated: the request's own origin is named instead
    const withKey = await app.request(`http://127.0.0.1:9/api/v1/web/sessions/${PARSER_ID}/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'claude', origin: 'https://secret@threads.example.com' }),
    });
    expect(((await withKey.json()) as Json).command).toBe(
      `threadbase handoff ${PARSER_ID} --from http://127.0.0.1:9 --to claude`,
    );
  });
});
