/**
 * The HTML export folds what an agent wrote into the conversation itself (codex's developer
 * instructions and environment context, Qwen Code's task notification, Gemini CLI's session
 * context), under the name the viewer gives it, as the viewer does: the page opens on the user's and
 * the model's own words, not on pages of instructions shown as if the user had typed them.
 * Checked in chromium on the sessions the real agents wrote.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { type Browser, launchBrowser, screenshot, skipBrowser } from '../e2e/browser.js';
import { fixtureHome, INJECTED_TEXT_CASES } from '../helpers/fixture-homes.js';

describe.skipIf(skipBrowser)('the HTML export folds what an agent wrote itself', () => {
  let home: string;
  let sources: Sources;
  let browser: Browser;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'threadbase-export-injected-', fixtures: ['codex', 'qwen', 'gemini'] }));
    sources = new Sources({ home, env: { HOME: home } });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  for (const c of INJECTED_TEXT_CASES) {
    it(`${c.agent}: folded under its name, the user's own prompt shown`, async () => {
      const session = (await sources.driver(c.agent).getSession(c.id)) as Session;
      expect(session).toBeDefined();
      const { page } = browser;
      await page.setContent(sessionToHtml(session));
      for (const [label, opening] of c.folded) {
        const fold = page.locator('section.turn details.injected', { hasText: label });
        await expect(fold.count()).resolves.toBe(1);
        await expect(fold.locator('summary').textContent()).resolves.toMatch(new RegExp(`^${label} · [\\d,]+ characters$`));
        // folded: the text is in the page but not on screen until the summary is clicked
        const text = fold.locator('.text', { hasText: opening }).first();
        await expect(text.isVisible()).resolves.toBe(false);
        await fold.locator('summary').click();
        await expect(text.isVisible()).resolves.toBe(true);
      }
      await expect(page.locator('section.turn.user:not(.injected) .text', { hasText: c.prompt }).isVisible()).resolves.toBe(true);
      await screenshot(page, `export-injected-${c.agent}`);
      expect(browser.errors).toEqual([]);
    });
  }
});
