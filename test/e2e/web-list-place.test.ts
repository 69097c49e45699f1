/**
 * The session list keeps the reader's place. Back from a session (Esc, ←), the row it was opened from
 * is the selection again when it was picked with j/k, and has the keyboard focus when its link had it,
 * and is in view: the list came back at its top with nothing selected or focused, and a keyboard reader
 * started again from the first row. And a row link that has the focus keeps it when the list is drawn
 * anew as a session comes in (every few seconds while an agent writes): the focus fell to the page.
 * In chromium, over sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

/** Session n, written n minutes after the first (the list shows the latest first). */
const nth = (n: number): Session => {
  const s = oneMessageSession(`place-${String(n).padStart(2, '0')}`, `session ${n}`);
  const at = new Date(Date.UTC(2026, 10, 20, 10, n)).toISOString();
  return { ...s, createdAt: at, updatedAt: at, entries: s.entries.map((e) => ({ ...e, id: `u-${n}`, timestamp: at })) };
};

describe.skipIf(skipBrowser)('web viewer: the list keeps the reader’s place', () => {
  const viewer = viewerOverSessions(
    Array.from({ length: 40 }, (_, i) => nth(i)),
    { cacheMs: 0 },
  );
  const url = () => viewer.served.url;

  /** The selected row's title, whether it is in the viewport, and the focused element's text. */
  const place = () =>
    viewer.browser.page.evaluate(() => {
      const selected = document.querySelector('tr.row.kb-selected');
      const r = selected?.getBoundingClientRect();
      const focused = document.activeElement;
      return {
        selected: selected?.querySelector('.title-cell a')?.textContent ?? null,
        inView: r ? r.top >= 0 && r.bottom <= innerHeight : null,
        focused: focused?.closest('tr.row') ? focused.textContent : focused?.tagName,
      };
    });

  it('selects the row opened with j/k again, in view', async () => {
    const { page } = viewer.browser;
    await page.goto(`${url()}/#/sessions`);
    await page.locator('tr.row').nth(30).waitFor();
    await page.locator('h1').click();
    for (let i = 0; i < 30; i++) await page.keyboard.press('j');
    expect((await place()).selected).toBe('session 10');
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'session 10' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('h1', { hasText: 'Sessions' }).waitFor();
    await expect.poll(place).toEqual({ selected: 'session 10', inView: true, focused: 'BODY' });
    // j goes on from it
    await page.keyboard.press('j');
    expect((await place()).selected).toBe('session 9');
  });

  it('gives the focus back to the row link it was opened from, in view', async () => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${url()}/#/sessions`);
    await page.locator('tr.row a', { hasText: 'session 5' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('h1', { hasText: 'session 5' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('h1', { hasText: 'Sessions' }).waitFor();
    await expect.poll(place).toEqual({ selected: null, inView: null, focused: 'session 5' });
    const linkInView = await page.locator('tr.row a', { hasText: 'session 5' }).evaluate((a) => {
      const r = a.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight;
    });
    expect(linkInView).toBe(true);
  });

  it('keeps the focus on a row link when a new session comes in', async () => {
    const { page } = viewer.browser;
    await page.goto('about:blank');
    await page.goto(`${url()}/#/sessions`);
    await page.locator('tr.row a', { hasText: 'session 20' }).focus();
    await viewer.store.writeSession(nth(50), { keepId: true });
    await expect.poll(() => page.locator('tr.row a').first().textContent(), { timeout: 12_000 }).toBe('session 50');
    expect((await place()).focused).toBe('session 20');
    expect(viewer.browser.errors).toEqual([]);
  });
});
