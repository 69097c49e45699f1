/**
 * The web viewer on sessions the real agents wrote (the fixtures under test/fixtures, copied where
 * each agent keeps them in a temp HOME and read straight from the agents' files), as a user meets
 * them in chromium: what shows in the conversation and the tree, and what does not.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { createWebApp } from '../../src/server/web/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { PARALLEL_ID, PI_TOOL_CALL_ID as PI_ID } from '../helpers/fixture-homes.js';
import { screenshot, skipBrowser, viewerOverFixtures } from './browser.js';

/** Claude Code 2.1: a Bash call, a sub-agent, a compaction; attachments and api-request records around every turn */
const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** codex: a tool search, an image generated, two turns with their event_msg records */
const CODEX_ID = '01a21357-17c5-7c31-842a-b2bbe61459bd';
/** codex: a turn rolled back, codex's model recorded with every turn */
const ROLLBACK_ID = '01a21354-a797-71c1-b74e-7a50f662eec7';
/** codex: a sub-agent's session (CHILDTASK) and the session that spawned it, ids made in the same minute */
const CODEX_CHILD_ID = '01a21356-267a-73e0-9768-3144907e69c8';
const CODEX_PARENT_ID = '01a21356-25ea-7ff3-8743-7ca9d35fbc3f';
/** Zed: usage recorded per request, on one message of each; the others' usage all zero */
const ZED_ID = '4b0c9d7e-zed-thread-current';
/** Claude Code: answers followed by blank text blocks */
const BLANK_ID = 'b1a40000-0000-4000-8000-b1a400000000';
/** OpenCode: a bash call (finish tool-calls), a compaction */
const OPENCODE_ID = 'ses_dfb46f783ffeZ1j67MnacZPrQP';

describe.skipIf(skipBrowser)('web viewer on real agents’ sessions', () => {
  const viewer = viewerOverFixtures({
    prefix: 'threadbase-web-audit-',
    fixtures: ['claude', 'claudeParallel', 'codex', 'pi', 'opencode', 'zed'],
  });

  const open = async (id: string) => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/session/${id}`);
    // a new hash re-renders the page in place: wait for this session's, not the last one's
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation .entry');
    await page.waitForSelector(`#tree-panel a.node[href*="${id}"]`);
  };

  it('leaves the agents’ bookkeeping records out of the conversation and the tree, as show does', async () => {
    const { page } = viewer.browser;
    for (const [id, name, bookkeeping] of [
      [CLAUDE_ID, 'audit-claude', /^(attachment|api-request|queue-operation|last-prompt|cost-state|atis-latch|mode)/],
      [PARALLEL_ID, 'audit-claude-parallel', /^(attachment|api-request|queue-operation|last-prompt|cost-state|atis-latch)/],
      [CODEX_ID, 'audit-codex', /^(event_msg|token_usage_record|world_state|turn_context)/],
    ] as const) {
      await open(id);
      await screenshot(page, name);
      // no "· attachment" / "· event_msg:task_complete" rows between the messages
      const rows = (await page.locator('#conversation .entry.slim').allTextContents()).map((t) => t.replace(/^· /, ''));
      expect(
        rows.filter((t) => bookkeeping.test(t)),
        id,
      ).toEqual([]);
      const labels = await page.locator('#tree-panel .node-label').allTextContents();
      expect(
        labels.filter((t) => bookkeeping.test(t)),
        id,
      ).toEqual([]);
      // one branch, its leaf the current one (a bookkeeping record below it made it no leaf: "Branches (0)")
      expect(await page.locator('#tree-panel h2').textContent(), id).toBe('Branches (1)');
      const current = page.locator('#tree-panel a.node.leaf.selected');
      expect(await current.count(), id).toBe(1);
      expect(await current.locator('.badge').first().textContent(), id).toBe('current');
      // the path shown ends at the conversation's last message
      const status = (await page.locator('.status').textContent()) ?? '';
      expect(status, id).toContain('(current leaf)');
    }
    expect(viewer.browser.errors).toEqual([]);
  });

  it('marks only a turn that stopped unusually, not one that stopped to call a tool in its agent’s words', async () => {
    const { page } = viewer.browser;
    for (const id of [PI_ID, OPENCODE_ID]) {
      await open(id);
      // pi's toolUse and OpenCode's tool-calls are how those agents say tool_use
      expect(await page.locator('#conversation article.role-assistant details.tool').count(), id).toBeGreaterThan(0);
      expect(await page.locator('#conversation .stop').allTextContents(), id).toEqual([]);
    }
    expect(viewer.browser.errors).toEqual([]);
  });

  it('words a thinking level change on its own as that, not as a change to an unknown model', async () => {
    const { page } = viewer.browser;
    await open(PI_ID);
    const rows = await page.locator('#conversation .entry.slim').allTextContents();
    expect(rows).toContain('⚙ model → claude-standin');
    expect(rows).toContain('⚙ thinking off');
    expect(rows.filter((t) => t.includes('?'))).toEqual([]);
  });

  it('fits the stats charts’ labels in their column, a model cut at its end and a project at its start', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/stats`);
    await page.waitForSelector('svg.bar-chart text.label');
    await screenshot(page, 'audit-stats');
    // each label starts inside its chart (a long one ran off its left edge, cut off)
    const lefts = await page.$$eval('svg.bar-chart text.label', (els) =>
      els.map((t) => [t.textContent, (t as SVGTextElement).getBBox().x] as const),
    );
    expect(lefts.length).toBeGreaterThan(0);
    for (const [text, x] of lefts) expect(x, text ?? '').toBeGreaterThanOrEqual(0);
    const models = await page.locator('svg.bar-chart').nth(0).locator('text.label').allTextContents();
    expect(models).toContain('claude-opus-5-5');
    const projects = await page.locator('svg.bar-chart').nth(1).locator('text.label').allTextContents();
    expect(projects).toContain('…-codex/exp6/project');
    expect(viewer.browser.errors).toEqual([]);
  });

  it('fits a phone’s screen: no sideways scrolling, the dark mode and help buttons on it', async () => {
    const page = await viewer.browser.context.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const hash of ['#/', `#/session/${CLAUDE_ID}`, '#/stats']) {
        await page.goto(`${viewer.served.url}/${hash}`);
        await page.waitForSelector('#view > :not(.muted)');
        const { scroll, client } = await page.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          client: document.documentElement.clientWidth,
        }));
        expect(scroll, hash).toBeLessThanOrEqual(client);
        for (const id of ['#theme-toggle', '#help-toggle', '#quick-search-input']) {
          const box = await page.locator(id).boundingBox();
          expect(box && box.x >= 0 && box.x + box.width <= 390, `${hash} ${id}`).toBe(true);
        }
      }
      await screenshot(page, 'audit-phone-session');
    } finally {
      await page.close();
    }
  });

  it('opens the branch tree in a narrow window, where it is off until asked for', async () => {
    const page = await viewer.browser.context.newPage();
    try {
      for (const width of [800, 390]) {
        await page.setViewportSize({ width, height: 700 });
        await page.goto(`${viewer.served.url}/#/session/${CLAUDE_ID}`);
        await page.waitForSelector('#conversation .entry');
        await page.waitForSelector('#tree-panel a.node', { state: 'attached' });
        expect(await page.locator('#tree-panel').isVisible(), `${width}`).toBe(false);
        await page.click('#toggle-tree');
        // (a loaded machine paints it a little later)
        await page.locator('#tree-panel').waitFor({ state: 'visible', timeout: 10_000 });
        expect(await page.locator('#tree-panel').isVisible(), `${width}`).toBe(true);
        const box = await page.locator('#tree-panel').boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= width, `${width}`).toBe(true);
        await screenshot(page, `audit-narrow-tree-${width}`);
        // a leaf in it opens, and t hides it again
        await page.locator('#tree-panel a.node.leaf').first().click();
        await page.waitForSelector('#conversation .entry');
        await page.locator('#conversation').focus();
        await page.keyboard.press('t');
        expect(await page.locator('#tree-panel').isVisible(), `${width}`).toBe(true);
        await page.keyboard.press('t');
        expect(await page.locator('#tree-panel').isVisible(), `${width}`).toBe(false);
      }
    } finally {
      await page.close();
    }
  });

  it('folds what an agent wrote into the conversation itself: instructions, environment context, a note on a local command', async () => {
    const { page } = viewer.browser;
    await open(CODEX_ID);
    // codex's developer instructions and environment context: folded, named, their text not on screen
    const codexFolds = page.locator('#conversation details.injected');
    expect(await codexFolds.locator('summary').allTextContents()).toEqual([
      expect.stringMatching(/^developer instructions · [\d,]+ characters$/),
      expect.stringMatching(/^environment_context, added by codex · [\d,]+ characters$/),
    ]);
    const conversation = page.locator('#conversation');
    expect(await conversation.getByText('<skills_instructions>', { exact: false }).isVisible()).toBe(false);
    expect(await conversation.getByText('draw a dot', { exact: true }).isVisible()).toBe(true);
    await codexFolds.first().locator('summary').click();
    await expect.poll(() => conversation.getByText('<skills_instructions>', { exact: false }).isVisible()).toBe(true);
    await screenshot(page, 'audit-codex-folded');
    // Claude Code's notification of a finished background task, its caveat before a local command's output (isMeta)
    await open(CLAUDE_ID);
    expect(await page.locator('#conversation details.injected summary').allTextContents()).toEqual([
      expect.stringMatching(/^task-notification, added by Claude Code · /),
      expect.stringMatching(/^added by Claude Code · /),
    ]);
    expect(await page.locator('#conversation').getByText('after compact', { exact: true }).isVisible()).toBe(true);
    expect(viewer.browser.errors).toEqual([]);
  });

  it('shows a model change once, not again at every turn that names the same model', async () => {
    const { page } = viewer.browser;
    // codex records its model with each turn: standin-model three times in this rolled-back session
    await open(ROLLBACK_ID);
    const rows = await page.locator('#conversation .entry.slim').allTextContents();
    expect(rows.filter((t) => t.startsWith('⚙'))).toEqual(['⚙ model → standin-model']);
    // pi's model, then its thinking level: both changes
    await open(PI_ID);
    expect((await page.locator('#conversation .entry.slim').allTextContents()).filter((t) => t.startsWith('⚙'))).toEqual([
      '⚙ model → claude-standin',
      '⚙ thinking off',
    ]);
  });

  it('names the session a session came from by as much of its id as tells it apart', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/sessions?text=${CODEX_CHILD_ID}`);
    await page.waitForFunction(() => document.querySelectorAll('tr.row').length === 1);
    // 'from 01a21356' read like the session's own id: both start 01a21356
    expect(await page.locator('tr.row .mono').textContent()).toBe(`${CODEX_CHILD_ID} · from 01a21356-25ea-…`);
    await open(CODEX_CHILD_ID);
    const link = page.locator(`.session-head a[title="${CODEX_PARENT_ID}"]`);
    expect(await link.textContent()).toBe('01a21356-25ea-…');
    await link.click();
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, CODEX_PARENT_ID);
  });

  it('shows no tokens and no cost on a message with no usage recorded, rather than ↑0 ↓0 ≈$0', async () => {
    const { page } = viewer.browser;
    await open(ZED_ID);
    const heads = await page.locator('#conversation article.role-assistant header').allTextContents();
    expect(heads.length).toBeGreaterThan(2);
    expect(heads.filter((t) => t.includes('↑0 ↓0') || t.includes('≈$0 ') || /≈\$0(?![.\d])/.test(t))).toEqual([]);
    // the messages that carry their request's usage still show it, priced
    expect(heads.filter((t) => /↑[\d.]+k? ↓\d+.*≈\$0\.\d+/.test(t))).toHaveLength(2);
  });

  it('names a tree node the agent wrote itself as the conversation names it, not by its first characters', async () => {
    const { page } = viewer.browser;
    await open(ROLLBACK_ID);
    const labels = await page.locator('#tree-panel .node-label').allTextContents();
    expect(labels[0]).toBe('(developer instructions)');
    expect(labels.filter((t) => t.includes('<skills_instructions>'))).toEqual([]);
  });

  it('shows a slash command the user ran in Claude Code as its command line and output, not as tagged text', async () => {
    const { page } = viewer.browser;
    await open(CLAUDE_ID);
    const conversation = page.locator('#conversation');
    expect(await conversation.locator('.local-command').allTextContents()).toEqual([
      '/compact',
      'Compacted (ctrl+o to see full summary)',
    ]);
    expect(await conversation.textContent()).not.toMatch(/<(command-name|command-args|local-command-stdout)>/);
    await screenshot(page, 'audit-claude-command');
  });

  it('labels the token axis of the stats chart with the values its lines stand at', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/stats`);
    await page.waitForSelector('svg.time-chart text.axis');
    const ticks = await page.$$eval('svg.time-chart text.axis[text-anchor="end"]', (els) => els.map((t) => t.textContent ?? ''));
    const value = (t: string) => Number.parseFloat(t) * ({ k: 1e3, M: 1e6, B: 1e9 }[t.slice(-1)] ?? 1);
    const values = ticks.map(value);
    expect(values).toHaveLength(5);
    // evenly spaced gridlines: 12.5k read '13k' and 37.5k '38k'
    for (let i = 1; i < values.length; i++) expect(values[i], ticks.join(' ')).toBe(values[1] * i);
  });

  it('gives search snippets from the index without the whitespace around the hit (a blank line under it)', async () => {
    // Claude Code's answer 'hello' followed by blank text blocks, on the SQLite index
    const home2 = await mkdtemp(join(tmpdir(), 'threadbase-web-audit-blank-'));
    const store = openSqliteStore(':memory:');
    try {
      const dir = join(home2, '.claude', 'projects', '-tmp-cc-blank');
      await mkdir(dir, { recursive: true });
      await cp(resolve('test/fixtures/claude/blank-text/transcript.jsonl'), join(dir, `${BLANK_ID}.jsonl`));
      const claude = new Sources({ home: home2, env: { HOME: home2 } });
      const session = await claude.driver('claude').getSession(BLANK_ID);
      await claude.close();
      if (!session || !store.writeSession) throw new Error('no session to index');
      await store.writeSession(session, { keepId: true });
      const app = createWebApp({ driver: store });
      const { hits } = (await (await app.request('/api/v1/web/search?q=hello')).json()) as {
        hits: { snippet: string }[];
      };
      expect(hits.length).toBeGreaterThan(0);
      for (const h of hits) expect(h.snippet).toBe(h.snippet.trim());
    } finally {
      await store.close?.();
      await rm(home2, { recursive: true, force: true });
    }
  });

  it('says a session it could not read has nothing to show, rather than an empty page', async () => {
    const { page } = viewer.browser;
    // Zed's row whose zstd data is damaged
    await page.goto(`${viewer.served.url}/#/session/broken-row`);
    await page.waitForSelector('.session-head');
    await page.waitForSelector('#conversation .empty-session');
    expect(await page.locator('#conversation').textContent()).toBe(
      'Nothing to show: this session has no entries that could be read (see the warnings above).',
    );
    expect(await page.locator('details.warnings summary').textContent()).toMatch(/^1 warning/);
  });

  it('opens a search hit in what the agent wrote itself unfolded, the words found in view', async () => {
    const { page } = viewer.browser;
    await page.goto(`${viewer.served.url}/#/search?q=workspace_roots`);
    await page.waitForSelector('ol.hits li');
    await page.locator('ol.hits a').first().click();
    await page.waitForSelector('#conversation .entry.hit');
    const hit = page.locator('#conversation .entry.hit');
    expect(await hit.locator('details.injected').getAttribute('open')).toBe('');
    expect(await hit.getByText('workspace_roots', { exact: false }).isVisible()).toBe(true);
  });

  it('says an image whose data cannot be shown what it was, as the exports do, instead of a broken-image icon', async () => {
    const { page } = viewer.browser;
    // the Zed fixture's image is a PNG signature alone; codex's generated image is a real 1×1 PNG
    await open(ZED_ID);
    await page.waitForSelector('#conversation .image-broken');
    expect(await page.locator('#conversation .image-broken').first().textContent()).toBe(
      '[image: image/png, 8 bytes, cut short, could not be read]',
    );
    expect(await page.locator('#conversation img.inline-image').count()).toBe(0);
    await open(CODEX_ID);
    await expect
      .poll(() => page.locator('#conversation img.inline-image').evaluate((i) => (i as HTMLImageElement).naturalWidth))
      .toBe(1);
    expect(await page.locator('#conversation .image-broken').count()).toBe(0);
  });
});
