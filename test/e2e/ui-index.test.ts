/**
 * `threadbase ui` on the local SQLite index, in Debian's chromium, the way a developer meets it:
 * sessions written into the agents' own stores (Claude Code JSONL, pi JSONL, Codex rollouts) under a
 * temporary HOME, `threadbase sync` indexing them into $THREADBASE_HOME/index.db, then `threadbase
 * ui` (no --store: the index) as a real process. The journey: search, open the hit at its turn in a
 * 10,000-entry session, expand a tool call and see the diff as a diff, switch a branch leaf and see
 * its context, "Continue in…" pi, and stats with charts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session, SessionInfo, Usage } from '../../src/model/types.js';
import { shownEntry } from '../../src/server/web/data.js';
import { costOf, PRICES, priceOf } from '../../src/stores/index-sync/prices.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';
import { type Browser, launchBrowser, screenshot, skipBrowser } from './browser.js';
import {
  ALT_LEAF,
  BIG_ENTRIES,
  BIG_NEEDLE,
  BIG_NEEDLE_INDEX,
  bigSession,
  parserSession,
  piSession,
  smallSessions,
} from './fixtures.js';
import { continueAltBranchInPi, openStats } from './journeys.js';
import { startUi, type UiProcess } from './ui-process.js';

describe.skipIf(skipBrowser)('threadbase ui on the SQLite index, in chromium', () => {
  let home: string;
  let env: DriverEnv;
  let ui: UiProcess;
  let browser: Browser;
  let parser: SessionInfo;
  let big: SessionInfo;
  const written: SessionInfo[] = [];
  let bigUsage: Usage | undefined;
  /** the entries the viewer shows of what the Claude Code file holds (not the bookkeeping records beside them: its title) */
  let bigEntries = 0;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-ui-index-'));
    const vars = { HOME: home, THREADBASE_HOME: join(home, '.threadbase') };
    env = { home, env: vars };
    const sources = new Sources(env);
    const write = async (agent: string, s: Session) => {
      const w = sources.driver(agent).writeSession;
      if (!w) throw new Error(`${agent} cannot write`);
      const info = await w.call(sources.driver(agent), s, { keepId: true });
      written.push(info);
      return info;
    };
    parser = await write('claude', parserSession());
    big = await write('claude', bigSession());
    bigEntries = (await sources.driver('claude').getSession(big.id))?.entries.filter(shownEntry).length ?? 0;
    expect(bigEntries).toBeGreaterThanOrEqual(BIG_ENTRIES);
    await write('pi', piSession());
    const [s0, s1, , s3] = smallSessions();
    if (!s0 || !s1 || !s3) throw new Error('fixtures changed');
    await write('claude', s0);
    await write('pi', s1);
    await write('codex', s3);

    const report = JSON.parse(await runCliOk(env, ['sync', '--json'])) as { index: string; units: number; failed: number };
    expect(report.failed).toBe(0);
    expect(report.index).toBe(join(home, '.threadbase', 'index.db'));
    // the index holds them all, each under its own agent
    const index = openSqliteStore(report.index);
    try {
      const listed = await index.listSessions({});
      expect(new Set(listed.map((s) => s.id))).toEqual(new Set(written.map((w) => w.id)));
      const bigIndexed = listed.find((s) => s.id === big.id);
      expect(bigIndexed?.source).toBe('claude');
      bigUsage = bigIndexed?.usage;
    } finally {
      await index.close();
    }

    ui = await startUi(['--port', '0', '--no-open'], { PATH: process.env.PATH, ...vars });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (ui) expect(await ui.stop()).toBe(0);
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('serves the index (not the agent files), listing every indexed session', async () => {
    expect(ui.stdout()).toContain('(sqlite store');
    const { page } = browser;
    await page.goto(ui.url);
    await page.waitForSelector('tr.row');
    expect(await page.locator('tr.row').count()).toBe(written.length);
    const agents = new Set(await page.locator('tr.row .agent').allTextContents());
    expect(agents).toEqual(new Set(['claude', 'pi', 'codex']));
    // Claude Code records no cost: the one-model big session is priced as `threadbase stats` prices it, marked ≈
    const price = PRICES['claude-haiku-4-5'];
    if (!bigUsage || !price) throw new Error('no usage indexed for the big session');
    const priced = costOf(price, bigUsage);
    expect(priced).toBeGreaterThan(1);
    const bigRow = page.locator('tr.row', { hasText: big.id });
    expect(await bigRow.locator('td').last().textContent()).toBe(`≈$${priced.toFixed(2)}`);
    await screenshot(page, 'ui-01-sessions');
  });

  it('searches, opens the hit at its turn in the 10,000-entry session and pages to its end', async () => {
    const { page } = browser;
    await page.goto(`${ui.url}#/sessions`);
    await page.waitForSelector('tr.row');
    await page.keyboard.press('/');
    await page.keyboard.type(BIG_NEEDLE);
    await page.keyboard.press('Enter');
    await page.waitForSelector('ol.hits li');
    expect(await page.locator('ol.hits li').count()).toBe(1);
    const marks = (await page.locator('ol.hits li').first().locator('mark').allTextContents()).join(' ').toLowerCase();
    for (const word of BIG_NEEDLE.split('-')) expect(marks).toContain(word);
    await screenshot(page, 'ui-02-search');
    await page.locator('ol.hits a').first().click();
    await page.waitForSelector(`#e-big-${BIG_NEEDLE_INDEX}.hit`);
    expect(page.url()).toContain(big.id);
    expect(await page.locator(`#e-big-${BIG_NEEDLE_INDEX}`).textContent()).toContain(BIG_NEEDLE);
    await expect.poll(() => page.locator(`#e-big-${BIG_NEEDLE_INDEX}`).isVisible()).toBe(true);
    expect(await page.locator('.session-head').textContent()).toContain(`${bigEntries.toLocaleString('en-US')} entries`);
    expect(await page.locator('.conversation .entry').count()).toBeLessThan(600);
    await screenshot(page, 'ui-03-big-hit');
    await page.click('#jump-end');
    await page.waitForSelector(`#e-big-${BIG_ENTRIES - 1}`);
    expect(await page.locator('.conversation .entry').count()).toBeLessThan(600);
  });

  it('expands a tool call with its diff, switches to the other branch and shows its model context', async () => {
    const { page } = browser;
    await page.goto(`${ui.url}#/session/${parser.id}`);
    await page.waitForSelector('#e-p-2 details.tool');
    const edit = page.locator('#e-p-2 details.tool');
    expect(await edit.locator('.tool-name').textContent()).toBe('Edit');
    await edit.locator('summary').click();
    await page.waitForSelector('#e-p-2 details.tool pre.diff .del');
    expect(await edit.locator('pre.diff .del').first().textContent()).toContain('src.length - 1');
    expect(await edit.locator('pre.diff .add').first().textContent()).toContain('i < src.length;');
    expect(await edit.locator('.tool-section').nth(1).textContent()).toContain('has been updated');
    // Claude Code records no cost: the response is priced from its usage, marked as an estimate
    const sonnet = priceOf(PRICES, 'claude-sonnet-4-5');
    if (!sonnet) throw new Error('no price for claude-sonnet-4-5');
    const opus = priceOf(PRICES, 'claude-opus-5');
    if (!opus) throw new Error('no price for claude-opus-5');
    // its own tokens at its model's price, and its advisor request's at the advisor model's
    const advisor = { input: 900, output: 120, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
    const estimate =
      costOf(sonnet, { input: 1200, output: 340, cacheRead: 800, cacheWrite: 200, reasoning: 0 }) + costOf(opus, advisor);
    expect(await page.locator('#e-p-2 .cost.priced').textContent()).toBe(`≈$${estimate.toFixed(estimate < 0.01 ? 4 : 2)}`);
    expect(await page.locator('#e-p-2 .advisor').textContent()).toBe('+ advisor claude-opus-5 ↑900 ↓120');
    // and the header sums the session's responses, each priced: an estimate too
    expect(await page.locator('.session-head').textContent()).toMatch(/ · ≈\$\d+\.\d+/);
    // the bash call's output is a unified diff, drawn as one
    await page.locator('#e-p-4 details.tool summary').click();
    await page.waitForSelector('#e-p-4 pre.diff .hunk');
    await page.locator('#e-p-4').scrollIntoViewIfNeeded();
    await screenshot(page, 'ui-04-tools');

    expect(await page.locator('#tree-panel a.leaf').count()).toBe(2);
    await page.locator(`#tree-panel a[data-node-id="${ALT_LEAF}"]`).click();
    await page.waitForSelector(`#e-${ALT_LEAF}`);
    expect(page.url()).toContain(`leaf=${ALT_LEAF}`);
    expect(await page.locator('#e-p-8').count()).toBe(0);
    expect(await page.locator('.conversation').textContent()).toContain('state machine');
    await page.click('#view-context');
    await page.waitForFunction(() => location.hash.includes('view=context'));
    await page.waitForFunction(() => document.querySelector('.status')?.textContent?.includes('what the model sees'));
    const context = await page.locator('.conversation .entry').allTextContents();
    expect(context.join('\n')).toContain('rewrite the lexer as a state machine');
    expect(context.join('\n')).not.toContain('red block');
    expect(context.join('\n')).not.toContain('compaction summary');
    await screenshot(page, 'ui-05-branch-context');
  });

  it('continues the picked branch in pi: a real pi session file and its resume command', async () => {
    const { page } = browser;
    const { command } = await continueAltBranchInPi(page, `${ui.url}#/session/${parser.id}`, join(home, '.pi'));
    // the pi session is resumed from its own file (quoted only when its path needs it)
    expect(command).toMatch(/--session '?\/[^' ]+\.jsonl'?$/);
    await screenshot(page, 'ui-06-continue');
  });

  it('opens stats with charts over the indexed sessions', async () => {
    const { page } = browser;
    // the pi session the step before wrote is indexed by the viewer's own follow (a look every 2 s):
    // the count below is then settled, whichever side of that look this step starts on
    const indexed = async () => {
      const index = openSqliteStore(join(home, '.threadbase', 'index.db'));
      try {
        return (await index.listSessions({})).length;
      } finally {
        await index.close();
      }
    };
    await expect.poll(indexed, { timeout: 20_000, interval: 250 }).toBe(written.length + 1);
    const agents = await openStats(page, ui.url);
    expect(await page.locator('svg.bar-chart').count()).toBe(3);
    expect(new Set(agents)).toEqual(new Set(['claude', 'pi', 'codex']));
    expect(await page.locator('.card-value').nth(3).textContent()).toBe(String(written.length + 1));
    // priced Claude responses count: the claude bar's cost is not $0
    const claudeCost = await page.locator('svg.bar-chart').nth(2).locator('text.axis').allTextContents();
    expect(claudeCost.some((t) => /\$[1-9]/.test(t))).toBe(true);
    // every day from the first to the last has its slot, usage or not
    expect(await page.locator('svg.time-chart circle.cost-dot').count()).toBe(11);
    await screenshot(page, 'ui-07-stats');
    expect(browser.errors).toEqual([]);
  });
});
