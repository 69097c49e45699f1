/**
 * Links into the viewer that name nothing it has: a session id cut inside a %-escape (a link cut
 * short when pasted) says the session is not found, as an unknown id does. Before, decoding it threw
 * outside the router's error handling: a fresh page stayed at 'Loading…', an open one on the page
 * before, the error only in the console. In chromium, on a session in memory.
 */
import { describe, expect, it } from 'vitest';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

describe.skipIf(skipBrowser)('web viewer: links that name nothing it has', () => {
  const viewer = viewerOverSessions([oneMessageSession('known', 'a known session')]);

  const errorBox = async (hash: string) => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${viewer.served.url}/${hash}`);
    await page.waitForSelector('#view .error-box', { timeout: 5000 });
    return page.locator('#view .error-box').textContent();
  };

  it('says an unknown session is not found', async () => {
    expect(await errorBox('#/session/nope')).toContain('session not found: nope');
  });

  it('says a session id cut inside an escape is not found, opened fresh or from another page', async () => {
    expect(await errorBox('#/session/%E0%A4%A')).toContain('session not found: %E0%A4%A');
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/known`);
    await page.waitForSelector('#conversation .entry');
    await page.evaluate(() => {
      location.hash = '#/session/known%E0%A4';
    });
    await page.waitForSelector('#view .error-box', { timeout: 5000 });
    expect(await page.locator('#view .error-box').textContent()).toContain('session not found: known%E0%A4');
    expect(viewer.browser.errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
