/**
 * A view whose data comes after the reader has gone on draws nothing: opening a session that takes a
 * while to load (a long one, read the first time), then going back to the list before it came, left
 * the session drawn over the list the address named once it arrived. In chromium, on a store in
 * memory whose one session takes 1.5 s to read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

class SlowStore extends MemoryStore {
  override async getSession(id: string): Promise<Session | undefined> {
    if (id === 'slow') await sleep(1500);
    return super.getSession(id);
  }
}

const session = (id: string): Session => ({
  id,
  source: 'threadbase',
  title: `${id} session`,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  messageCount: 1,
  entries: [
    {
      id: `${id}-u1`,
      parentId: null,
      timestamp: '2026-11-20T10:00:00.000Z',
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: `hi from ${id}` }] },
    },
  ],
});

describe.skipIf(skipBrowser)('web viewer: going on before a page has loaded', () => {
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    const store = new SlowStore();
    for (const id of ['slow', 'fast']) await store.writeSession(session(id), { keepId: true });
    // no cache: every open reads the session again
    served = await serveApp(createWebApp({ driver: store, cacheMs: 0 }));
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('back to the list before a slow session came: the list stays', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions`);
    await page.waitForSelector('tr.row');
    await page.evaluate(() => {
      location.hash = '#/session/slow';
    });
    await page.waitForTimeout(200);
    await page.goBack();
    await page.waitForSelector('tr.row');
    // past the slow session's arrival
    await page.waitForTimeout(2500);
    expect(await page.evaluate(() => location.hash)).toBe('#/sessions');
    expect(await page.locator('.session-head').count()).toBe(0);
    expect(await page.locator('tr.row').count()).toBe(2);
  });

  it('another session opened before a slow one came: that one stays', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/slow`);
    await page.waitForTimeout(200);
    await page.evaluate(() => {
      location.hash = '#/session/fast';
    });
    await page.waitForSelector('#e-fast-u1');
    await page.waitForTimeout(2500);
    expect(await page.locator('.session-head h1').allTextContents()).toEqual(['fast session']);
    expect(await page.locator('#e-slow-u1').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
