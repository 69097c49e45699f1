/**
 * An older Claude Code session keeps its sub-agent's work inside its own file: records marked
 * `isSidechain: true` (Claude Code 2.0 and before, test/fixtures/claude/older). The HTML export shows
 * each such side chain as a sub-agent session: under the Task call that ran it (the call whose
 * prompt the chain opens with), else, when no call on the path ran it, folded after the turns.
 * Before, the page left them out: the path to the leaf holds no side entry. In chromium, exported
 * through the CLI from a temp home.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser, screenshot, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome, homeEnv } from '../helpers/fixture-homes.js';

const OLDER_ID = '11111111-1111-4111-8111-111111111111';
const OLDER_FILE = `test/fixtures/claude/older/projects/-work-proj-a/${OLDER_ID}.jsonl`;

describe.skipIf(skipBrowser)('in-file side chains in the exported HTML page', () => {
  let fx: FixtureHome;
  /** the same session, its side chain opening with the Task call's prompt, and no sub-agent file beside it */
  let placedHome: string;
  let browser: Browser;

  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-side-chains-', fixtures: ['claudeOlder'] });
    placedHome = join(fx.home, 'placed');
    const project = join(placedHome, '.claude', 'projects', '-work-proj-a');
    await mkdir(project, { recursive: true });
    const text = await readFile(OLDER_FILE, 'utf8');
    expect(text).toContain('"content": "old in-file side chain"');
    await writeFile(
      join(project, `${OLDER_ID}.jsonl`),
      text.replace('"content": "old in-file side chain"', '"content": "count the cats"'),
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  const exported = async (home: string, extra: string[]) => {
    const file = join(home, 'out.html');
    await runCliOk(homeEnv(home), ['export', OLDER_ID, '--format', 'html', '-o', file, ...extra]);
    return readFile(file, 'utf8');
  };

  /** The side chain's folded section: its prompt and answer hidden until its summary is clicked. */
  const expectChain = async (selector: string, prompt: string) => {
    const { page } = browser;
    const chain = page.locator(selector);
    await expect(chain.count()).resolves.toBe(1);
    await expect(chain.locator('> summary').textContent()).resolves.toMatch(/sc1 · 2 turns$/);
    const answer = chain.locator('.turn.assistant .text', { hasText: 'side answer' });
    await expect(answer.isVisible()).resolves.toBe(false);
    await chain.locator('> summary').click();
    await expect(chain.locator('.turn.user .text', { hasText: prompt }).isVisible()).resolves.toBe(true);
    await expect(answer.isVisible()).resolves.toBe(true);
    // nowhere else in the page
    await expect(page.locator('.text', { hasText: 'side answer' }).count()).resolves.toBe(1);
  };

  for (const extra of [['--no-index'], []]) {
    const how = extra.length ? 'from the agent’s files' : 'through the local index';
    it(`a side chain no call ran: a sub-agent section after the turns (${how})`, async () => {
      const { page } = browser;
      await page.setContent(await exported(fx.home, extra));
      // the Task call keeps the sub-agent of its own file (agent-abcd1234.jsonl)
      await expect(page.locator('details.tool + details.sub-agent > summary').textContent()).resolves.toContain('abcd1234');
      await expectChain('main > details.sub-agent.side-chain', 'old in-file side chain');
      await expect(page.locator('main > details.sub-agent.side-chain > summary').textContent()).resolves.toContain(
        'no call on this path ran it',
      );
      await screenshot(page, 'export-side-chain-apart');
      expect(browser.errors).toEqual([]);
    });

    it(`a side chain its Task call ran: under that call (${how})`, async () => {
      const { page } = browser;
      await page.setContent(await exported(placedHome, extra));
      await expect(page.locator('details.side-chain').count()).resolves.toBe(0);
      const call = page.locator('details.tool', { has: page.locator('.tool-name:text-is("Task")') });
      await expect(call.count()).resolves.toBe(1);
      await expectChain('details.tool + details.sub-agent', 'count the cats');
      await screenshot(page, 'export-side-chain-under-call');
      expect(browser.errors).toEqual([]);
    });
  }
});
