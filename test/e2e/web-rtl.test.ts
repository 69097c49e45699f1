/**
 * Hebrew and Arabic turns read right to left, in the viewer and the exported HTML page: each
 * paragraph runs in the direction of its first letter (unicode-bidi: plaintext), so a Hebrew
 * sentence's closing '!' is at its left end and the line starts at the right, while an English
 * paragraph of the same message stays left to right. Before, every turn was laid out left to right:
 * the '!' of a Hebrew sentence showed at its right, before its first word. A title in Hebrew (the
 * session's head, the list, the page's heading) reads right to left too (dir auto). In chromium.
 */

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import type { Session } from '../../src/model/types.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const HEBREW = 'שלום עולם!';
const ARABIC = 'مرحبا بالعالم!';
const ENGLISH = 'Hello world!';

const SESSION: Session = {
  id: 'rtl',
  source: 'threadbase',
  title: HEBREW,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:01.000Z',
  messageCount: 2,
  entries: [
    {
      id: 'u1',
      parentId: null,
      timestamp: '2026-11-20T10:00:00.000Z',
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: `${HEBREW}\n${ENGLISH}` }] },
    },
    {
      id: 'a1',
      parentId: 'u1',
      timestamp: '2026-11-20T10:00:01.000Z',
      kind: 'message',
      message: { role: 'assistant', parts: [{ type: 'text', text: ARABIC }] },
    },
  ],
};

/** Where the first letter and the closing '!' of `text` are drawn (x of each), inside `selector`. */
function layoutOf(page: Page, selector: string, text: string) {
  return page.evaluate(
    ({ selector, text }) => {
      for (const el of Array.from(document.querySelectorAll(selector))) {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const at = n.textContent?.indexOf(text) ?? -1;
          if (at < 0) continue;
          const x = (i: number) => {
            const r = document.createRange();
            r.setStart(n as Text, i);
            r.setEnd(n as Text, i + 1);
            return r.getBoundingClientRect().left;
          };
          return { first: x(at), bang: x(at + text.length - 1) };
        }
      }
      return undefined;
    },
    { selector, text },
  );
}

describe.skipIf(skipBrowser)('right-to-left turns', () => {
  const viewer = viewerOverSessions([SESSION]);

  const check = async (selector: string) => {
    const { page } = viewer.browser;
    for (const rtl of [HEBREW, ARABIC]) {
      const at = await layoutOf(page, selector, rtl);
      expect(at, rtl).toBeDefined();
      // right to left: the '!' that ends it is drawn left of its first letter
      expect(at?.bang, rtl).toBeLessThan(at?.first ?? 0);
    }
    const en = await layoutOf(page, selector, ENGLISH);
    expect(en?.bang).toBeGreaterThan(en?.first ?? 0);
  };

  it('in the viewer', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${SESSION.id}`);
    await page.waitForSelector('#e-a1');
    await check('#conversation .text');
    // a title in Hebrew too, in the session's head and in the list
    expect(await page.locator('.session-head h1').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
    await page.goto(`${viewer.served.url}/#/sessions`);
    await page.waitForSelector('td.title-cell a');
    expect(await page.locator('td.title-cell a').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('in the exported HTML page', async () => {
    const { page } = viewer.browser;
    // a page of its own: on the viewer's, its policy would block the page's inline style
    await page.goto('about:blank');
    await page.setContent(sessionToHtml(SESSION));
    await check('.turn .text');
    expect(await page.locator('h1').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
  });
});
