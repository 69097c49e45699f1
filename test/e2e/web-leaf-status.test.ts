/**
 * The status line under a conversation names the leaf it shows so it is told from the session: Continue
 * writes entry ids that start with the session's id ('<session>:12'), and the line showed their first
 * 12 characters, which named the session on every leaf. In chromium, a session in memory.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { textEntry } from '../helpers/sessions.js';
import { skipBrowser, viewerOverSessions } from './browser.js';

const ID = '7b09ce44-8f9e-4247-a51c-208af9b03dd2';
const SESSION: Session = {
  id: ID,
  source: 'threadbase',
  title: 'entry ids after the session id',
  createdAt: '2026-01-01T00:00:01.000Z',
  updatedAt: '2026-01-01T00:00:02.000Z',
  messageCount: 2,
  entries: [textEntry(`${ID}:1`, null, 1, 'user', 'hello'), textEntry(`${ID}:2`, `${ID}:1`, 2, 'assistant', 'hi')],
};

describe.skipIf(skipBrowser)('web viewer: the leaf in the status line', () => {
  const viewer = viewerOverSessions([SESSION]);

  it('names the leaf, not the session its id starts with', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${ID}`);
    const status = page.locator('.conversation-col .status');
    await expect.poll(() => status.textContent()).toMatch(new RegExp(`^path to ${ID}:2 \\(current leaf\\) · 2 entries`));
    await page.click('#view-context');
    await expect.poll(() => status.textContent()).toMatch(new RegExp(`^what the model sees at ${ID}:2 \\(current leaf\\)`));
  });
});
