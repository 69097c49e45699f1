/**
 * The stats page on a phone (320 px wide): the charts by model, project and agent take one column
 * (their 360 px minimum pushed the page sideways), the per-day chart keeps a width its labels can be
 * read at and scrolls sideways in its own box (drawn 960 wide and shrunk, its labels were 3 px high),
 * and each legend item stays on one line ('cache' over 'read'). In chromium, sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import { answeredOnDays } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const usage = { input: 1000, output: 100, cacheRead: 500, cacheWrite: 50, reasoning: 0 };

describe.skipIf(skipBrowser)('web viewer: the stats page on a phone', () => {
  const viewer = viewerOverSessions([
    answeredOnDays('narrow-a', '/work/narrow-a', ['2026-11-01', '2026-11-05', '2026-11-12'], usage),
    answeredOnDays('narrow-b', '/work/narrow-b', ['2026-11-20', '2026-11-28'], usage),
  ]);

  it('does not push the page sideways and keeps its labels readable', async () => {
    const { page } = viewer.browser;
    await page.setViewportSize({ width: 320, height: 700 });
    await page.goto(`${viewer.served.url}/#/stats`);
    await page.waitForSelector('svg.time-chart text.axis[text-anchor="middle"]');
    await page.waitForSelector('svg.bar-chart');
    const shown = await page.evaluate(() => {
      const main = document.querySelector('main') as HTMLElement;
      const label = document.querySelector('svg.time-chart text.axis[text-anchor="middle"]') as SVGTextElement;
      const box = document.querySelector('figure:has(svg.time-chart)') as HTMLElement;
      return {
        pageSideways: main.scrollWidth > main.clientWidth + 1,
        labelHeight: label.getBoundingClientRect().height,
        chartScrollsInItsBox: box.scrollWidth > box.clientWidth,
        // one line of 12 px text is under 20 px high
        legendOneLine: Array.from(document.querySelectorAll('.legend > span')).map((s) => s.getBoundingClientRect().height < 20),
      };
    });
    expect({ ...shown, labelReadable: shown.labelHeight >= 7, labelHeight: undefined }).toEqual({
      pageSideways: false,
      labelReadable: true,
      labelHeight: undefined,
      chartScrollsInItsBox: true,
      legendOneLine: [true, true, true, true, true],
    });
    expect(viewer.browser.errors).toEqual([]);
  });
});
