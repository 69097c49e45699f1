/**
 * Text Kilo CLI (and OpenCode) added to the user's turn itself — its synthetic parts: the Read call
 * it made for an attached file and what it read, a reminder that the agent changed — is folded under
 * 'added by the agent' in the viewer and in the HTML export, as the agents' own screens leave it out,
 * so the turn reads as what the user typed. In chromium, on the sessions the real Kilo CLI wrote.
 */
import { describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import '../../src/formats/all.js';
import type { Session } from '../../src/model/types.js';
import { screenshot, skipBrowser, viewerOverFixtures } from '../e2e/browser.js';

/** Kilo 7.7.7: `describe the image -f pixel.png`, Kilo's Read of the file added as synthetic text */
const KILO_ID = 'ses_de960d959ffeUnT4kXIY6RPwqO';
/** Kilo 7.7.7: after compacting, the prompt repeated with Kilo's agent-switch reminder as synthetic text */
const KILO_COMPACTION_ID = 'ses_de95d634dffex3Vqu6HdqVd6YF';

describe.skipIf(skipBrowser)('synthetic text of the user’s turn', () => {
  const viewer = viewerOverFixtures({ prefix: 'threadbase-web-synthetic-', fixtures: ['kilo'] });

  /** In the page as it is: the user's words on screen, the agent's added text folded until opened. */
  const expectFolded = async (turn: string, typed: string | undefined, added: string[]) => {
    const { page } = viewer.browser;
    const user = page.locator(turn, { hasText: typed ?? added[0] }).first();
    if (typed) await expect(user.getByText(typed, { exact: true }).isVisible()).resolves.toBe(true);
    // a turn all of whose text the agent added shows none of it until opened
    else await expect(user.locator('.text').first().isVisible()).resolves.toBe(false);
    const folds = user.locator('details.synthetic');
    await expect(folds.count()).resolves.toBe(added.length);
    for (const [i, text] of added.entries()) {
      const fold = folds.nth(i);
      await expect(fold.locator('summary').textContent()).resolves.toMatch(/^added by the agent · [\d,]+ characters$/);
      await expect(fold.getByText(text).isVisible()).resolves.toBe(false);
      await fold.locator('summary').click();
      await expect(fold.getByText(text).isVisible()).resolves.toBe(true);
    }
  };

  it('the viewer folds it', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${KILO_ID}`);
    await page.waitForSelector('#conversation .entry');
    await expectFolded('article.role-user', 'describe the image', ['Called the Read tool', 'Image read successfully']);
    await screenshot(page, 'web-synthetic-kilo');
    await page.goto(`${viewer.served.url}/#/session/${KILO_COMPACTION_ID}`);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, KILO_COMPACTION_ID);
    await page.waitForSelector('#conversation .entry');
    // Kilo repeats the prompt after compacting, as synthetic text with its reminder: the user typed it once, before
    await expect(page.locator('article.role-user:not(:has(details.synthetic))', { hasText: 'third turn' }).count()).resolves.toBe(
      1,
    );
    await expectFolded('article.role-user:has(details.synthetic)', undefined, [
      'third turn after compacting',
      'The active agent has changed',
    ]);
    expect(viewer.browser.errors).toEqual([]);
  });

  it('the HTML export folds it', async () => {
    const { page } = viewer.browser;
    // a page of its own: not the viewer's document, whose policy allows no inline style
    await page.goto('about:blank');
    await page.setContent(sessionToHtml((await viewer.sources.driver('kilo').getSession(KILO_ID)) as Session));
    await expectFolded('section.turn.user', 'describe the image', ['Called the Read tool', 'Image read successfully']);
    await screenshot(page, 'export-synthetic-kilo');
  });
});
