/**
 * A 10,000-entry session in Debian's chromium, served from a real SQLite store file: the document
 * only ever holds a window of it (pages load as one scrolls, pages far away are set aside),
 * scrolling alone reaches the last entry, the page answers the keyboard as soon as it shows
 * (j/k and the arrows over messages, Enter on a tool call, / for search), and dark mode follows the
 * system and the `d` switch, kept across reloads. Timings are printed for the report, not asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { type Browser, launchBrowser, type Served, screenshot, serveApp, skipBrowser } from './browser.js';
import { BIG_ENTRIES, BIG_ID, bigSession, parserSession } from './fixtures.js';

/** The document holds at most this many entries of the 10,000 at any time. */
const WINDOW = 600;

/** The relative luminance of a CSS rgb() colour, 0 (black) to 255 (white). */
const luminance = (rgb: string): number => {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

describe.skipIf(skipBrowser)('a 10,000-entry session in chromium', () => {
  let dir: string;
  let store: SqliteStore;
  let served: Served;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threadbase-big-'));
    store = openSqliteStore(join(dir, 'index.db'));
    await store.writeSession(bigSession(), { keepId: true });
    await store.writeSession(parserSession(), { keepId: true });
    served = await serveApp(createWebApp({ driver: store }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const liveEntries = (b: Browser) => b.page.locator('.conversation section.page:not(.parked) .entry').count();

  it('opens with a window of the entries and answers the keyboard at once', async () => {
    const { page } = browser;
    const t0 = Date.now();
    await page.goto(`${served.url}/#/session/${BIG_ID}`);
    await page.waitForSelector('#e-big-0');
    const shownMs = Date.now() - t0;
    expect(await page.locator('.session-head').textContent()).toContain(`${BIG_ENTRIES.toLocaleString('en-US')} entries`);
    const first = await page.locator('.conversation .entry').count();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(WINDOW);
    // interactive: the first key already selects a message, the next ones move, Enter opens a tool call
    await page.locator('body').press('j');
    expect(await page.locator('.entry.kb-selected').getAttribute('id')).toBe('e-big-0');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('.entry.kb-selected').getAttribute('id')).toBe('e-big-1');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#e-big-1 details.tool[open] pre.command');
    expect(await page.locator('#e-big-1 pre.command').textContent()).toBe('$ ls module-1');
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowUp');
    expect(await page.locator('.entry.kb-selected').getAttribute('id')).toBe('e-big-1');
    const interactiveMs = Date.now() - t0;
    // / goes to the search box
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('quick-search-input');
    await page.keyboard.press('Escape');
    console.log(`10,000-entry session: first entries shown after ${shownMs} ms, keyboard done after ${interactiveMs} ms`);
    await screenshot(page, 'big-01-open');
  });

  it('reaches the last entry by scrolling alone, the document holding only a window', async () => {
    const { page } = browser;
    // a fresh page: nothing selected or opened by the test before
    await page.goto('about:blank');
    await page.goto(`${served.url}/#/session/${BIG_ID}`);
    await page.waitForSelector('#e-big-0');
    const t0 = Date.now();
    let most = 0;
    let steps = 0;
    // Each step scrolls to the bottom and waits for the next page to arrive; 100 pages at most.
    while ((await page.locator(`#e-big-${BIG_ENTRIES - 1}`).count()) === 0) {
      steps++;
      expect(steps).toBeLessThan(200);
      const lastPage = Number(await page.locator('.conversation section.page').last().getAttribute('data-page'));
      await page.locator('.conversation').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await expect
        .poll(async () => Number(await page.locator('.conversation section.page').last().getAttribute('data-page')))
        .toBeGreaterThan(lastPage);
      most = Math.max(most, await liveEntries(browser));
    }
    const scrollMs = Date.now() - t0;
    await page.locator(`#e-big-${BIG_ENTRIES - 1}`).scrollIntoViewIfNeeded();
    expect(await page.locator(`#e-big-${BIG_ENTRIES - 1}`).textContent()).toContain('Working on module 9999');
    // every page was loaded on the way, but the pages far behind were set aside
    expect(await page.locator('.conversation section.page').count()).toBe(BIG_ENTRIES / 100);
    expect(most).toBeLessThan(WINDOW);
    expect(await liveEntries(browser)).toBeLessThan(WINDOW);
    expect(await page.locator('.conversation section.page.parked').count()).toBeGreaterThan(90);
    // and scrolling back up brings a set-aside page back
    await page.locator('.conversation').evaluate((el) => el.scrollTo(0, 0));
    await page.waitForSelector('#e-big-0');
    expect(await liveEntries(browser)).toBeLessThan(WINDOW);
    console.log(
      `10,000-entry session: scrolled to the last entry in ${steps} steps, ${scrollMs} ms; at most ${most} entries live`,
    );
    await screenshot(page, 'big-02-scrolled');
    expect(browser.errors).toEqual([]);
  });

  it('follows the system dark mode, and d switches it and is kept across a reload', async () => {
    const dark = await launchBrowser({ colorScheme: 'dark' });
    try {
      const { page } = dark;
      await page.goto(`${served.url}/#/session/sess-parser-0001`);
      await page.waitForSelector('#e-p-2');
      const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      // no choice made: the system's dark scheme
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBeUndefined();
      expect(luminance(await bg())).toBeLessThan(60);
      await page.locator('#e-p-2 details.tool summary').click();
      await page.waitForSelector('#e-p-2 pre.diff .add');
      // text stays readable: the body text contrasts with its background
      const fg = await page.evaluate(() => getComputedStyle(document.querySelector('#e-p-2 .prose') as Element).color);
      expect(luminance(fg) - luminance(await bg())).toBeGreaterThan(120);
      await screenshot(page, 'big-03-system-dark');
      await page.locator('body').press('d');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      expect(luminance(await bg())).toBeGreaterThan(200);
      await page.reload();
      await page.waitForSelector('#e-p-2');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      expect(luminance(await bg())).toBeGreaterThan(200);
      expect(dark.errors).toEqual([]);
    } finally {
      await dark.close();
    }
  });

  it('on a light system d switches to the dark scheme, every colour with it', async () => {
    const light = await launchBrowser({ colorScheme: 'light' });
    try {
      const { page } = light;
      await page.goto(`${served.url}/#/session/sess-parser-0001`);
      await page.waitForSelector('#e-p-2');
      const colours = () =>
        page.evaluate(() => {
          const of = (sel: string) => getComputedStyle(document.querySelector(sel) as Element);
          return { bg: of('body').backgroundColor, fg: of('#e-p-2 .prose').color };
        });
      const before = await colours();
      expect(luminance(before.bg)).toBeGreaterThan(200);
      await page.locator('body').press('d');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      const after = await colours();
      expect(luminance(after.bg)).toBeLessThan(60);
      expect(luminance(after.fg) - luminance(after.bg)).toBeGreaterThan(120);
      expect(light.errors).toEqual([]);
    } finally {
      await light.close();
    }
  });
});
