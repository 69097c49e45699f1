/**
 * An open session list looks for new sessions every 5 s, and only then: it draws the list again only
 * when the answer changed (over real agents' files, whose listing is the same each time); in a hidden
 * tab it asks nothing; shown again, it looks at once (it waited for its next tick, up to 5 s, and a tab
 * hidden for an hour kept its timer running). In chromium; the tab hidden as the browser hides it
 * (document.hidden and visibilityState, then a visibilitychange event).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipBrowser, viewerOverFixtures } from './browser.js';

/** Hides or shows the tab as the browser does when another tab is picked. */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);

/** A Claude Code session of one prompt, written into the home's projects. */
const claudeSession = (id: string, text: string) =>
  `${JSON.stringify({
    type: 'user',
    uuid: `${id}-u1`,
    parentUuid: null,
    sessionId: id,
    cwd: '/tmp/polled',
    timestamp: new Date().toISOString(),
    message: { role: 'user', content: text },
  })}\n`;

const NEW_ID = 'f0e1d2c3-0000-4000-8000-000000000001';

describe.skipIf(skipBrowser)('web viewer: the open list polls only when it should', () => {
  const viewer = viewerOverFixtures({ prefix: 'threadbase-web-polling-', fixtures: ['claude', 'codex', 'pi', 'opencode'] });

  it('draws the list again only when it changed, asks nothing while hidden, and looks at once when shown', async () => {
    const { page } = viewer.browser;
    const asked: number[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/v1/web/sessions') asked.push(Date.now());
    });
    await page.goto(`${viewer.served.url}/#/sessions`);
    await page.locator('table.sessions tr.row').first().waitFor();
    // the table drawn: marked, so a table drawn anew is seen
    await page.evaluate(() => {
      (document.querySelector('table.sessions') as HTMLElement).dataset.first = '1';
    });
    const firstAsked = asked.length;
    await page.waitForTimeout(11_000);
    expect(asked.length - firstAsked).toBeGreaterThanOrEqual(2);
    expect(await page.locator('table.sessions[data-first="1"]').count()).toBe(1);

    await setHidden(page, true);
    // the last look before the tab was hidden: a timer left running ticks 5 s, 10 s, 15 s after it
    const lastLook = asked.at(-1) as number;
    const hiddenFrom = asked.length;
    const dir = join(viewer.home, '.claude', 'projects', '-tmp-polled');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${NEW_ID}.jsonl`), claudeSession(NEW_ID, 'written while hidden'));
    // shown just after such a tick: a look on the next tick came 4.7 s later, past what is waited for
    await page.waitForTimeout(lastLook + 15_300 - Date.now());
    expect(asked.length).toBe(hiddenFrom);

    const shownAt = Date.now();
    await setHidden(page, false);
    await expect
      .poll(() => page.locator('table.sessions tr.row .title-cell a', { hasText: 'written while hidden' }).count(), {
        timeout: 2500,
        interval: 100,
      })
      .toBe(1);
    expect(Date.now() - shownAt).toBeLessThan(2500);
    expect(viewer.browser.errors).toEqual([]);
  });
});
