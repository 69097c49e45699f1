/**
 * Esc closes the keyboard help ('?') and only it: on a session, the same key press also left the
 * session for the list (the page's own Esc shortcut saw it first), and j/k/t/d behind the open dialog
 * moved the selection, toggled the tree or the theme. Esc and the ← of a session go back to the list
 * as it was left (its filter, sort and page), not to the whole list from its start.
 * In chromium, on a session in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: the keyboard help', () => {
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 'with-help',
        source: 'threadbase',
        title: 'with help',
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

  it('Esc closes the help and stays on the session; keys behind it do nothing', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/with-help`);
    await page.waitForSelector('#e-u1');
    await page.keyboard.press('?');
    expect(await page.evaluate(() => (document.getElementById('help') as HTMLDialogElement).open)).toBe(true);
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme ?? '');
    const before = await theme();
    await page.keyboard.press('d');
    expect(await theme()).toBe(before);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => (document.getElementById('help') as HTMLDialogElement).open)).toBe(false);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => location.hash)).toBe('#/session/with-help');
    // with the help closed, Esc goes back to the list as before
    await page.locator('#conversation').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions');
    expect(browser.errors).toEqual([]);
  });

  it('Esc and ← go back to the list as it was left', async () => {
    const { page } = browser;
    const list = '#/sessions?text=help&sort=title&order=asc';
    for (const back of ['Escape', '←']) {
      await page.goto('about:blank');
      await page.goto(`${served.url}/${list}`);
      await page.locator('tr.row td.title-cell a').click();
      await page.waitForSelector('#e-u1');
      if (back === 'Escape') {
        await page.locator('#conversation').focus();
        await page.keyboard.press('Escape');
      } else await page.locator('.session-head a.back').click();
      await expect.poll(() => page.evaluate(() => location.hash), { message: back }).toBe(list);
      await page.waitForSelector('tr.row');
      expect(await page.locator('input[name=text]').inputValue()).toBe('help');
    }
  });
});
