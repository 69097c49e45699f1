/**
 * An image whose data no browser can show (not base64, no bytes, no image kind, cut short: imageData)
 * is written into the exported HTML page as words saying what it was, as the Markdown export says it,
 * with no image to fail; one the browser still fails to load (an image by an address that is not
 * there) is replaced by words saying so on its error, as the viewer says it, not left a broken-image
 * icon; an image that decodes is shown as before. On pi's v3 fixture (a PNG of its first bytes only)
 * and the image real Kilo CLI 7.7.7 read, exported through the CLI from a temp home, in chromium.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import { skipBrowser } from '../e2e/browser.js';
import { makePng } from '../e2e/fixtures.js';
import { browserOverFixtures } from '../helpers/browser-fixtures.js';
import { runCliOk } from '../helpers/cli.js';
import { chainSession } from '../helpers/sessions.js';

/** test/fixtures/pi/v3-all-types.jsonl: a user image of 8 bytes, the PNG signature alone */
const PI_DAMAGED_IMAGE = '0190cccc-3333-7000-8000-000000000003';
/** Kilo CLI 7.7.7: read a 1×1 PNG */
const KILO_IMAGE = 'ses_de960d959ffeUnT4kXIY6RPwqO';

describe.skipIf(skipBrowser)('images in the exported HTML page', () => {
  const fx = browserOverFixtures({ prefix: 'threadbase-export-images-', fixtures: ['piAll', 'kilo'] });

  const open = async (id: string) => {
    const file = join(fx.home, `${id}.html`);
    await runCliOk(fx.env, ['export', id, '--format', 'html', '--no-index', '-o', file]);
    // from a file, as a reader opens it
    await fx.browser.page.goto(`file://${file}`);
    await fx.browser.page.waitForLoadState('load');
    return readFile(file, 'utf8');
  };

  it('an image that cannot be decoded: said in words up front, no image to fail', async () => {
    const { page } = fx.browser;
    const html = await open(PI_DAMAGED_IMAGE);
    // decided when written, not by the browser's failed load
    expect(html).not.toContain('base64,iVBORw0KGgo=');
    expect(html).toContain('<p class="dim image-broken">[image: image/png, 8 bytes, cut short, could not be read]</p>');
    await expect(page.locator('.image-broken').allTextContents()).resolves.toEqual([
      '[image: image/png, 8 bytes, cut short, could not be read]',
    ]);
    await expect(page.locator('img').count()).resolves.toBe(0);
    expect(fx.browser.errors).toEqual([]);
  });

  it('images in a tool result and by data: URL are judged too; one that fails to load is still replaced', async () => {
    const { page } = fx.browser;
    const png = makePng(4, 4).toString('base64');
    const session = chainSession('images', 'claude', '/p', [
      [
        'u1',
        {
          role: 'user',
          parts: [
            { type: 'image', mediaType: 'image/png', url: 'data:image/gif;base64,R0lGODlh' },
            { type: 'image', mediaType: 'image/png', url: 'not-there.png' },
            { type: 'image', mediaType: 'image/jpeg', data: png },
          ],
        },
      ],
      [
        'a1',
        { role: 'assistant', model: 'm', parts: [{ type: 'tool_call', id: 'c1', name: 'Read', input: { file_path: 'a.png' } }] },
      ],
      [
        't1',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'c1', content: [{ type: 'image', mediaType: 'image/png', data: '' }] }],
        },
      ],
      [
        't2',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'c2', content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] }],
        },
      ],
    ]);
    const file = join(fx.home, 'images.html');
    const html = sessionToHtml(session);
    expect(html).not.toContain('R0lGODlh');
    expect(html).not.toContain('base64,AAAA');
    await writeFile(file, html);
    await page.goto(`file://${file}`);
    await page.waitForLoadState('load');
    await expect
      .poll(() => page.locator('.image-broken').allTextContents(), { timeout: 5000 })
      .toEqual([
        '[image: image/gif, 6 bytes, cut short, could not be read]',
        // by its address: only the browser can tell, on its error
        '[image image/png that cannot be shown: its data is damaged or not that type]',
        // a tool result's image with no data says so, as the viewer and the Markdown say it
        '[image: image/png, 0 bytes, could not be read]',
        '[image: image/png, 3 bytes of no image kind known, could not be read]',
      ]);
    // the good one as the kind its bytes are
    const img = page.locator('img');
    await expect(img.count()).resolves.toBe(1);
    await expect(img.getAttribute('src')).resolves.toBe(`data:image/png;base64,${png}`);
    await expect(img.evaluate((i: HTMLImageElement) => i.naturalWidth)).resolves.toBe(4);
    // the address that is not there, alone
    await expect.poll(() => fx.browser.errors).toEqual(['console: Failed to load resource: net::ERR_FILE_NOT_FOUND']);
    fx.browser.errors.length = 0;
  });

  it('an image that decodes is shown', async () => {
    const { page } = fx.browser;
    await open(KILO_IMAGE);
    const img = page.locator('section.turn.user img');
    await expect(img.count()).resolves.toBe(1);
    await expect(img.evaluate((i: HTMLImageElement) => i.naturalWidth)).resolves.toBeGreaterThan(0);
    await expect(page.locator('.image-broken').count()).resolves.toBe(0);
    expect(fx.browser.errors).toEqual([]);
  });
});
