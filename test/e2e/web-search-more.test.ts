/**
 * The search page shows at most 100 hits; when there are more it says so, instead of '100 hits for
 * “…”' as if that were all of them (a common word over a laptop's sessions). In chromium, on a
 * session in memory with 150 entries that hold the word and 3 that hold another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

const entries: Entry[] = Array.from({ length: 153 }, (_, i) => ({
  id: `e${i}`,
  parentId: i ? `e${i - 1}` : null,
  timestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
  kind: 'message',
  message: { role: 'user', parts: [{ type: 'text', text: i < 150 ? `common word ${i}` : `rare word ${i}` }] },
}));

describe.skipIf(skipBrowser)('web viewer: more search hits than the page shows', () => {
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 'many-hits',
        source: 'threadbase',
        title: 'many hits',
        createdAt: entries[0]?.timestamp as string,
        updatedAt: entries.at(-1)?.timestamp as string,
        messageCount: entries.length,
        entries,
      },
      { keepId: true },
    );
    served = await serveApp(createWebApp({ driver: store }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const search = async (q: string) => {
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${served.url}/#/search?q=${encodeURIComponent(q)}`);
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
    expect(browser.errors).toEqual([]);
  });
});
