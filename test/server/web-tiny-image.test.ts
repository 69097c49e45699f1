/**
 * An image of a few pixels — the 1×1 PNG Kilo CLI read for `-f pixel.png`, the dot codex's image
 * generation drew, the picture Copilot CLI's view tool read — is shown at 48 px in the viewer and
 * the HTML export, not as a 1-pixel dot a reader cannot see. Larger images keep their size. In
 * chromium, on the sessions the real agents wrote.
 */
import { describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import '../../src/formats/all.js';
import type { Session } from '../../src/model/types.js';
import { screenshot, skipBrowser, viewerOverFixtures } from '../e2e/browser.js';
import { makePng } from '../e2e/fixtures.js';
import { oneMessageSession } from '../helpers/sessions.js';

const SESSIONS = [
  ['kilo', 'ses_de960d959ffeUnT4kXIY6RPwqO'],
  ['codex', '01a21357-17c5-7c31-842a-b2bbe61459bd'],
] as const;

/** The rendered size of every image in the page and its own. */
const imageSizes = () =>
  Array.from(document.images).map((i) => {
    const box = i.getBoundingClientRect();
    return { natural: [i.naturalWidth, i.naturalHeight], shown: [Math.round(box.width), Math.round(box.height)] };
  });
/** Every image in the page decoded. */
const decoded = () => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0);

describe.skipIf(skipBrowser)('tiny images', () => {
  const viewer = viewerOverFixtures({ prefix: 'threadbase-web-tiny-image-', fixtures: ['kilo', 'codex'] });

  for (const [agent, id] of SESSIONS) {
    it(`${agent}: the viewer shows its 1×1 image at 48 px`, async () => {
      const { page } = viewer.browser;
      await page.goto(`${viewer.served.url}/#/session/${id}`);
      await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
      // loaded lazily: brought on screen first
      await page.locator('#conversation img').scrollIntoViewIfNeeded();
      await page.waitForSelector('#conversation img.tiny-image');
      expect(await page.evaluate(imageSizes)).toEqual([{ natural: [1, 1], shown: [48, 48] }]);
      await expect(page.locator('img.tiny-image').getAttribute('title')).resolves.toBe('1×1 image, enlarged');
      await screenshot(page, `web-tiny-image-${agent}`);
      expect(viewer.browser.errors).toEqual([]);
    });

    it(`${agent}: so does the HTML export`, async () => {
      const { page } = viewer.browser;
      // a page of its own: not the viewer's document, whose policy allows no inline style
      await page.goto('about:blank');
      await page.setContent(sessionToHtml((await viewer.sources.driver(agent).getSession(id)) as Session));
      await page.waitForFunction(decoded);
      expect(await page.evaluate(imageSizes)).toEqual([{ natural: [1, 1], shown: [48, 48] }]);
    });
  }

  it('an image of ordinary size keeps its size', async () => {
    const { page } = viewer.browser;
    const session = oneMessageSession('pic', undefined, [
      { type: 'image', mediaType: 'image/png', data: makePng(120, 80).toString('base64') },
    ]);
    await page.goto('about:blank');
    await page.setContent(sessionToHtml(session));
    await page.waitForFunction(decoded);
    // its own size, and the 1 px border around it
    expect(await page.evaluate(imageSizes)).toEqual([{ natural: [120, 80], shown: [122, 82] }]);
  });
});
