/**
 * An author's usage totals do not depend on the store: `usage()` of the SQLite store sums what the
 * memory store (summarizeUsage) sums, the 1-hour cache writes and web searches included, which bill apart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Entry, type Message, openStore, type Session, summarizeUsage, totalUsage } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const entry = (parentId: string | null, message: Message): Entry => ({
  id: `e${++n}`,
  parentId,
  timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
  kind: 'message',
  message,
});
const ask = entry(null, { role: 'user', parts: [{ type: 'text', text: 'find the release notes' }] });
// one response split over two records (same responseId): counted once, with its last usage
const split1 = entry(ask.id, {
  role: 'assistant',
  model: 'claude-opus-4-5',
  responseId: 'msg_1',
  parts: [{ type: 'thinking', thinking: 'search', signature: 's' }],
  usage: { input: 100, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
});
const split2 = entry(split1.id, {
  role: 'assistant',
  model: 'claude-opus-4-5',
  responseId: 'msg_1',
  parts: [{ type: 'text', text: 'found them' }],
  usage: {
    input: 100,
    output: 40,
    cacheRead: 500,
    cacheWrite: 300,
    cacheWrite1h: 200,
    reasoning: 0,
    webSearches: 2,
    advisors: [{ model: 'claude-sonnet-4-5', input: 10, output: 5, cacheRead: 0, cacheWrite: 30, cacheWrite1h: 30 }],
  },
});
const plain = entry(split2.id, {
  role: 'assistant',
  model: 'claude-opus-4-5',
  parts: [{ type: 'text', text: 'anything else?' }],
  usage: { input: 7, output: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  cost: 0.01,
});
const session: Session = {
  id: 'usage-demo',
  source: 'threadbase',
  createdAt: '',
  updatedAt: '',
  messageCount: 0,
  entries: [ask, split1, split2, plain],
};

describe('usage() of every store', () => {
  it('counts what summarizeUsage counts, 1-hour cache writes and web searches included', async () => {
    const expected = totalUsage([summarizeUsage(session.entries)]);
    expect(expected).toMatchObject({ input: 117, cacheWrite: 330, cacheWrite1h: 230, webSearches: 2, messages: 2 });
    for (const url of ['memory:', `sqlite:${join(dir, 'usage.db')}`]) {
      const store = await openStore(url);
      try {
        await store.writeSession(session, { keepId: true });
        expect(await store.usage(), url).toEqual(expected);
        expect(await store.usage({ source: 'threadbase' }), url).toEqual(expected);
      } finally {
        await store.close?.();
      }
    }
  });

  it('leaves cacheWrite1h and webSearches out where there are none, as addUsage does', async () => {
    const store = await openStore(`sqlite:${join(dir, 'none.db')}`);
    try {
      await store.writeSession({ ...session, entries: [ask, plain].map((e) => ({ ...e, parentId: null })) });
      const u = await store.usage();
      expect(u).not.toHaveProperty('cacheWrite1h');
      expect(u).not.toHaveProperty('webSearches');
      expect(u).toMatchObject({ input: 7, output: 3, cost: 0.01, messages: 1 });
    } finally {
      await store.close?.();
    }
  });
});
