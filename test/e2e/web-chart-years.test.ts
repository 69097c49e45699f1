/**
 * The stats chart's days carry their year when its days are of more than one year: '01-01' for
 * 2025-01-01 and then '02-01' for 2026-02-01 read as a January and the February after it. Days of one
 * year keep the short labels. In chromium, sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import { answeredOnDays } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

describe.skipIf(skipBrowser)('web viewer: the stats chart over more than one year', () => {
  const viewer = viewerOverSessions([
    answeredOnDays('two-years', '/work/two-years', ['2025-01-01', '2025-06-15', '2026-02-01'], usage),
    answeredOnDays('one-year', '/work/one-year', ['2026-03-01', '2026-03-03'], usage),
  ]);

  const dayLabels = async () => {
    const { page } = viewer.browser;
    await page.waitForSelector('svg.time-chart text.axis[text-anchor="middle"]');
    return page.$$eval('svg.time-chart text.axis[text-anchor="middle"]', (els) => els.map((t) => t.textContent));
  };

  it('labels days with their year when they are of more than one', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/stats?project=/work/two-years`);
    expect(await dayLabels()).toEqual(['2025-01-01', '2025-06-15', '2026-02-01']);
  });

  it('keeps the short labels for days of one year', async () => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${viewer.served.url}/#/stats?project=/work/one-year`);
    expect(await dayLabels()).toEqual(['03-01', '03-02', '03-03']);
  });
});
