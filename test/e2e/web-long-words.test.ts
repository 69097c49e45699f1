/**
 * A word longer than its place (a URL or a path as a session's title, taken from its first line; a
 * long project path, model or tool name) wraps where it is. In the list it ran over the next columns
 * and pushed the last ones (updated, messages, tokens, cost) out of the window, where nothing scrolls
 * to them; in a session's head the title and path ran out of the window, cut off. The exported HTML
 * page the same: its title, facts, a turn's model and a call's name ran out of the page's column and
 * the page scrolled sideways. In chromium, on a session in memory, at a laptop's width.
 */
import { describe, expect, it } from 'vitest';
import { sessionToHtml } from '../../src/export/index.js';
import { oneCallSession } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const word = (head: string) => `${head}${'x'.repeat(400)}`;

const SESSION = oneCallSession({
  id: 'long-words',
  title: word('https://example.com/'),
  project: word('/home/dev/'),
  prompt: 'go',
  call: { id: 'c1', name: word('tool_'), input: { command: 'ls' } },
  model: word('model-'),
  result: 'ok',
});

describe.skipIf(skipBrowser)('web viewer: words longer than their place', () => {
  const viewer = viewerOverSessions([SESSION]);

  /** The selectors whose box ends past the window's right edge, or past the box of `within`. */
  const overflowing = (pairs: [string, string][]) =>
    viewer.browser.page.evaluate((pairs) => {
      const out: string[] = [];
      for (const [sel, within] of pairs) {
        const el = document.querySelector(sel);
        if (!el) {
          out.push(`${sel}: missing`);
          continue;
        }
        const outer = within === 'window' ? window.innerWidth : (el.closest(within)?.getBoundingClientRect().right ?? 0);
        const right = el.getBoundingClientRect().right;
        if (right > outer + 1) out.push(`${sel}: ${Math.round(right)} > ${Math.round(outer)}`);
      }
      return out;
    }, pairs);

  it('the list keeps every column in the window, each cell’s words in it', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/sessions`);
    await page.waitForSelector('tr.row');
    expect(
      await overflowing([
        ['table.sessions th:last-child', 'window'],
        ['td.title-cell a', 'td'],
        ['tr.row td:nth-child(3)', 'window'],
        ['tr.row td:nth-child(4)', 'window'],
      ]),
    ).toEqual([]);
    // and nothing to scroll sideways for
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });

  it('the session’s head, model and tool name wrap inside the window', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${SESSION.id}`);
    await page.waitForSelector('#e-a1');
    expect(
      await overflowing([
        ['.session-head h1', 'window'],
        ['.session-head .muted.small', 'window'],
        ['#e-a1 header .model', 'article'],
        ['#e-a1 details.tool > summary .tool-name', 'summary'],
      ]),
    ).toEqual([]);
    expect(viewer.browser.errors).toEqual([]);
  });

  it('the exported HTML page keeps them in its column', async () => {
    const { page } = viewer.browser;
    // a page of its own: on the viewer's, its policy would block the page's inline style
    await page.goto('about:blank');
    await page.setContent(sessionToHtml(SESSION));
    const past = await page.evaluate(() => {
      const column = document.querySelector('main')?.getBoundingClientRect().right ?? 0;
      return Array.from(document.querySelectorAll('main *'))
        .filter((el) => el.getBoundingClientRect().right > column + 1)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
    });
    expect(past).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });
});
