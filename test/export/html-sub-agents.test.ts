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
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

/** parent, the call that ran the sub-agent, the sub-agent's id, its prompt and its answer, per agent */
const RUNS = [
  {
    agent: 'qwen',
    parent: '1865e916-c5ec-4265-a939-6e90168805d2',
    call: 'agent',
    child: 'general-purpose-toolu_standin_0001',
    prompt: 'count the files',
    answer: 'Plain answer from the stand-in.',
  },
  {
    agent: 'cline',
    parent: '1795666477967_183oc',
    call: 'spawn_agent',
    child: '1795666477967_183oc__agent_1795666478619_7xmhpw',
    prompt: 'subtask alpha',
    answer: 'ok: subtask alpha',
  },
  {
    agent: 'codex',
    parent: '01a21356-25ea-7ff3-8743-7ca9d35fbc3f',
    call: 'spawn_agent',
    child: '01a21356-267a-73e0-9768-3144907e69c8',
    prompt: 'CHILDTASK',
    answer: 'child done',
  },
  {
    agent: 'claude',
    parent: '0afea31a-5ccc-4b41-8d19-4c8571cb3a03',
    call: 'Agent',
    child: 'ac5303661b5759184',
    prompt: 'say hello',
    answer: 'ok: <system-reminder>',
  },
] as const;

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
