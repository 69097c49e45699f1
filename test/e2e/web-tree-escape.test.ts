/**
 * In a narrow window the branch tree opens over the conversation (Tree, or t); Esc closes it and gives
 * the focus to the Tree button, as Esc closes the help. Esc left the session for the list instead,
 * the tree still open there the next time. In a wide window, where the tree is beside the
 * conversation, Esc still goes back to the list. In chromium, a session in memory.
 */
import { describe, expect, it } from 'vitest';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, VIEWPORT, viewerOverSessions } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: Esc and the tree over the conversation', () => {
  const viewer = viewerOverSessions([oneMessageSession('tree-esc', 'tree esc')]);
  const treeShown = () => viewer.browser.page.locator('#tree-panel').isVisible();

  it('closes the tree in a narrow window, and leaves the session in a wide one', async () => {
    const { page } = viewer.browser;
    await page.setViewportSize({ width: 800, height: 700 });
    await page.goto(`${viewer.served.url}/#/session/tree-esc`);
    await page.locator('h1', { hasText: 'tree esc' }).waitFor();
    expect(await treeShown()).toBe(false);
    await page.locator('h1').click();
    await page.keyboard.press('t');
    expect(await treeShown()).toBe(true);
    await page.keyboard.press('Escape');
    expect(await treeShown()).toBe(false);
    expect(await page.evaluate(() => location.hash)).toBe('#/session/tree-esc');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('toggle-tree');
    // nothing open over it: Esc goes back to the list
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions');

    await page.setViewportSize(VIEWPORT);
    await page.goto(`${viewer.served.url}/#/session/tree-esc`);
    await page.locator('h1', { hasText: 'tree esc' }).waitFor();
    expect(await treeShown()).toBe(true);
    await page.locator('h1').click();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('the help says what Esc does', async () => {
    const { page } = viewer.browser;
    const said = await page.locator('#help dt', { hasText: 'Esc' }).evaluate((dt) => dt.nextElementSibling?.textContent);
    expect(said).toBe('close the tree shown over the conversation; else back to the list');
  });
});
