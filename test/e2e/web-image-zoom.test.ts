/**
 * An image shown smaller than it is (a screenshot shrunk to 520 px) can be seen larger: a click, or
 * Enter on it with the keyboard, shows it as wide as the conversation at its own height, and again
 * back. Its text could not be read and nothing showed it larger. An image that fits as it is (or a
 * tiny one, enlarged already) is no button. In chromium, a session in memory.
 */
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { ONE_PIXEL_PNG } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

/** A grey PNG of `width`×`height`, base64. */
function greyPng(width: number, height: number): string {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const head = Buffer.alloc(13);
  head.writeUInt32BE(width, 0);
  head.writeUInt32BE(height, 4);
  head.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  // each row: filter byte 0, then its pixels
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', head),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

const at = '2026-11-20T10:00:00.000Z';
const image = (data: string) => ({ type: 'image' as const, mediaType: 'image/png', data });
const SESSION: Session = {
  id: 'image-zoom',
  source: 'threadbase',
  title: 'images',
  createdAt: at,
  updatedAt: at,
  messageCount: 1,
  entries: [
    {
      id: 'u1',
      parentId: null,
      timestamp: at,
      kind: 'message',
      message: {
        role: 'user',
        parts: [{ type: 'text', text: 'look' }, image(greyPng(1600, 1000)), image(greyPng(200, 100)), image(ONE_PIXEL_PNG)],
      },
    },
  ],
};

describe.skipIf(skipBrowser)('web viewer: an image shown smaller than it is', () => {
  const viewer = viewerOverSessions([SESSION]);

  const sizes = () =>
    viewer.browser.page.locator('img.inline-image').evaluateAll((imgs) =>
      imgs.map((i) => ({
        width: Math.round(i.getBoundingClientRect().width),
        zoomable: i.classList.contains('zoomable'),
        pressed: i.getAttribute('aria-pressed'),
      })),
    );

  it('shows it larger on a click or Enter, and smaller again', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/image-zoom`);
    await expect.poll(async () => (await sizes()).map((s) => s.zoomable)).toEqual([true, false, false]);
    const [big, fits, tiny] = await sizes();
    expect(big?.width).toBeLessThanOrEqual(520);
    // its own size, and a border
    expect(fits).toEqual({ width: 202, zoomable: false, pressed: null });
    expect(tiny?.zoomable).toBe(false);

    const shown = page.locator('img.inline-image').first();
    await shown.click();
    const larger = (await sizes())[0];
    expect(larger?.pressed).toBe('true');
    expect(larger?.width).toBeGreaterThan(800);
    // with the keyboard: Tab reaches it, Enter shows it smaller again (and opens nothing else)
    await shown.focus();
    await page.keyboard.press('Enter');
    expect((await sizes())[0]).toEqual({ width: big?.width, zoomable: true, pressed: 'false' });
    expect(await page.evaluate(() => location.hash)).toBe('#/session/image-zoom');
    expect(viewer.browser.errors).toEqual([]);
  });
});
