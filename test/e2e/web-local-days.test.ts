/**
 * The list's From and To are the reader's own days: the page sends the API the instants its local day
 * starts and ends. They were sent as bare dates, which the API reads as UTC days: in New York the
 * evening of the 20th was not in 'the 20th' and the evening of the 19th was.
 * In chromium with its time zone set to America/New_York (UTC−5 in November).
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

/** A one-message session written at `iso` (UTC). */
const at = (id: string, iso: string): Session => {
  const s = oneMessageSession(id, id);
  return { ...s, createdAt: iso, updatedAt: iso, entries: s.entries.map((e) => ({ ...e, timestamp: iso })) };
};

describe.skipIf(skipBrowser)('web viewer: From and To in the reader’s time zone', () => {
  const viewer = viewerOverSessions(
    [
      at('evening-19', '2026-11-20T03:00:00.000Z'), // 22:00 on the 19th in New York
      at('morning-20', '2026-11-20T15:00:00.000Z'), // 10:00 on the 20th
      at('evening-20', '2026-11-21T02:00:00.000Z'), // 21:00 on the 20th
      at('morning-21', '2026-11-21T14:00:00.000Z'), // 09:00 on the 21st
    ],
    {},
    { timezoneId: 'America/New_York' },
  );

  const titles = () =>
    viewer.browser.page.locator('table.sessions tbody tr.row .title-cell a').evaluateAll((as) => as.map((a) => a.textContent));

  it('From and To a day list the sessions of that local day', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/sessions`);
    await expect.poll(titles).toHaveLength(4);
    await page.fill('input[name=since]', '2026-11-20');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions?since=2026-11-20');
    await expect.poll(titles).toEqual(['morning-21', 'evening-20', 'morning-20']);
    await page.fill('input[name=until]', '2026-11-20');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions?since=2026-11-20&until=2026-11-20');
    await expect.poll(titles).toEqual(['evening-20', 'morning-20']);
    // the fields still show the days picked
    expect(await page.inputValue('input[name=since]')).toBe('2026-11-20');
    expect(await page.inputValue('input[name=until]')).toBe('2026-11-20');
    expect(viewer.browser.errors).toEqual([]);
  });
});
