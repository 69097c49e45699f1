/**
 * A Claude Code response split over several records (one per content block, each carrying the same
 * message id and the same usage) shows its tokens once in the viewer: the viewer's JSON names, on
 * each of its other records, the record that shows them (`usageShownOn`), which is the one `stats`
 * counts (countedUsage): the response's last record.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { countedUsage } from '../../src/model/usage.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { WebData } from '../../src/server/web/data.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { fixtureHome, PARALLEL_ID } from '../helpers/fixture-homes.js';

describe('a response split over several records shows its usage once', () => {
  let home: string;
  let sources: Sources;
  let data: WebData;
  let session: Session;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'threadbase-web-split-', fixtures: ['claudeParallel'] }));
    sources = new Sources({ home, env: { HOME: home } });
    data = new WebData(new AgentFilesDriver(sources));
    session = (await sources.driver('claude').getSession(PARALLEL_ID)) as Session;
  });

  afterAll(async () => {
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('names, on every record of a split response but the one stats counts, that one', async () => {
    const page = await data.pathPage(PARALLEL_ID, { limit: 500 });
    const counted = countedUsage(session.entries);
    const byResponse = new Map<string, { ids: string[]; shownOn: (string | undefined)[] }>();
    for (const e of page.entries) {
      if (e.kind !== 'message' || !('message' in e)) continue;
      const { message } = e as Extract<Entry, { kind: 'message' }>;
      if (message.role !== 'assistant' || !message.responseId) continue;
      const r = byResponse.get(message.responseId) ?? { ids: [], shownOn: [] };
      r.ids.push(e.id);
      r.shownOn.push(e.usageShownOn);
      byResponse.set(message.responseId, r);
    }
    // three responses of four records, three of one
    expect([...byResponse.values()].map((r) => r.ids.length)).toEqual([4, 1, 4, 1, 4, 1]);
    for (const [responseId, { ids, shownOn }] of byResponse) {
      const last = ids[ids.length - 1] as string;
      expect(counted.has(last), responseId).toBe(true);
      // the last shows them (no pointer), each earlier record points at it
      expect(shownOn, responseId).toEqual([...ids.slice(0, -1).map(() => last), undefined]);
    }
  });

  it('the same from the local index (a session read from it keeps each record’s responseId)', async () => {
    const store = openSqliteStore(':memory:');
    try {
      await store.writeSession?.(session, { keepId: true });
      const indexed = await new WebData(store).pathPage(PARALLEL_ID, { limit: 500 });
      const direct = await data.pathPage(PARALLEL_ID, { limit: 500 });
      const pointers = (p: typeof direct) => p.entries.flatMap((e) => (e.usageShownOn ? [[e.id, e.usageShownOn]] : []));
      expect(pointers(indexed)).toHaveLength(9);
      expect(pointers(indexed)).toEqual(pointers(direct));
    } finally {
      await store.close?.();
    }
  });

  it('the record that shows them is named though it is on the next page', async () => {
    // the first response's four records are entries 1-4 of the path: a page of two ends inside it
    const page = await data.pathPage(PARALLEL_ID, { offset: 0, limit: 2 });
    const split = page.entries[1];
    expect(split?.usageShownOn).toBeDefined();
    const next = await data.pathPage(PARALLEL_ID, { offset: 2, limit: 10 });
    expect(next.entries.map((e) => e.id)).toContain(split?.usageShownOn);
  });

  it('points only from a split response’s records with usage to its counted one; a response of its own record has none', async () => {
    const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const at = (i: number) => `2026-11-01T00:00:0${i}.000Z`;
    const msg = (id: string, parentId: string | null, i: number, message: Message): Entry => ({
      id,
      parentId,
      timestamp: at(i),
      kind: 'message',
      message,
    });
    const text = (t: string) => [{ type: 'text' as const, text: t }];
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 'split-usage',
        source: 'threadbase',
        createdAt: at(0),
        updatedAt: at(7),
        messageCount: 7,
        entries: [
          msg('u1', null, 0, { role: 'user', parts: text('go') }),
          msg('a1', 'u1', 1, { role: 'assistant', parts: text('one'), responseId: 'r1', usage }),
          msg('a2', 'a1', 2, { role: 'assistant', parts: text('two'), responseId: 'r1', usage }),
          // own responses (no responseId): each counts, none points anywhere
          msg('b1', 'a2', 3, { role: 'assistant', parts: text('three'), usage }),
          msg('b2', 'b1', 4, { role: 'assistant', parts: text('four'), usage }),
          // the usage on the first record only: it counts, the last (no usage) shows nothing anyway
          msg('c1', 'b2', 5, { role: 'assistant', parts: text('five'), responseId: 'r2', usage }),
          msg('c2', 'c1', 6, { role: 'assistant', parts: text('six'), responseId: 'r2' }),
        ],
      } as Session,
      { keepId: true },
    );
    const page = await new WebData(store).pathPage('split-usage', { limit: 50 });
    expect(Object.fromEntries(page.entries.map((e) => [e.id, e.usageShownOn ?? null]))).toEqual({
      u1: null,
      a1: 'a2',
      a2: null,
      b1: null,
      b2: null,
      c1: null,
      c2: null,
    });
  });
});
