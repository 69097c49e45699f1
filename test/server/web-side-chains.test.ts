/**
 * An older Claude Code session keeps its sub-agent's work inside its own file (records marked
 * `isSidechain: true`, test/fixtures/claude/older). The viewer's session head lists each such side
 * chain among the sub-agents, as the HTML export shows them, and its link opens the session at the
 * chain's own leaf, where its turns are shown; the Task call that ran one (its prompt is the chain's
 * first user text) carries that link too. Before, the head listed only the sessions of the store and
 * the call no link. In chromium, over the agents' files of a temp home.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenshot, skipBrowser, viewerOverFixtures } from '../e2e/browser.js';

const OLDER_ID = '11111111-1111-4111-8111-111111111111';
const OLDER_FILE = `test/fixtures/claude/older/projects/-work-proj-a/${OLDER_ID}.jsonl`;
/** the same session, its side chain opening with the Task call's prompt, and no sub-agent file of its own */
const PLACED_ID = '22222222-2222-4222-8222-222222222222';

describe.skipIf(skipBrowser)('in-file side chains in the web viewer', () => {
  const viewer = viewerOverFixtures({
    prefix: 'threadbase-web-side-chains-',
    fixtures: ['claudeOlder'],
    setup: async (home) => {
      const project = join(home, '.claude', 'projects', '-work-proj-b');
      await mkdir(project, { recursive: true });
      const text = await readFile(OLDER_FILE, 'utf8');
      expect(text).toContain('"content": "old in-file side chain"');
      await writeFile(
        join(project, `${PLACED_ID}.jsonl`),
        text.replaceAll(OLDER_ID, PLACED_ID).replace('"content": "old in-file side chain"', '"content": "count the cats"'),
      );
    },
  });

  const open = async (id: string) => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${encodeURIComponent(id)}`);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation .entry');
  };

  /** After a click on a link to the side chain: the same session, at the chain's leaf, its turns on screen. */
  const expectChainShown = async (id: string, prompt: string) => {
    const { page } = viewer.browser;
    await page.waitForFunction(() => location.hash.includes('leaf=sc2'));
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation .entry.sidechain');
    await expect(page.locator('#conversation .entry.sidechain', { hasText: prompt }).count()).resolves.toBe(1);
    await expect(page.locator('#conversation .entry.sidechain', { hasText: 'side answer' }).isVisible()).resolves.toBe(true);
  };

  it('a side chain no call ran: listed in the head as a sub-agent, its link opens it', async () => {
    const { page } = viewer.browser;
    await open(OLDER_ID);
    const line = page.locator('.session-head .children-line');
    // the sub-agent of its own file (agent-abcd1234.jsonl), and the side chain
    await expect(line.textContent()).resolves.toContain('(sub-agent, side chain)');
    const listed = line.locator('a', { hasText: 'old in-file side chain' });
    await expect(listed.count()).resolves.toBe(1);
    await expect(line.locator('a').count()).resolves.toBe(2);
    // no call ran it: no call links to it
    await expect(page.locator('a.sub-agent-link', { hasText: 'old in-file side chain' }).count()).resolves.toBe(0);
    await screenshot(page, 'web-side-chain-head');
    await listed.click();
    await expectChainShown(OLDER_ID, 'old in-file side chain');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('a side chain its Task call ran: linked under that call and in the head', async () => {
    const { page } = viewer.browser;
    await open(PLACED_ID);
    const link = page.locator('details.tool[data-call-id="toolu_1"] + a.sub-agent-link');
    await expect(link.textContent()).resolves.toContain('sub-agent session: count');
    await expect(link.isVisible()).resolves.toBe(true);
    const line = page.locator('.session-head .children-line');
    await expect(line.locator('a').allTextContents()).resolves.toEqual(['count']);
    await expect(line.textContent()).resolves.toContain('(sub-agent, side chain)');
    await screenshot(page, 'web-side-chain-under-call');
    await link.click();
    await expectChainShown(PLACED_ID, 'count the cats');
    // and back in the main conversation from the head's link
    await open(PLACED_ID);
    await line.locator('a').click();
    await expectChainShown(PLACED_ID, 'count the cats');
    expect(viewer.browser.errors).toEqual([]);
  });
});
