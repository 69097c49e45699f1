/**
 * The web viewer end to end in a real browser: list and filters, search and a hit opened at its
 * turn in a 10,000-entry session, tool calls expanded with diffs, thinking folded, an image inline,
 * switching branches in the tree, "Continue in…" writing a real pi session, stats charts, keyboard
 * navigation and dark mode. Screenshots land in test-results/screenshots/.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, screenshot, serveApp, skipBrowser } from './browser.js';
import { ALT_LEAF, BIG_ENTRIES, BIG_ID, BIG_NEEDLE, PARSER_ID, PI_ID, seedMemoryStore } from './fixtures.js';
import { continueAltBranchInPi, openStats } from './journeys.js';

describe.skipIf(skipBrowser)('web viewer in chromium', () => {
  let served: Served;
  let browser: Browser;
  let home: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-web-home-'));
    const { driver } = await seedMemoryStore();
    // "Continue in…" writes into the agents' own stores under this temp HOME.
    const targets = new Sources({ home, env: {} });
    served = await serveApp(createWebApp({ driver, targets }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lists sessions, filters by agent and sorts', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/`);
    await page.waitForSelector('table.sessions tr.row');
    expect(await page.locator('tr.row').count()).toBe(11);
    // newest first by default: the big session was updated last
    expect(await page.locator('tr.row').first().locator('.title-cell a').textContent()).toBe('A very long session');
    await screenshot(page, '01-sessions');

    await page.selectOption('select[name=source]', 'pi');
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 3);
    const agents = await page.locator('tr.row .agent').allTextContents();
    expect(new Set(agents)).toEqual(new Set(['pi']));

    await page.selectOption('select[name=source]', '');
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 11);
    // gpt-5: the pi session and two small ones
    await page.selectOption('select[name=model]', 'gpt-5');
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 3);
    await page.selectOption('select[name=model]', '');
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 11);

    await page.selectOption('select[name=sort]', 'messages');
    await page.waitForFunction(() => location.hash.includes('sort=messages'));
    await page.waitForFunction(() => document.querySelector('tr.row .title-cell a')?.textContent === 'A very long session');
    await page.selectOption('select[name=sort]', 'title');
    await page.waitForFunction(() => location.hash.includes('sort=title'));
    // The first row is the same in both orders: wait for the whole list to be redrawn in title order.
    const byTitle = (ts: string[]) => [...ts].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    await expect
      .poll(async () => {
        const ts = await page.locator('tr.row .title-cell a').allTextContents();
        return ts.length === 11 && JSON.stringify(ts) === JSON.stringify(byTitle(ts));
      })
      .toBe(true);

    // date filter: only the sessions updated on 2026-11-18 or later and up to 2026-11-18
    await page.goto(`${served.url}/#/sessions?since=2026-11-17&until=2026-11-18`);
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length > 0 && location.hash.includes('since'));
    // the hash changes before the list is drawn again: wait for the filtered list (the whole one had 11 rows)
    await expect
      .poll(async () => (await page.locator('tr.row .title-cell a').allTextContents()).sort(), { timeout: 10_000 })
      .toEqual(['Docs task 7', 'Refactor the build scripts'].sort());
  });

  it('searches, highlights the hit and opens it at its turn in a 10,000-entry session', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions`);
    await page.waitForSelector('tr.row');
    await page.keyboard.press('/');
    await page.keyboard.type(BIG_NEEDLE);
    await page.keyboard.press('Enter');
    await page.waitForSelector('ol.hits li');
    expect(await page.locator('ol.hits li').count()).toBe(1);
    // each word of the hyphenated needle is marked, as the stores tokenise it
    expect(await page.locator('ol.hits li').first().locator('mark').allTextContents()).toEqual(BIG_NEEDLE.split('-'));
    expect(await page.locator('ol.hits .hit-title').first().textContent()).toBe('A very long session');
    await screenshot(page, '02-search');

    const t0 = Date.now();
    await page.locator('ol.hits a').first().click();
    await page.waitForSelector('#e-big-7500.hit');
    const openMs = Date.now() - t0;
    expect(openMs).toBeLessThan(10_000);
    await expect.poll(() => page.locator('#e-big-7500').isVisible()).toBe(true);
    expect(await page.locator('#e-big-7500').textContent()).toContain(BIG_NEEDLE);
    // virtualised: only a few pages of the 10,000 entries are in the document
    const inDom = await page.locator('.conversation .entry').count();
    expect(inDom).toBeGreaterThan(10);
    expect(inDom).toBeLessThan(600);
    await screenshot(page, '03-big-session-hit');

    // scrolling down loads further pages on demand
    const lastBefore = await page.locator('.conversation section.page').last().getAttribute('data-page');
    for (let i = 0; i < 8; i++) await page.locator('.conversation').evaluate((el) => el.scrollBy(0, 4000));
    await expect
      .poll(async () => Number(await page.locator('.conversation section.page').last().getAttribute('data-page')))
      .toBeGreaterThan(Number(lastBefore));
    // End jumps to the last entry
    await page.click('#jump-end');
    await page.waitForSelector(`#e-big-${BIG_ENTRIES - 1}`);
    expect(await page.locator('.conversation .entry').count()).toBeLessThan(600);
  });

  it('marks a call the provider ran itself (a web search) as such, not as a call without its result', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${PI_ID}`);
    await page.waitForSelector('#e-b-a5 details.tool');
    expect(await page.locator('#e-b-a5 details.tool .badge').textContent()).toBe('run by the provider');
  });

  it('shows a session: thinking folded, tool calls expandable with diffs, image inline, model and tokens', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#e-p-2');
    // thinking is folded
    const thinking = page.locator('#e-p-2 details.thinking');
    expect(await thinking.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
    // per-message model, tokens and cost
    const header = await page.locator('#e-p-2 header').textContent();
    expect(header).toContain('claude-sonnet-4-5');
    expect(header).toContain('↓340');
    expect(header).toContain('$0.01');
    // the edit call: collapsed, then expanded as a diff with its result
    const edit = page.locator('#e-p-2 details.tool');
    expect(await edit.locator('.tool-name').textContent()).toBe('Edit');
    expect(await edit.locator('.badge').textContent()).toBe('ok');
    await edit.locator('summary').click();
    await page.waitForSelector('#e-p-2 details.tool pre.diff .del');
    expect(await edit.locator('pre.diff .del').first().textContent()).toContain('src.length - 1');
    expect(await edit.locator('pre.diff .add').first().textContent()).toContain('i < src.length;');
    expect(await edit.locator('.tool-section').nth(1).textContent()).toContain('has been updated');
    // the result message answering it is not shown a second time
    expect(await page.locator('#e-p-3').textContent()).toContain('shown with the call');
    // the bash call's output is a unified diff, shown as one
    const bash = page.locator('#e-p-4 details.tool');
    await bash.locator('summary').click();
    await page.waitForSelector('#e-p-4 pre.diff .hunk');
    expect(await bash.locator('pre.command').textContent()).toBe('$ git diff');
    expect(await bash.locator('pre.diff .add').count()).toBe(1);
    // compaction marker and the image after it
    expect(await page.locator('#e-p-c .marker').textContent()).toContain('Compaction');
    const img = page.locator('#e-p-7 img.inline-image');
    await img.scrollIntoViewIfNeeded();
    await expect.poll(() => img.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(120);
    await page.locator('#e-p-4').scrollIntoViewIfNeeded();
    await screenshot(page, '04-session-tools');
    expect(browser.errors).toEqual([]);
  });

  it('switches to another branch from the tree and back', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#tree-panel a.node');
    expect(await page.locator('#tree-panel a.leaf').count()).toBe(2);
    expect(await page.locator('#tree-panel a.kind-compaction').count()).toBe(1);
    expect(await page.locator('#e-p-8').count()).toBe(1);
    await page.locator(`#tree-panel a[data-node-id="${ALT_LEAF}"]`).click();
    await page.waitForSelector(`#e-${ALT_LEAF}`);
    expect(page.url()).toContain(`leaf=${ALT_LEAF}`);
    expect(await page.locator('.conversation').textContent()).toContain('rewrite the lexer as a state machine');
    expect(await page.locator('#e-p-8').count()).toBe(0);
    expect(await page.locator('#e-p-c').count()).toBe(0);
    expect(await page.locator(`#tree-panel a.selected`).getAttribute('data-node-id')).toBe(ALT_LEAF);
    expect(await page.locator(`#e-${ALT_LEAF} header`).textContent()).toContain('claude-opus-4-1');
    await screenshot(page, '05-branch');
    await page.locator('#tree-panel a[data-node-id="p-8"]').click();
    await page.waitForSelector('#e-p-8');
    expect(await page.locator(`#e-${ALT_LEAF}`).count()).toBe(0);
  });

  it('shows the context a model sees at a leaf: compaction applied, other branches left out', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#view-context');
    await page.click('#view-context');
    await page.waitForFunction(() => location.hash.includes('view=context'));
    // the context replaces the conversation once it has loaded
    await page.waitForFunction(() => document.querySelector('.conversation .entry')?.textContent?.includes('compaction summary'));
    const texts = await page.locator('.conversation .entry').allTextContents();
    // summary first (as a user message), then the kept entry and what follows; nothing before it
    expect(texts[0]).toContain('compaction summary');
    expect(texts[0]).toContain('off-by-one loop bound');
    expect(texts.join('\n')).toContain('Fixed: the loop now visits every character');
    expect(texts.join('\n')).toContain('red block');
    expect(texts.join('\n')).not.toContain('The tokenizer drops the last token');
    expect(await page.locator('.status').textContent()).toContain('what the model sees');
    await screenshot(page, '05b-model-context');
    // a leaf picked in the tree keeps the context view
    await page.locator(`#tree-panel a[data-node-id="${ALT_LEAF}"]`).click();
    await page.waitForFunction(
      (leaf) => location.hash.includes(`leaf=${leaf}`) && location.hash.includes('view=context'),
      ALT_LEAF,
    );
    await page.waitForFunction(() => document.querySelector('.conversation')?.textContent?.includes('state machine'));
    const alt = (await page.locator('.conversation').textContent()) ?? '';
    expect(alt).toContain('The tokenizer drops the last token');
    expect(alt).not.toContain('compaction summary');
    expect(await page.locator('.conversation .entry').count()).toBe(4);
  });

  it('continues a session in pi: writes a real pi session and shows the resume command', async () => {
    const { page } = browser;
    // the branch picked in the viewer is what was converted
    const { out } = await continueAltBranchInPi(page, `${served.url}/#/session/${PARSER_ID}`, home);
    expect(out).toMatch(/ at \S+\.jsonl/);
    await screenshot(page, '06-continue-in');
  });

  it('shows stats with charts by day, model, project and agent', async () => {
    const { page } = browser;
    const agents = await openStats(page, `${served.url}/`);
    expect(new Set(agents)).toEqual(new Set(['claude', 'pi', 'opencode', 'codex']));
    expect(await page.locator('.chart-box').count()).toBe(4);
    const models = await page.locator('svg.bar-chart').nth(0).locator('text.label').allTextContents();
    expect(models).toContain('claude-sonnet-4-5');
    expect(models).toContain('gpt-5');
    expect(await page.locator('.card-value').first().textContent()).toMatch(/^\$\d+\.\d\d$/);
    await screenshot(page, '07-stats');
    await page.selectOption('select[name=source]', 'pi');
    await page.waitForFunction(() => location.hash.includes('source=pi'));
    // the view is redrawn for the filter: its agent chart then holds pi alone
    await page.waitForFunction(() => document.querySelectorAll('svg.bar-chart')[2]?.querySelectorAll('text.label').length === 1);
    const piAgents = await page.locator('svg.bar-chart').nth(2).locator('text.label').allTextContents();
    expect(piAgents).toEqual(['pi']);
  });

  it('navigates by keyboard and switches to dark mode', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions`);
    await page.waitForSelector('tr.row');
    await page.locator('body').press('j');
    await page.keyboard.press('j');
    expect(await page.locator('tr.row.kb-selected').count()).toBe(1);
    const title = await page.locator('tr.row.kb-selected .title-cell a').textContent();
    await page.keyboard.press('Enter');
    await page.waitForSelector('.session-head h1');
    expect(await page.locator('.session-head h1').textContent()).toBe(title);
    // in a session j/k move over the messages and Enter opens the selected message's tool calls
    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#e-p-2');
    await page.locator('body').press('j');
    await page.keyboard.press('j');
    expect(await page.locator('.entry.kb-selected').getAttribute('id')).toBe('e-p-2');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#e-p-2 details.tool[open] pre.diff');
    await page.keyboard.press('k');
    expect(await page.locator('.entry.kb-selected').getAttribute('id')).toBe('e-p-1');
    await page.keyboard.press('t');
    expect(await page.locator('#tree-panel').isHidden()).toBe(true);
    await page.keyboard.press('Escape');
    await page.waitForSelector('tr.row');
    const bgLight = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.keyboard.press('d');
    const bgDark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(bgDark).not.toBe(bgLight);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await screenshot(page, '08-dark-sessions');
    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#e-p-2');
    await page.locator('#e-p-2 details.tool summary').click();
    await page.waitForSelector('#e-p-2 pre.diff');
    await screenshot(page, '09-dark-session');
    await page.goto(`${served.url}/#/stats`);
    await page.waitForSelector('svg.time-chart rect.bar');
    await screenshot(page, '10-dark-stats');
    await page.keyboard.press('d');
    expect(browser.errors).toEqual([]);
  });

  it('shows markup in titles, text, tool input and output as text, never as HTML', async () => {
    const evil = '<img src=x onerror="window.__pwned=1">';
    const store = new MemoryStore();
    await store.writeSession(
      {
        id: 'sess-evil',
        source: 'claude',
        title: `title ${evil}`,
        project: `/tmp/${evil}`,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:01:00.000Z',
        messageCount: 0,
        entries: [
          {
            id: 'x1',
            parentId: null,
            timestamp: '2026-11-21T10:00:00.000Z',
            kind: 'message',
            message: { role: 'user', parts: [{ type: 'text', text: `hello ${evil} <script>window.__pwned=2</script>` }] },
          },
          {
            id: 'x2',
            parentId: 'x1',
            timestamp: '2026-11-21T10:01:00.000Z',
            kind: 'message',
            message: {
              role: 'assistant',
              parts: [{ type: 'tool_call', id: 'c1', name: `<b>tool</b>`, input: { command: evil } }],
            },
          },
          {
            id: 'x3',
            parentId: 'x2',
            timestamp: '2026-11-21T10:01:00.000Z',
            kind: 'message',
            message: { role: 'tool', parts: [{ type: 'tool_result', callId: 'c1', content: evil }] },
          },
        ],
      },
      { keepId: true },
    );
    const evilServer = await serveApp(createWebApp({ driver: store, title: `tb ${evil}` }));
    try {
      const { page } = browser;
      await page.goto(`${evilServer.url}/#/sessions`);
      await page.waitForSelector('tr.row');
      expect(await page.locator('tr.row .title-cell a').textContent()).toBe(`title ${evil}`);
      expect(await page.locator('.brand').textContent()).toBe(`tb ${evil}`);
      await page.goto(`${evilServer.url}/#/session/sess-evil`);
      await page.waitForSelector('#e-x2 details.tool');
      await page.locator('#e-x2 details.tool summary').click();
      await page.waitForSelector('#e-x2 .tool-section pre.output');
      expect(await page.locator('#e-x1 .prose').textContent()).toContain('<script>');
      expect(await page.locator('#e-x2 .tool-name').textContent()).toBe('<b>tool</b>');
      await page.goto(`${evilServer.url}/#/search?q=onerror`);
      await page.waitForSelector('ol.hits li');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('img[src=x]').count()).toBe(0);
    } finally {
      await evilServer.close();
    }
  });

  it('asks for the key when the server wants one', async () => {
    const { driver } = await seedMemoryStore();
    const locked = await serveApp(createWebApp({ driver, apiKey: 'sekret-key' }));
    try {
      const denied = await fetch(`${locked.url}/api/v1/web/sessions`);
      expect(denied.status).toBe(401);
      const { page } = browser;
      await page.goto(`${locked.url}/#/sessions`);
      const first = await page.waitForSelector('#api-key');
      // no key sent yet: nothing was refused
      expect(await page.locator('#key-refused').count()).toBe(0);
      await page.fill('#api-key', 'wrong');
      await page.keyboard.press('Enter');
      // the refused key brings a new form: typing into the old one before it is replaced loses the key
      await page.waitForFunction((el) => !el?.isConnected, first);
      await page.waitForSelector('#api-key');
      // which says the key was refused (the same form with nothing said looked like nothing happened)
      expect(await page.locator('#key-refused').textContent()).toMatch(/^The server refused the key this browser sent/);
      await page.fill('#api-key', 'sekret-key');
      await page.keyboard.press('Enter');
      await page.waitForSelector('tr.row');
      expect(await page.locator('tr.row').count()).toBe(11);
    } finally {
      await locked.close();
    }
    void PI_ID;
    void BIG_ID;
  });
});
