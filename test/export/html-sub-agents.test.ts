/**
 * `threadbase export --format html` puts a sub-agent's work in the page: under the call that ran it,
 * a folded section holds the sub-agent's session (its prompt and answer, its own calls), read from
 * the store the session came from. Before, the page showed the call and its 'agent launched' result
 * only: what the sub-agent did was nowhere in the exported file. In chromium, on the sessions the
 * real agents wrote, exported through the CLI from a temp home, through the agents' files and the index.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchBrowser, screenshot, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome, SUB_AGENT_RUNS } from '../helpers/fixture-homes.js';

const RUNS = SUB_AGENT_RUNS;

describe.skipIf(skipBrowser)('sub-agents in the exported HTML page', () => {
  let fx: FixtureHome;
  let browser: Browser;

  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-sub-agents-', fixtures: ['qwen', 'cline', 'codex', 'claude'] });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  const exported = async (id: string, extra: string[] = []) => {
    const file = join(fx.home, `${id}.html`);
    await runCliOk(fx.env, ['export', id, '--format', 'html', '-o', file, ...extra]);
    return readFile(file, 'utf8');
  };

  const check = async (run: (typeof RUNS)[number], html: string, shot?: string) => {
    const { page } = browser;
    await page.setContent(html);
    const call = page.locator('details.tool', { has: page.locator(`.tool-name:text-is("${run.call}")`) });
    await expect(call.count()).resolves.toBe(1);
    // right after the call, folded: its summary names the sub-agent's session
    const sub = page.locator('details.tool + details.sub-agent');
    await expect(sub.count()).resolves.toBe(1);
    await expect(sub.locator('> summary').textContent()).resolves.toContain(run.child);
    const answer = sub.locator('.turn.assistant .text', { hasText: run.answer }).first();
    await expect(answer.isVisible()).resolves.toBe(false);
    await sub.locator('> summary').click();
    await expect(sub.locator('.turn.user .text', { hasText: run.prompt }).first().isVisible()).resolves.toBe(true);
    await expect(answer.isVisible()).resolves.toBe(true);
    if (shot) await screenshot(page, shot);
    expect(browser.errors).toEqual([]);
  };

  for (const run of RUNS) {
    it(`${run.agent}: the sub-agent's turns are under the call that ran it`, async () => {
      await check(run, await exported(run.parent, ['--no-index']), `export-sub-agent-${run.agent}`);
    });
  }

  it('the same through the local index', async () => {
    await runCliOk(fx.env, ['sync']);
    for (const run of RUNS) await check(run, await exported(run.parent));
  });

  it('a session that ran no sub-agent has no such section', async () => {
    for (const run of RUNS) expect(await exported(run.child, ['--no-index'])).not.toContain('class="sub-agent"');
  });
});
