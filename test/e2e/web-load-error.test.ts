/**
 * A page of a long conversation that does not load (the session deleted while it is viewed, the
 * server stopped) is said where it would be, with a button that tries again; the list ended there
 * with nothing said (End did nothing, scrolling down stopped), the error only in the console.
 * In chromium, on a 250-entry session in memory, deleted once the page is open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

const entries: Entry[] = Array.from({ length: 250 }, (_, i) => ({
  id: `e${i}`,
  parentId: i ? `e${i - 1}` : null,
  timestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
  kind: 'message',
  message: { role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text: `message ${i}` }] },
}));
const SESSION: Session = {
  id: 'soon-gone',
  source: 'threadbase',
  title: 'soon gone',
  createdAt: entries[0]?.timestamp as string,
  updatedAt: entries.at(-1)?.timestamp as string,
  messageCount: entries.length,
  entries,
};

describe.skipIf(skipBrowser)('web viewer: a page that does not load', () => {
  const store = new MemoryStore();
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    // no cache: the next page asks the store again, as it does once the cache has expired
    served = await serveApp(createWebApp({ driver: store, cacheMs: 0 }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const openThenDelete = async () => {
    await store.writeSession(SESSION, { keepId: true });
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${served.url}/#/session/${SESSION.id}`);
    await page.waitForSelector('#e-e0');
    await store.deleteSession(SESSION.id);
    return page;
  };

  it('End says the session is gone, and Try again loads it once it is back', async () => {
    const page = await openThenDelete();
    await page.click('#jump-end');
    const error = page.locator('#conversation .load-error');
    await expect
      .poll(() => error.textContent(), { timeout: 5000 })
      .toMatch(/^Could not load these entries: session not found: soon-gone\. Try again$/);
    await store.writeSession(SESSION, { keepId: true });
    await error.locator('button').click();
    await page.waitForSelector('#e-e249');
    expect(await error.count()).toBe(0);
  });

  it('scrolling down says so where the next page would be', async () => {
    const page = await openThenDelete();
    await page.locator('#conversation').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    const error = page.locator('#conversation .load-error');
    await expect.poll(() => error.textContent(), { timeout: 5000 }).toContain('session not found: soon-gone');
    // the first page stays as it was
    expect(await page.locator('#e-e99').count()).toBe(1);
  });
});
