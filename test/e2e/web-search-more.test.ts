/**
 * The search page shows at most 100 hits; when there are more it says so, instead of '100 hits for
 * “…”' as if that were all of them (a common word over a laptop's sessions). In chromium, on a
 * session in memory with 150 entries that hold the word and 3 that hold another.
 *
 * A store with no index of its own (the agents' files, `ui` before any sync) is searched in its most
 * recent sessions only (500); the page says how many of how many it searched, where it showed the
 * hits of those as if they were all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverCapabilities } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser, viewerOverSessions } from './browser.js';

const entries: Entry[] = Array.from({ length: 153 }, (_, i) => ({
  id: `e${i}`,
  parentId: i ? `e${i - 1}` : null,
  timestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
  kind: 'message',
  message: { role: 'user', parts: [{ type: 'text', text: i < 150 ? `common word ${i}` : `rare word ${i}` }] },
}));

describe.skipIf(skipBrowser)('web viewer: more search hits than the page shows', () => {
  const viewer = viewerOverSessions([
    {
      id: 'many-hits',
      source: 'threadbase',
      title: 'many hits',
      createdAt: entries[0]?.timestamp as string,
      updatedAt: entries.at(-1)?.timestamp as string,
      messageCount: entries.length,
      entries,
    },
  ]);

  const search = async (q: string) => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${viewer.served.url}/#/search?q=${encodeURIComponent(q)}`);
    const count = page.locator('#view p.muted', { hasText: /for “/ });
    await count.waitFor();
    return { said: await count.textContent(), shown: await page.locator('li.hit-row').count() };
  };

  it('says there are more than the 100 it shows', async () => {
    const { said, shown } = await search('common');
    expect(shown).toBe(100);
    expect(said).toBe('The first 100 hits for “common”: there are more. Add words to narrow the search.');
  });

  it('counts the hits when they are all shown', async () => {
    expect(await search('rare')).toEqual({ said: '3 hits for “rare”', shown: 3 });
    expect(viewer.browser.errors).toEqual([]);
  });
});

/** A store that cannot search itself, as the agents' own files are. */
class UnindexedStore extends MemoryStore {
  override readonly capabilities: DriverCapabilities = { ...new MemoryStore().capabilities, search: false };
}

const daySession = (day: number): Session => ({
  id: `day-${day}`,
  source: 'threadbase',
  title: `day ${day}`,
  createdAt: `2026-11-${day}T10:00:00.000Z`,
  updatedAt: `2026-11-${day}T10:00:00.000Z`,
  messageCount: 1,
  entries: [
    {
      id: `u${day}`,
      parentId: null,
      timestamp: `2026-11-${day}T10:00:00.000Z`,
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: `needle of day ${day}` }] },
    },
  ],
});

describe.skipIf(skipBrowser)('web viewer: a search over a store with no index', () => {
  let all: Served;
  let capped: Served;
  let browser: Browser;
  beforeAll(async () => {
    const store = new UnindexedStore();
    for (const day of [10, 11, 12]) await store.writeSession(daySession(day), { keepId: true });
    all = await serveApp(createWebApp({ driver: store }));
    capped = await serveApp(createWebApp({ driver: store, searchSessionLimit: 2 }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await all?.close();
    await capped?.close();
  });

  const search = async (base: string) => {
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${base}/#/search?q=needle`);
    await page.locator('#view p.muted', { hasText: /for “/ }).waitFor();
    return {
      titles: await page.locator('li.hit-row .hit-title').allTextContents(),
      scope: await page.locator('#search-scope').allTextContents(),
    };
  };

  it('says it searched the most recent sessions only, when it did', async () => {
    expect(await search(capped.url)).toEqual({
      titles: ['day 12', 'day 11'],
      scope: [
        'Searched the 2 most recently updated of 3 sessions: there is no index to search them all (threadbase sync makes one).',
      ],
    });
  });

  it('says nothing more when it searched them all', async () => {
    expect(await search(all.url)).toEqual({ titles: ['day 12', 'day 11', 'day 10'], scope: [] });
    expect(browser.errors).toEqual([]);
  });
});
