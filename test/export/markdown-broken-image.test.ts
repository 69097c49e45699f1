/**
 * An image whose data no browser can show (not base64, no bytes, bytes of no image kind, cut short
 * before its picture) is written into the Markdown export as words saying what it was ("[image:
 * image/png, 0 bytes, could not be read]"), not as an image that shows broken, as the HTML page
 * replaces it; one a browser shows is written as before, as the kind its bytes are. imageData's
 * judgement is chromium's own on the same data; the export is of pi's v3 fixture (a PNG of its
 * signature alone) and the image real Kilo CLI 7.7.7 read, through the CLI from a temp home, its
 * Markdown rendered by marked in chromium.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageData } from '../../src/convert/image-data.js';
import { sessionToMarkdown } from '../../src/export/index.js';
import type { Session } from '../../src/model/types.js';
import { skipBrowser } from '../e2e/browser.js';
import { makePng } from '../e2e/fixtures.js';
import { browserOverFixtures } from '../helpers/browser-fixtures.js';
import { runCliOk } from '../helpers/cli.js';
import { chainSession } from '../helpers/sessions.js';

/** test/fixtures/pi/v3-all-types.jsonl: a user image of 8 bytes, the PNG signature alone */
const PI_DAMAGED_IMAGE = '0190cccc-3333-7000-8000-000000000003';
/** Kilo CLI 7.7.7: read a 1×1 PNG */
const KILO_IMAGE = 'ses_de960d959ffeUnT4kXIY6RPwqO';

const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const cut = (data: string, keep: number) => b64(Buffer.from(data, 'base64').subarray(0, keep));
const GIF = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

describe('imageData', () => {
  it('says what an image no browser can show was', () => {
    expect(imageData('image/png', '')).toEqual({ ok: false, said: '[image: image/png, 0 bytes, could not be read]' });
    expect(imageData('image/png', 'iVBORw0KGgo=')).toEqual({
      ok: false,
      said: '[image: image/png, 8 bytes, cut short, could not be read]',
    });
    expect(imageData('image/png', 'not base64!')).toEqual({
      ok: false,
      said: '[image: image/png, 11 characters of data that is not base64, could not be read]',
    });
    expect(imageData('application/x-unknown', b64('plain text'))).toEqual({
      ok: false,
      said: '[image: application/x-unknown, 10 bytes of no image kind known, could not be read]',
    });
  });

  it('takes an image as the kind its bytes are, its base64 without line breaks', () => {
    const png = b64(makePng(4, 4));
    expect(imageData('image/jpeg', png)).toEqual({ ok: true, mediaType: 'image/png', data: png });
    const wrapped = png.replace(/.{20}/g, '$&\n');
    expect(imageData('image/png', wrapped)).toEqual({ ok: true, mediaType: 'image/png', data: png });
    expect(imageData('image/gif', GIF.replace(/=+$/, ''))).toMatchObject({ ok: true, mediaType: 'image/gif' });
  });
});

describe('images without data in the Markdown export', () => {
  it('an image recorded without data, or in a data: URL of damaged data, is said in words too', () => {
    const session: Session = chainSession('images', 'claude', '/p', [
      ['u1', { role: 'user', parts: [{ type: 'image', mediaType: 'image/png' }] }],
      ['u2', { role: 'user', parts: [{ type: 'image', mediaType: 'image/png', url: 'data:image/gif;base64,R0lGODlh' }] }],
      ['u3', { role: 'user', parts: [{ type: 'image', mediaType: 'image/png', url: 'https://example.com/a.png' }] }],
    ]);
    const md = sessionToMarkdown(session);
    expect(md).toContain('[image: image/png, 0 bytes, could not be read]');
    expect(md).toContain('[image: image/gif, 6 bytes, cut short, could not be read]');
    expect(md).toContain('![image](https://example.com/a.png)');
  });
});

describe.skipIf(skipBrowser)('damaged images in the Markdown export', () => {
  const fx = browserOverFixtures({ prefix: 'threadbase-export-md-images-', fixtures: ['piAll', 'kilo'] });

  it('judges an image as chromium does: shown where chromium shows it, words where it cannot', async () => {
    const { page } = fx.browser;
    await page.setContent('<canvas width="20" height="20"></canvas>');
    // images chromium itself encodes, whole and cut
    const made = await page.evaluate(() => {
      const c = document.querySelector('canvas') as HTMLCanvasElement;
      const g = c.getContext('2d') as CanvasRenderingContext2D;
      g.fillStyle = 'red';
      g.fillRect(2, 2, 10, 10);
      return { jpeg: c.toDataURL('image/jpeg').split(',')[1] ?? '', webp: c.toDataURL('image/webp').split(',')[1] ?? '' };
    });
    const png = b64(makePng(20, 20));
    const pngLength = Buffer.from(png, 'base64').length;
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>';
    const cases: [string, string, string][] = [
      ['png', 'image/png', png],
      ['png cut in its image data', 'image/png', cut(png, Math.floor(pngLength / 2))],
      ['png without its end', 'image/png', cut(png, pngLength - 12)],
      ['png signature alone', 'image/png', cut(png, 8)],
      ['png header alone', 'image/png', cut(png, 33)],
      ['png as jpeg', 'image/jpeg', png],
      ['png as heic', 'image/heic', png],
      ['png of no image type', 'application/octet-stream', png],
      ['jpeg', 'image/jpeg', made.jpeg],
      ['jpeg cut before its scan', 'image/jpeg', cut(made.jpeg, 20)],
      ['webp', 'image/webp', made.webp],
      ['webp cut', 'image/webp', cut(made.webp, Math.floor(Buffer.from(made.webp, 'base64').length / 2))],
      ['gif', 'image/gif', GIF],
      ['gif cut', 'image/gif', cut(GIF, 21)],
      ['svg', 'image/svg+xml', b64(svg)],
      ['svg cut', 'image/svg+xml', b64(svg.slice(0, 30))],
      ['no bytes', 'image/png', ''],
      ['no image', 'image/png', b64('not an image')],
      ['not base64', 'image/png', '!!!!'],
      ['base64url', 'image/png', png.replace(/\+/g, '-').replace(/\//g, '_')],
    ];
    const shown = await page.evaluate(
      (cases) =>
        Promise.all(
          cases.map(
            ([, type, data]) =>
              new Promise<boolean>((done) => {
                const img = new Image();
                img.onload = () => done(img.naturalWidth > 0);
                img.onerror = () => done(false);
                img.src = `data:${type};base64,${data}`;
              }),
          ),
        ),
      cases,
    );
    const judged = cases.map(([name, type, data]) => [name, imageData(type, data).ok]);
    expect(judged).toEqual(cases.map(([name], i) => [name, shown[i]]));
    // each kind, whole and cut, among them
    expect(shown.filter(Boolean).length).toBeGreaterThan(5);
    expect(shown.filter((s) => !s).length).toBeGreaterThan(5);
  });

  const exported = async (id: string) => {
    const file = join(fx.home, `${id}.md`);
    await runCliOk(fx.env, ['export', id, '--format', 'md', '--no-index', '-o', file]);
    return readFile(file, 'utf8');
  };
  const render = async (md: string) => {
    await fx.browser.page.setContent(`<body>${marked.parse(md)}</body>`);
    await fx.browser.page.waitForLoadState('load');
  };

  it('an image that cannot be read: said in words, no broken image', async () => {
    const { page } = fx.browser;
    const md = await exported(PI_DAMAGED_IMAGE);
    expect(md).toContain('[image: image/png, 8 bytes, cut short, could not be read]');
    expect(md).not.toContain('![image]');
    await render(md);
    await expect(page.locator('img').count()).resolves.toBe(0);
    await expect(page.locator('body').textContent()).resolves.toContain(
      '[image: image/png, 8 bytes, cut short, could not be read]',
    );
  });

  it('an image that decodes is shown', async () => {
    const { page } = fx.browser;
    const md = await exported(KILO_IMAGE);
    expect(md).toContain('![image](data:image/png;base64,');
    await render(md);
    const img = page.locator('img');
    await expect(img.count()).resolves.toBe(1);
    await expect(img.evaluate((i: HTMLImageElement) => i.naturalWidth)).resolves.toBeGreaterThan(0);
  });
});
