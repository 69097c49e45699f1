/**
 * Esc closes the keyboard help ('?') and only it: on a session, the same key press also left the
 * session for the list (the page's own Esc shortcut saw it first), and j/k/t/d behind the open dialog
 * moved the selection, toggled the tree or the theme. Esc and the ← of a session go back to the list
 * as it was left (its filter, sort and page), not to the whole list from its start.
 * In chromium, on a session in memory.
 */
import { describe, expect, it } from 'vitest';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: the keyboard help', () => {
  const viewer = viewerOverSessions([oneMessageSession('with-help', 'with help')]);

  it('Esc closes the help and stays on the session; keys behind it do nothing', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/with-help`);
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
    expect(viewer.browser.errors).toEqual([]);
  });

  it('Esc and ← go back to the list as it was left', async () => {
    const { page } = viewer.browser;
    const list = '#/sessions?text=help&sort=title&order=asc';
    for (const back of ['Escape', '←']) {
      await page.goto('about:blank');
      await page.goto(`${viewer.served.url}/${list}`);
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
