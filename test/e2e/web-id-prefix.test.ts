/**
 * A viewer link that names a session by a unique prefix of its id (#/session/abc, as `threadbase show
 * abc` takes it) opens that session, the address then naming its whole id; a prefix of several says
 * which sessions it names, each a link. It said 'session not found'. In chromium, sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: a session named by a prefix of its id', () => {
  const viewer = viewerOverSessions(
    ['abc12345-one', 'abd00000-two', 'abd11111-three'].map((id) => oneMessageSession(id, `title ${id}`)),
  );

  it('opens the one session a prefix names, its whole id in the address', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/abc1`);
    await page.waitForSelector('#e-u1');
    expect(await page.locator('h1').textContent()).toBe('title abc12345-one');
    expect(await page.evaluate(() => location.hash)).toBe('#/session/abc12345-one');
    // the tree, loaded after, is this session's
    await page.waitForSelector('#tree-panel a.node.leaf');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('a prefix of several lists them, each a link to its session', async () => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${viewer.served.url}/#/session/abd`);
    const links = page.locator('.error-box ul.candidates a');
    await expect.poll(() => links.count()).toBe(2);
    expect(await page.locator('.error-box p').textContent()).toMatch(/^id prefix "abd" matches 2 sessions: /);
    await links.filter({ hasText: 'abd11111-three' }).click();
    await page.waitForSelector('#e-u1');
    expect(await page.locator('h1').textContent()).toBe('title abd11111-three');
  });
});
