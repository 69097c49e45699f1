/**
 * An open session list shows what is written while it is open (as README says of `threadbase ui`,
 * whose index follows the agents): it looks again every few seconds and draws the list anew when it
 * changed, but not while the reader is typing in its filter. It stayed as first drawn until reloaded.
 * In chromium, over a store in memory a session is written into while the list is open.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

/** A one-message session written a day after the first. */
const later = (id: string, title: string): Session => {
  const s = oneMessageSession(id, title);
  const at = '2026-11-21T10:00:00.000Z';
  return { ...s, createdAt: at, updatedAt: at, entries: s.entries.map((e) => ({ ...e, timestamp: at })) };
};

describe.skipIf(skipBrowser)('web viewer: the list follows the store', () => {
  const viewer = viewerOverSessions([oneMessageSession('first-one', 'first one')], { cacheMs: 0 });
  const titles = () =>
    viewer.browser.page.locator('table.sessions tr.row .title-cell a').evaluateAll((as) => as.map((a) => a.textContent));

  it('lists a session written while the list is open, not while the reader types in the filter', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/sessions`);
    await expect.poll(titles).toEqual(['first one']);
    // typing in the filter: the list is not drawn again under the reader (the text would be lost)
    await page.locator('input[name=text]').focus();
    await page.keyboard.type('fir');
    await viewer.store.writeSession(later('second-one', 'second one'), { keepId: true });
    await page.waitForTimeout(6000);
    expect(await titles()).toEqual(['first one']);
    expect(await page.inputValue('input[name=text]')).toBe('fir');
    // done typing (the field left without a change: the text cleared): the new session comes in
    await page.locator('input[name=text]').fill('');
    await page.locator('h1').click();
    await expect.poll(titles, { timeout: 12_000 }).toEqual(['second one', 'first one']);
    expect(viewer.browser.errors).toEqual([]);
  });
});
