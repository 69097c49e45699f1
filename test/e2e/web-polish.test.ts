/**
 * The web viewer in chromium on sessions the real agents wrote: each message an agent wrote into the
 * conversation itself folded under the name the server gives it (none lost on the way from the
 * agent's folder to the page), a session list with nothing to list saying so (not "0–0 of 0"), and
 * a response Claude Code split over several records showing its tokens once.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { fixtureHome, PARALLEL_ID } from '../helpers/fixture-homes.js';
import { type Browser, launchBrowser, type Served, screenshot, serveApp, skipBrowser } from './browser.js';

/** codex: developer instructions and environment context before the first prompt */
const CODEX_ID = '01a21357-17c5-7c31-842a-b2bbe61459bd';
/** Claude Code 2.1: a background task's notification, a caveat (isMeta) before /compact's output */
const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** Gemini CLI 0.61.0: its session context as the first user message */
const GEMINI_ID = '1feb6904-698a-4392-9399-e06da18b836d';

describe.skipIf(skipBrowser)('web viewer polish on real agents’ sessions', () => {
  let home: string;
  let emptyHome: string;
  let sources: Sources;
  let emptySources: Sources;
  let served: Served;
  let emptyServed: Served;
  let browser: Browser;

  beforeAll(async () => {
    ({ home } = await fixtureHome({
      prefix: 'threadbase-web-polish-',
      fixtures: ['claude', 'claudeParallel', 'codex', 'gemini'],
    }));
    sources = new Sources({ home, env: { HOME: home } });
    served = await serveApp(createWebApp({ driver: new AgentFilesDriver(sources) }));
    // a machine where no agent has written a session yet
    ({ home: emptyHome } = await fixtureHome({ prefix: 'threadbase-web-polish-empty-' }));
    emptySources = new Sources({ home: emptyHome, env: { HOME: emptyHome } });
    emptyServed = await serveApp(createWebApp({ driver: new AgentFilesDriver(emptySources) }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await emptyServed?.close();
    await sources?.close();
    await emptySources?.close();
    for (const dir of [home, emptyHome]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  const open = async (id: string) => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${id}`);
    // a new hash re-renders the page in place: wait for this session's, not the last one's
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation .entry');
  };

  it.each([
    [CODEX_ID, ['developer instructions', 'environment_context, added by codex']],
    [CLAUDE_ID, ['task-notification, added by Claude Code', 'added by Claude Code']],
    [GEMINI_ID, ['session_context, added by Gemini CLI']],
  ])('folds every message %s wrote itself under the name the server sends', async (id, labels) => {
    const { page } = browser;
    // what the server sends: one `injected` field per such message
    const res = await fetch(`${served.url}/api/v1/web/sessions/${id}/path?limit=500`);
    const body = (await res.json()) as { entries: { injected?: string }[] };
    expect(body.entries.flatMap((e) => (e.injected ? [e.injected] : []))).toEqual(labels);
    // what the page shows: each folded under that name, and no other fold
    await open(id);
    const summaries = await page.locator('#conversation details.injected > summary').allTextContents();
    expect(summaries.map((s) => s.replace(/ · [\d,]+ characters$/, ''))).toEqual(labels);
    expect(browser.errors).toEqual([]);
  });

  it('says there are no sessions when no agent has any, without a "0–0 of 0" pager', async () => {
    const { page } = browser;
    await page.goto(`${emptyServed.url}/#/sessions`);
    await page.waitForSelector('.empty-list');
    await screenshot(page, 'polish-no-sessions');
    expect(await page.locator('.empty-list').textContent()).toBe('No sessions: none of the agents’ stores holds one yet.');
    // nothing under the table: no pager, nor a 'null' where it was left out
    expect(await page.locator('#view').textContent()).not.toMatch(/0–0|of 0\b|null/);
    expect(await page.locator('.pager').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it('says no session matches a filter that matches none, with a way back to all of them', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions?text=no-such-session-anywhere&sort=title`);
    await page.waitForSelector('.empty-list');
    expect(await page.locator('.empty-list').textContent()).toBe('No sessions match these filters. Show all sessions');
    // nothing under the table: no pager, nor a 'null' where it was left out
    expect(await page.locator('#view').textContent()).not.toMatch(/0–0|of 0\b|null/);
    expect(await page.locator('.pager').count()).toBe(0);
    await page.locator('.empty-list a').click();
    await page.waitForSelector('tr.row');
    // back to every session, the sort kept
    expect(await page.evaluate(() => location.hash)).toBe('#/sessions?sort=title');
    expect(await page.locator('tr.row').count()).toBeGreaterThan(3);
    expect(browser.errors).toEqual([]);
  });

  it('says a page past the end of the list is empty, with the way to its first page', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions?page=40`);
    await page.waitForSelector('.empty-list');
    const total = (await page.locator('.empty-list').textContent())?.match(/there are (\d+)\./)?.[1];
    expect(Number(total)).toBeGreaterThan(3);
    expect(await page.locator('.pager .muted').textContent()).toBe(`none of ${total}`);
    await page.locator('.empty-list a').click();
    await page.waitForSelector('tr.row');
    expect(await page.locator('.pager .muted').textContent()).toBe(`1–${total} of ${total}`);
  });

  it('shows the tokens of a response split over several records once, on its last record', async () => {
    const { page } = browser;
    await open(PARALLEL_ID);
    const assistants = page.locator('#conversation article.role-assistant');
    const heads = await assistants.locator('header').allTextContents();
    // six responses in fifteen records: after each prompt one of four (text, then three tool calls), then one of one
    expect(heads).toHaveLength(15);
    const split = [false, false, false, true, true];
    expect(heads.map((t) => /↑[\d.]+k? ↓\d+/.test(t))).toEqual([...split, ...split, ...split]);
    // the model still names every record; each response priced once
    expect(await assistants.locator('.model').count()).toBe(15);
    expect(await assistants.locator('.tokens').count()).toBe(6);
    expect(await assistants.locator('.cost').count()).toBe(6);
    await screenshot(page, 'polish-split-response');
    expect(browser.errors).toEqual([]);
  });
});
