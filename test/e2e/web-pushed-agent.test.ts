/**
 * In a real browser: a session stored as threadbase's own from an agent's (as a push stores it on a
 * team server) shows in the list's Agent column as that agent, its store said on hover, and the
 * Agent filter finds it by that agent. Every pushed session showed "threadbase" and the filter found none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: a pushed session under its agent', () => {
  let served: Served;
  let browser: Browser;

  beforeAll(async () => {
    const store = new MemoryStore();
    await store.writeSession(
      { ...oneMessageSession('pushed-claude', 'pushed from claude'), meta: { importedFrom: { source: 'claude', id: 'orig-1' } } },
      { keepId: true },
    );
    await store.writeSession(oneMessageSession('own-session', 'threadbase own'), { keepId: true });
    served = await serveApp(createWebApp({ driver: store }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it('shows the agent, and the Agent filter finds it by that agent', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/`);
    await page.waitForSelector('table.sessions tr.row');
    const row = page.locator('tr.row', { hasText: 'pushed from claude' });
    expect(await row.locator('.agent').textContent()).toBe('claude');
    expect(await row.locator('.agent').getAttribute('title')).toBe('claude, stored by threadbase');
    await page.selectOption('select[name=source]', 'claude');
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
    expect(await page.locator('tr.row .title-cell a').allTextContents()).toEqual(['pushed from claude']);
  });
});
