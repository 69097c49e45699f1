/**
 * A tool's output that is a diff longer than the viewer draws at once (5,000 lines: a `git diff` of a
 * large change) ends with a button that shows the rest, as long text does. Before, the diff stopped
 * at '… N more lines' with no way to see them in the viewer. In chromium, on a session in memory.
 */
import { describe, expect, it } from 'vitest';
import { oneCallSession } from '../helpers/sessions.js';
import { openToolFolds, skipBrowser, viewerOverSessions } from './browser.js';

const LINES = 6000;
const diff = [
  'diff --git a/big.txt b/big.txt',
  '--- a/big.txt',
  '+++ b/big.txt',
  `@@ -0,0 +1,${LINES} @@`,
  ...Array.from({ length: LINES }, (_, i) => `+line ${i + 1}${i + 1 === LINES ? ' the very last' : ''}`),
].join('\n');

const SESSION = oneCallSession({
  id: 'long-diff',
  title: 'a long diff',
  prompt: 'show me the diff',
  call: { id: 'call-1', name: 'Bash', input: { command: 'git diff' } },
  result: diff,
});

describe.skipIf(skipBrowser)('web viewer: a diff longer than it draws at once', () => {
  const viewer = viewerOverSessions([SESSION]);

  it('shows its lines past the first 5,000 when asked', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${SESSION.id}`);
    await page.waitForSelector('#conversation details.tool');
    await openToolFolds(page);
    const diffText = () => page.locator('#conversation pre.diff').first().textContent();
    expect(await diffText()).not.toContain('the very last');
    const more = page.locator('#conversation button', { hasText: /^show 1,004 more lines$/ });
    await more.click();
    const text = (await diffText()) ?? '';
    expect(text).toContain(`+line ${LINES} the very last`);
    expect(text.split('\n').filter(Boolean)).toHaveLength(LINES + 4);
    await expect.poll(() => more.count()).toBe(0);
    expect(viewer.browser.errors).toEqual([]);
  });
});
