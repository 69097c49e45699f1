/**
 * The branch tree that does not load (the server gone, the session deleted meanwhile) is said in its
 * panel with a button that tries again, as a page of the conversation says its own; the panel stayed
 * empty, the error in the console only. In chromium, the tree's route failing once.
 */
import { describe, expect, it } from 'vitest';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: a branch tree that does not load', () => {
  const viewer = viewerOverSessions([oneMessageSession('tree-fails', 'tree fails')]);

  it('says so in the tree panel, and Try again draws the tree', async () => {
    const { page } = viewer.browser;
    let failures = 1;
    await page.route('**/api/v1/web/sessions/tree-fails/tree', async (route) => {
      if (failures-- > 0)
        await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"internal","message":"disk gone"}' });
      else await route.continue();
    });
    await page.goto(`${viewer.served.url}/#/session/tree-fails`);
    await page.waitForSelector('#e-u1');
    const error = page.locator('#tree-panel .load-error');
    await expect.poll(() => error.textContent(), { timeout: 5000 }).toBe('Could not load the branch tree: disk gone. Try again');
    await error.locator('button').click();
    await page.waitForSelector('#tree-panel a.node.leaf');
    expect(await error.count()).toBe(0);
    await page.unroute('**/api/v1/web/sessions/tree-fails/tree');
  });
});
