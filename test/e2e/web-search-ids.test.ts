/**
 * A search hit names its session by a short id: cut, it says so ('…') and keeps the whole id on hover
 * and in its link; two sessions whose ids share a long start (OpenCode's ses_… made the same second)
 * are cut where they differ. The hit showed the first 12 characters bare, which read as the whole id
 * and as the same id for both. In chromium, over sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const A = 'ses_3a1b2c3d4e5fAAAAAAAAAAAAAA';
const B = 'ses_3a1b2c3d4e5fBBBBBBBBBBBBBB';
const LONE = '0193f2a4-7c1d-7e21-9b3a-5d4c3b2a1f00';
const SHORT = 'short-one';

/** A session of one message; its own entry id (one entry id and time in several sessions is a copy, one hit). */
const session = (id: string, text: string): Session => {
  const s = oneMessageSession(id, id, text);
  return { ...s, entries: s.entries.map((e) => ({ ...e, id: `${id}-u1` })) };
};

describe.skipIf(skipBrowser)('web viewer: session ids on search hits', () => {
  const viewer = viewerOverSessions([
    session(A, 'needle one'),
    session(B, 'needle two'),
    session(LONE, 'needle three'),
    session(SHORT, 'needle four'),
  ]);

  it('marks a cut id, keeps the whole one in the link and on hover, and tells similar ids apart', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/search?q=needle`);
    await page.locator('li.hit-row').nth(3).waitFor();
    const hits = await page.locator('li.hit-row').evaluateAll((rows) =>
      rows.map((r) => {
        const id = r.querySelector('.hit-id') as HTMLElement;
        return { shown: id.textContent, title: id.title, href: r.querySelector('a')?.getAttribute('href') };
      }),
    );
    const of = (full: string) => hits.find((x) => x.title === full);
    expect(of(A)?.shown).toBe('ses_3a1b2c3d4e5fAAAA…');
    expect(of(B)?.shown).toBe('ses_3a1b2c3d4e5fBBBB…');
    expect(of(LONE)?.shown).toBe('0193f2a4-7c1…');
    expect(of(SHORT)?.shown).toBe(SHORT);
    for (const full of [A, B, LONE, SHORT]) expect(of(full)?.href).toContain(`#/session/${encodeURIComponent(full)}?`);
    expect(viewer.browser.errors).toEqual([]);
  });
});
