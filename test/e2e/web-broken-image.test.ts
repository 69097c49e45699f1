/**
 * The web viewer in chromium judges an image's recorded data as the exports do (imageData and
 * recordedImage, served to it as `image-data.js`): data no browser can show (not base64, no bytes, no
 * image kind, cut short; in a part, a data: URL or a tool result) is said in the HTML export's words,
 * with no image to fail, instead of the generic words the browser's failed decode brought; a readable
 * one shows as the kind its bytes are; an image by an address that does not load is still replaced on
 * its error. The same session exported to HTML and opened in the same browser says the same words.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import type { Session } from '../../src/model/types.js';
import { createWebApp, IMAGE_DATA_ASSET } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { chainSession } from '../helpers/sessions.js';
import { type Browser, launchBrowser, openToolFolds, type Served, screenshot, serveApp, skipBrowser } from './browser.js';
import { makePng } from './fixtures.js';

const PNG = makePng(4, 4).toString('base64');

/** Images of every judgement: in a user's message and in tool results; `missing`: an address that does not load. */
function imagesSession(missing: string): Session {
  return chainSession('images', 'claude', '/p', [
    [
      'u1',
      {
        role: 'user',
        parts: [
          // a GIF header alone, by data: URL
          { type: 'image', mediaType: 'image/png', url: 'data:image/gif;base64,R0lGODlh' },
          // the PNG signature alone (pi's and Zed's damaged fixtures)
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'image', mediaType: 'image/png', data: 'not base64!' },
          { type: 'image', mediaType: 'image/png', url: missing },
          { type: 'image', mediaType: 'image/png', data: '' },
          // a PNG recorded as a JPEG: shown as the PNG it is
          { type: 'image', mediaType: 'image/jpeg', data: PNG },
        ],
      },
    ],
    [
      'a1',
      {
        role: 'assistant',
        model: 'm',
        parts: [
          { type: 'tool_call', id: 'c1', name: 'Read', input: { file_path: 'a.png' } },
          { type: 'tool_call', id: 'c2', name: 'Read', input: { file_path: 'b.png' } },
        ],
      },
    ],
    [
      't1',
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: 'c1',
            content: [{ type: 'image', mediaType: 'image/webp', data: 'UklGRiQAAABXRUJQVlA4' }],
          },
          { type: 'tool_result', callId: 'c2', content: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
        ],
      },
    ],
  ]);
}

const SAID = [
  '[image: image/gif, 6 bytes, cut short, could not be read]',
  '[image: image/png, 8 bytes, cut short, could not be read]',
  '[image: image/png, 11 characters of data that is not base64, could not be read]',
  // by its address: only the browser can tell, on its error
  '[image image/png that cannot be shown: its data is damaged or not that type]',
  '[image: image/png, 0 bytes, could not be read]',
  '[image: image/webp, 15 bytes, cut short, could not be read]',
  '[image: image/png, 3 bytes of no image kind known, could not be read]',
];

describe.skipIf(skipBrowser)('damaged images in the web viewer', () => {
  let dir: string;
  let served: Served;
  let browser: Browser;
  let missing: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threadbase-web-broken-image-'));
    const store = new MemoryStore();
    served = await serveApp(createWebApp({ driver: store }));
    // on the viewer's own origin, which its content policy lets images load from
    missing = `${served.url}/ui/assets/not-there.png`;
    await store.writeSession(imagesSession(missing), { keepId: true });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves imageData and recordedImage as a module', async () => {
    const res = await fetch(`${served.url}/ui/assets/${IMAGE_DATA_ASSET}`);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const code = await res.text();
    expect(code).toContain('export const imageData = ');
    expect(code).toContain('export const recordedImage = ');
  });

  it('says what each image was in the export’s words; the readable one shows as its kind; the missing one on its error', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/images`);
    await page.waitForFunction(() => document.querySelector('.session-head .mono')?.textContent === 'images');
    await page.waitForSelector('#conversation details.tool');
    await openToolFolds(page);
    await expect.poll(() => page.locator('#conversation .image-broken').allTextContents(), { timeout: 5000 }).toEqual(SAID);
    // decided from the data, not by a failed decode: no image of the damaged data was made
    const sources = await page.locator('#conversation img').evaluateAll((is) => is.map((i) => i.getAttribute('src')));
    expect(sources).toEqual([`data:image/png;base64,${PNG}`]);
    await expect(page.locator('#conversation img').evaluate((i: HTMLImageElement) => i.naturalWidth)).resolves.toBe(4);
    await screenshot(page, 'web-broken-image');
    // the address that is not there, alone
    await expect
      .poll(() => browser.errors)
      .toEqual(['console: Failed to load resource: the server responded with a status of 404 (Not Found)']);
    browser.errors.length = 0;
  });

  it('the HTML export of the same session says the same words', async () => {
    const { page } = browser;
    const file = join(dir, 'images.html');
    await writeFile(file, sessionToHtml(imagesSession(missing)));
    await page.goto(`file://${file}`);
    await page.waitForLoadState('load');
    await expect.poll(() => page.locator('.image-broken').allTextContents(), { timeout: 5000 }).toEqual(SAID);
    browser.errors.length = 0;
  });
});
