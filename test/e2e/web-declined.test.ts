/**
 * The web viewer in chromium shows a tool call the user refused, or one that was cancelled (its result
 * marked `meta.refused` / `meta.cancelled`), as that: a badge "refused" / "cancelled" in the call's
 * head with what it means for a screen reader, a dashed edge, "Output (refused)", not as a failed
 * call (badge "error", red). Before, it was a plain error. On the call real Gemini CLI 0.61.0 recorded
 * when its user declined it (test/fixtures/gemini/real-0.61.0-declined, read from a temp home), and
 * on a session holding every kind (the export's test/export/declined-session) in the memory store.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { declinedWords } from '../../src/convert/declined.js';
import { Sources } from '../../src/formats/registry.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { DECLINED_ID, declinedSession } from '../export/declined-session.js';
import { type Browser, launchBrowser, openToolFolds, type Served, screenshot, serveApp, skipBrowser } from './browser.js';

/** Gemini CLI 0.61.0: `touch declined-file` declined with Esc, on the branch Gemini CLI left it on */
const GEMINI_ID = '1c59a639-6bc6-4c98-b8d6-1f1ebe836073';
const GEMINI_DECLINED_RESULTS = '9fa08016-7cf6-454e-b041-6cd0174be37a:results';

describe.skipIf(skipBrowser)('refused and cancelled calls in the web viewer', () => {
  let home: string;
  let sources: Sources;
  let agents: Served;
  let memory: Served;
  let browser: Browser;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-web-declined-'));
    await cp(resolve('test/fixtures/gemini/real-0.61.0-declined/.gemini'), join(home, '.gemini'), { recursive: true });
    sources = new Sources({ home, env: { HOME: home } });
    agents = await serveApp(createWebApp({ driver: new AgentFilesDriver(sources) }));
    const store = new MemoryStore();
    await store.writeSession(declinedSession(), { keepId: true });
    memory = await serveApp(createWebApp({ driver: store }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await agents?.close();
    await memory?.close();
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const open = async (url: string, id: string) => {
    const { page } = browser;
    await page.goto(url);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    await page.waitForSelector('#conversation details.tool');
  };

  /** Each tool fold: its class, its badge as a screen reader reads it, its edge, its output's label once opened. */
  const folds = async () => {
    const { page } = browser;
    await openToolFolds(page);
    return page.locator('#conversation details.tool').evaluateAll((ds) =>
      ds.map((d) => ({
        cls: d.className,
        badge: d.querySelector('summary .badge')?.textContent ?? null,
        edge: getComputedStyle(d).borderTopStyle,
        output: d.querySelectorAll('.tool-label')[1]?.textContent ?? null,
      })),
    );
  };

  it('the call real Gemini CLI recorded as declined: refused, not an error', async () => {
    await open(`${agents.url}/#/session/${GEMINI_ID}?entry=${encodeURIComponent(GEMINI_DECLINED_RESULTS)}`, GEMINI_ID);
    expect(await folds()).toEqual([
      {
        cls: 'tool tool-refused',
        badge: `refused: ${declinedWords('refused')}`,
        edge: 'dashed',
        output: 'Output (refused)',
      },
    ]);
    await screenshot(browser.page, 'declined-gemini');
    expect(browser.errors).toEqual([]);
  });

  it('every kind: ok, failed, refused, cancelled, and a refused result shown alone', async () => {
    const { page } = browser;
    await open(`${memory.url}/#/session/${DECLINED_ID}`, DECLINED_ID);
    expect(await folds()).toEqual([
      { cls: 'tool tool-ok', badge: 'ok', edge: 'solid', output: 'Output' },
      { cls: 'tool tool-error', badge: 'error', edge: 'solid', output: 'Output (error)' },
      { cls: 'tool tool-refused', badge: `refused: ${declinedWords('refused')}`, edge: 'dashed', output: 'Output (refused)' },
      {
        cls: 'tool tool-cancelled',
        badge: `cancelled: ${declinedWords('cancelled')}`,
        edge: 'dashed',
        output: 'Output (cancelled)',
      },
      { cls: 'tool tool-refused', badge: `refused: ${declinedWords('refused')}`, edge: 'dashed', output: null },
    ]);
    // seen: the word alone, its meaning clipped to nothing; read: both
    const said = page.locator('#conversation .badge.cancelled .sr-only');
    await expect(said.boundingBox()).resolves.toMatchObject({ width: 1, height: 1 });
    const read = await page.locator('#conversation details.tool-cancelled > summary').ariaSnapshot();
    expect(read).toMatch(/cancelled ?: /);
    expect(read).toContain(declinedWords('cancelled'));
    // its colour is not the failed call's
    const colour = (sel: string) =>
      page
        .locator(sel)
        .first()
        .evaluate((d) => getComputedStyle(d).borderTopColor);
    expect(await colour('#conversation details.tool-refused')).not.toBe(await colour('#conversation details.tool-error'));
    await screenshot(page, 'declined-kinds');
    expect(browser.errors).toEqual([]);
  });
});
