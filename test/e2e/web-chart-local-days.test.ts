/**
 * The stats page's per-day chart counts the reader's days, as its From and To are the reader's days:
 * the page sends its time zone and a response at 22:30 in New York is on that New York day (it was on
 * the next, its UTC date), also where the store counts the days itself (past statsSessionLimit: a
 * SQLite index's costBuckets in the reader's zone). In chromium in New York.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { answeredAt } from '../helpers/sessions.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser, viewerOverSessions } from './browser.js';

const SESSIONS = [
  answeredAt('late-evening', '2026-11-20T03:30:00.000Z'), // 22:30 on the 19th in New York
  answeredAt('next-morning', '2026-11-20T15:00:00.000Z'), // 10:00 on the 20th
];

/** The chart's day labels and its caption, once drawn. */
async function chartOf(browser: Browser, url: string) {
  const { page } = browser;
  await page.goto('about:blank');
  await page.goto(`${url}/#/stats`);
  await page.waitForSelector('svg.time-chart text.axis[text-anchor="middle"]');
  return {
    days: await page.$$eval('svg.time-chart text.axis[text-anchor="middle"]', (els) => els.map((t) => t.textContent)),
    caption: await page.locator('figure:has(svg.time-chart) figcaption').textContent(),
  };
}

describe.skipIf(skipBrowser)("web viewer: the per-day chart in the reader's time zone", () => {
  const viewer = viewerOverSessions(SESSIONS, {}, { timezoneId: 'America/New_York' });

  it('puts a response at 22:30 in New York on that New York day', async () => {
    expect(await chartOf(viewer.browser, viewer.served.url)).toEqual({
      days: ['11-19', '11-20'],
      caption: 'Tokens and cost per day',
    });
    expect(viewer.browser.errors).toEqual([]);
  });
});

describe.skipIf(skipBrowser)('web viewer: the per-day chart a store counts (past statsSessionLimit)', () => {
  let dir: string;
  let store: SqliteStore;
  let served: Served;
  let browser: Browser;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threadbase-chart-utc-'));
    store = openSqliteStore(join(dir, 'index.db'));
    for (const s of SESSIONS) await store.writeSession(s, { keepId: true });
    // past the limit the store counts the charts (costBuckets, in the reader's zone)
    served = await serveApp(createWebApp({ driver: store, statsSessionLimit: 0 }));
    browser = await launchBrowser({ timezoneId: 'America/New_York' });
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("puts a response at 22:30 in New York on that New York day too, the caption naming no other zone's days", async () => {
    expect(await chartOf(browser, served.url)).toEqual({ days: ['11-19', '11-20'], caption: 'Tokens and cost per day' });
    expect(browser.errors).toEqual([]);
  });
});
