/**
 * An image whose data the browser cannot decode (cut short, or not the image it says) is shown in
 * the exported HTML page as words saying so, as the viewer says it, not as a broken-image icon; an
 * image that decodes is shown as before. On pi's v3 fixture (a PNG of its first bytes only) and the
 * image real Kilo CLI 7.7.7 read, exported through the CLI from a temp home, in chromium.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

/** test/fixtures/pi/v3-all-types.jsonl: a user image of 8 bytes, the PNG signature alone */
const PI_DAMAGED_IMAGE = '0190cccc-3333-7000-8000-000000000003';
/** Kilo CLI 7.7.7: read a 1×1 PNG */
const KILO_IMAGE = 'ses_de960d959ffeUnT4kXIY6RPwqO';

describe.skipIf(skipBrowser)('images in the exported HTML page', () => {
  let fx: FixtureHome;
  let browser: Browser;
  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-images-', fixtures: ['piAll', 'kilo'] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  const open = async (id: string) => {
    const file = join(fx.home, `${id}.html`);
    await runCliOk(fx.env, ['export', id, '--format', 'html', '--no-index', '-o', file]);
    // from a file, as a reader opens it
    await browser.page.goto(`file://${file}`);
    await browser.page.waitForLoadState('load');
    return readFile(file, 'utf8');
  };

  it('an image that cannot be decoded: said in words, no broken image', async () => {
    const { page } = browser;
    expect(await open(PI_DAMAGED_IMAGE)).toContain('base64,iVBORw0KGgo=');
    await page.waitForSelector('.image-broken', { timeout: 5000 });
    await expect(page.locator('.image-broken').allTextContents()).resolves.toEqual([
      '[image image/png that cannot be shown: its data is damaged or not that type]',
    ]);
    await expect(page.locator('img').count()).resolves.toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it('an image that decodes is shown', async () => {
    const { page } = browser;
    await open(KILO_IMAGE);
    const img = page.locator('section.turn.user img');
    await expect(img.count()).resolves.toBe(1);
    await expect(img.evaluate((i: HTMLImageElement) => i.naturalWidth)).resolves.toBeGreaterThan(0);
    await expect(page.locator('.image-broken').count()).resolves.toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
