/**
 * The session list on a phone (390 px wide): each row a card (title and id, agent, time, counts, project)
 * instead of a table eight columns wide that scrolled the whole page sideways; a tap on a row opens its
 * session. On a laptop it stays a table whose header sticks at the top of the scrolled list. In chromium,
 * sessions in memory.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { textMessage } from '../helpers/sessions.js';
import { skipBrowser, VIEWPORT, viewerOverSessions } from './browser.js';

const usage = { input: 123_456, output: 7_890, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

/** Session `i`: a title, a deep project, two models; one title a single long word, one in Japanese. */
const session = (i: number): Session => {
  const id = `narrow-list-${String(i).padStart(2, '0')}`;
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 10, i, s)).toISOString();
  const title =
    i === 0
      ? 'https://example.com/a/very/long/path/without/any/space/to/wrap/at/in/a/title/of/a/session'
      : i === 1
        ? '日本語のタイトルのセッションをスマートフォンで読む'
        : `Fix the flaky test number ${i} in the parser`;
  const entries: Session['entries'] = [
    { kind: 'message', id: `${id}-u`, parentId: null, timestamp: at(0), message: textMessage('user', title) },
    {
      kind: 'message',
      id: `${id}-a`,
      parentId: `${id}-u`,
      timestamp: at(5),
      message: textMessage('assistant', 'done', { model: 'claude-sonnet-4-5-20250929', usage, cost: 0.42 }),
    },
    {
      kind: 'message',
      id: `${id}-a2`,
      parentId: `${id}-a`,
      timestamp: at(9),
      message: textMessage('assistant', 'and more', { model: 'gpt-5-codex-with-a-long-name', usage }),
    },
  ];
  return {
    id,
    source: 'threadbase',
    title,
    project: `/home/someone/work/projects/client-${i}/a-repository-with-a-long-name/packages/server`,
    createdAt: at(0),
    updatedAt: at(9),
    messageCount: entries.length,
    entries,
  };
};

describe.skipIf(skipBrowser)('web viewer: the session list on a phone', () => {
  const viewer = viewerOverSessions(Array.from({ length: 60 }, (_, i) => session(i)));

  it('fits a 390 px screen: no sideways scrolling, each row shows its title, agent and time', async () => {
    const { page } = viewer.browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${viewer.served.url}/#/sessions?sort=title&order=asc`);
    await page.waitForSelector('table.sessions tr.row');
    const shown = await page.evaluate(() => {
      const main = document.querySelector('main') as HTMLElement;
      const root = document.documentElement;
      const inView = (el: Element | null) => {
        const r = (el as Element).getBoundingClientRect();
        return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth;
      };
      const rows = Array.from(document.querySelectorAll('table.sessions tr.row'));
      return {
        mainSideways: main.scrollWidth - main.clientWidth,
        pageSideways: root.scrollWidth - root.clientWidth,
        rows: rows.length,
        titles: rows.filter((r) => inView(r.querySelector('td.title-cell a'))).length,
        agents: rows.filter((r) => inView(r.querySelector('.agent'))).length,
        // the time's cell: the fifth, as the table's columns go
        times: rows.filter((r) => inView(r.querySelector('td:nth-child(5)')) && /\d/.test(r.children[4]?.textContent ?? ''))
          .length,
        projects: rows.filter((r) => inView(r.querySelector('td:nth-child(3)'))).length,
      };
    });
    expect(shown.rows).toBeGreaterThan(10);
    expect(shown).toEqual({
      mainSideways: 0,
      pageSideways: 0,
      rows: shown.rows,
      titles: shown.rows,
      agents: shown.rows,
      times: shown.rows,
      projects: shown.rows,
    });
    await page.screenshot({ path: 'test-results/screenshots/web-sessions-narrow.png' });
    // a tap on the row (its agent badge, not the title's link) opens that session
    const row = page.locator('table.sessions tr.row', { hasText: 'narrow-list-05' });
    await row.locator('.agent').click();
    await page.waitForFunction(() => location.hash.startsWith('#/session/narrow-list-05'));
    await expect.poll(() => page.locator('h1').first().textContent()).toContain('test number 5 in');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('stays a table on a laptop, its header stuck at the top of the scrolled list', async () => {
    const { page } = viewer.browser;
    await page.setViewportSize(VIEWPORT);
    await page.goto(`${viewer.served.url}/#/sessions`);
    await page.waitForSelector('table.sessions tr.row');
    const header = await page.evaluate(async () => {
      const main = document.querySelector('main') as HTMLElement;
      const th = document.querySelector('table.sessions th') as HTMLElement;
      const cells = document.querySelector('table.sessions tr.row')?.children.length;
      main.scrollTop = main.scrollHeight;
      await new Promise((r) => requestAnimationFrame(r));
      return {
        scrolled: main.scrollTop > 200,
        // (a sticky header keeps clear of its scroller's padding)
        headerAtTop:
          Math.abs(
            th.getBoundingClientRect().top -
              main.getBoundingClientRect().top -
              Number.parseFloat(getComputedStyle(main).paddingTop),
          ) <= 1,
        cellsShown: cells,
        sideways: main.scrollWidth - main.clientWidth,
      };
    });
    expect(header).toEqual({ scrolled: true, headerAtTop: true, cellsShown: 8, sideways: 0 });
    expect(viewer.browser.errors).toEqual([]);
  });
});
