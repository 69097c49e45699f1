/**
 * A tool call the user refused, or one that was cancelled (its result marked `meta.refused` /
 * `meta.cancelled`: convert/declined.ts), did not run: the exported HTML page shows it so (a badge in
 * the call's head, with what it means for a screen reader, a dashed amber edge, "Output (refused)"),
 * not as a call that failed (red, "Output (error)"), and the Markdown says it in the result's head.
 * Before, both showed it as a plain error. Shared with the viewer's test (test/e2e/web-declined).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declinedWords } from '../../src/convert/declined.js';
import { sessionToHtml, sessionToMarkdown } from '../../src/export/index.js';
import { type Browser, launchBrowser, skipBrowser } from '../e2e/browser.js';
import { declinedSession } from './declined-session.js';

describe('the Markdown export of refused and cancelled calls', () => {
  it("says the mark in the result's head, not an error; a failed call stays an error", () => {
    const heads = sessionToMarkdown(declinedSession())
      .split('\n')
      .filter((l) => l.startsWith('**tool result**'));
    expect(heads).toEqual([
      '**tool result** (c_ok)',
      '**tool result** (c_failed) — error',
      `**tool result** (c_refused) — **refused** (${declinedWords('refused')})`,
      `**tool result** (c_cancelled) — **cancelled** (${declinedWords('cancelled')})`,
      // refused wins: a refusal is also a cancellation
      `**tool result** (c_elsewhere) — **refused** (${declinedWords('refused')})`,
    ]);
    expect(sessionToMarkdown(declinedSession())).toContain(
      `**tool result** (c_refused) — **refused** (${declinedWords('refused')})\n\n\`\`\`\n[Operation Cancelled] Reason: User denied execution.\n\`\`\``,
    );
  });
});

describe.skipIf(skipBrowser)('the HTML export of refused and cancelled calls, in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
    await browser.page.setContent(sessionToHtml(declinedSession()));
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Each call's fold: its class, its head as a screen reader reads it, its left edge, its output's heading. */
  const folds = () =>
    browser.page.locator('details.tool').evaluateAll((ds) =>
      ds.map((d) => {
        const style = getComputedStyle(d);
        return {
          cls: d.className,
          head: d.querySelector('summary')?.textContent,
          edge: `${style.borderLeftStyle} ${style.borderLeftColor}`,
          output: d.querySelector('h4:nth-of-type(2)')?.textContent ?? null,
        };
      }),
    );

  it('shows a refused or cancelled call with its badge, apart from a failed one', async () => {
    const [ok, failed, refused, cancelled, alone] = await folds();
    expect(ok).toMatchObject({ cls: 'tool', head: 'Bash touch c_ok', output: 'Output' });
    expect(failed).toMatchObject({ cls: 'tool error', head: 'Bash touch c_failed', output: 'Output (error)' });
    expect(refused).toMatchObject({
      cls: 'tool declined refused',
      head: `Bash touch c_refused refused: ${declinedWords('refused')}`,
      output: 'Output (refused)',
    });
    expect(cancelled).toMatchObject({
      cls: 'tool declined cancelled',
      head: `Bash touch c_cancelled cancelled: ${declinedWords('cancelled')}`,
      output: 'Output (cancelled)',
    });
    expect(alone).toMatchObject({
      cls: 'tool declined refused',
      head: `Result of c_elsewhere refused: ${declinedWords('refused')}`,
    });
    // a dashed edge of its own colour, not the failed call's red nor the plain one's
    expect(refused?.edge).toMatch(/^dashed /);
    expect(cancelled?.edge).toBe(refused?.edge);
    expect(failed?.edge).toMatch(/^solid /);
    expect(
      new Set([
        ok?.edge.split(' ').slice(1).join(' '),
        failed?.edge.split(' ').slice(1).join(' '),
        refused?.edge.split(' ').slice(1).join(' '),
      ]).size,
    ).toBe(3);
    expect(browser.errors).toEqual([]);
  });

  it('shows the mark alone; a screen reader reads what it means', async () => {
    const { page } = browser;
    // what is seen: the word, its explanation clipped to nothing
    const said = page.locator('details.tool.refused .badge .sr-only').first();
    await expect(said.boundingBox()).resolves.toMatchObject({ width: 1, height: 1 });
    await expect(said.evaluate((e) => getComputedStyle(e).clip)).resolves.toBe('rect(0px, 0px, 0px, 0px)');
    // what is read: the word and its meaning
    const read = await page.locator('details.tool.cancelled > summary').ariaSnapshot();
    expect(read).toMatch(/cancelled ?: /);
    expect(read).toContain(declinedWords('cancelled'));
  });
});
