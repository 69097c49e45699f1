/**
 * Links into the viewer that name nothing it has: a session id cut inside a %-escape (a link cut
 * short when pasted) says the session is not found, as an unknown id does. Before, decoding it threw
 * outside the router's error handling: a fresh page stayed at 'Loading…', an open one on the page
 * before, the error only in the console. In chromium, on a session in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: links that name nothing it has', () => {
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 'known',
        source: 'threadbase',
        title: 'a known session',
        createdAt: '2026-11-20T10:00:00.000Z',
        updatedAt: '2026-11-20T10:00:00.000Z',
        messageCount: 1,
        entries: [
          {
            id: 'u1',
            parentId: null,
            timestamp: '2026-11-20T10:00:00.000Z',
            kind: 'message',
            message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
          },
        ],
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

  const errorBox = async (hash: string) => {
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${served.url}/${hash}`);
    await page.waitForSelector('#view .error-box', { timeout: 5000 });
    return page.locator('#view .error-box').textContent();
  };

  it('says an unknown session is not found', async () => {
    expect(await errorBox('#/session/nope')).toContain('session not found: nope');
  });

  it('says a session id cut inside an escape is not found, opened fresh or from another page', async () => {
    expect(await errorBox('#/session/%E0%A4%A')).toContain('session not found: %E0%A4%A');
    const { page } = browser;
    await page.goto(`${served.url}/#/session/known`);
    await page.waitForSelector('#conversation .entry');
    await page.evaluate(() => {
      location.hash = '#/session/known%E0%A4';
    });
    await page.waitForSelector('#view .error-box', { timeout: 5000 });
    expect(await page.locator('#view .error-box').textContent()).toContain('session not found: known%E0%A4');
    expect(browser.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
