/**
 * A response of empty text alone (real Claude Code 2.1.332 recorded two, test/fixtures/claude/resume,
 * after which it asked the model "[Your previous response had no visible output…]") is said to be
 * one in the exported HTML page, the Markdown and the viewer, not shown as an empty box under a
 * heading whose usage says tokens were spent. In chromium, exported through the CLI from a temp home,
 * and in the viewer over the same agent files.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { homeEnv } from '../helpers/fixture-homes.js';

const SESSION = '97b77f9e-83ad-43e3-bff0-f682bdf6afd4';
const EMPTY_IDS = ['21ce61f3-38cd-4cca-a4f4-fa4e5bfc5336', 'bfc08877-867b-4838-8834-978fa3cda17f'];
const SAID = '(no text: the model answered with nothing)';

describe('a response of empty text', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-empty-response-'));
    await cp(resolve('test/fixtures/claude/resume'), join(home, '.claude'), { recursive: true });
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('Markdown: said under its heading', async () => {
    const md = await runCliOk(homeEnv(home), ['export', SESSION, '--format', 'md', '--no-index']);
    expect(md.match(/^## assistant \(claude-opus-5-5\)\n\n_\(no text: the model answered with nothing\)_\n/gm)).toHaveLength(2);
  });

  describe.skipIf(skipBrowser)('in chromium', () => {
    let browser: Browser;
    let sources: Sources;
    let served: Served;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: describe.skipIf opens a scope of its own
    beforeAll(async () => {
      browser = await launchBrowser();
      sources = new Sources({ home, env: homeEnv(home).env });
      served = await serveApp(createWebApp({ driver: new AgentFilesDriver(sources) }));
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: describe.skipIf opens a scope of its own
    afterAll(async () => {
      await browser?.close();
      await served?.close();
      await sources?.close();
    });

    it('the HTML page: said in the turn, no empty turn', async () => {
      const { page } = browser;
      await page.setContent(await runCliOk(homeEnv(home), ['export', SESSION, '--format', 'html', '--no-index']));
      await expect(page.locator('section.turn.assistant .empty-text').allTextContents()).resolves.toEqual([SAID, SAID]);
      const blank = await page.$$eval(
        'section.turn',
        (turns) =>
          turns.filter((t) => {
            const body = t.cloneNode(true) as HTMLElement;
            body.querySelector('header')?.remove();
            return !body.textContent?.trim() && !body.querySelector('img');
          }).length,
      );
      expect(blank).toBe(0);
      expect(browser.errors).toEqual([]);
    });

    it('the viewer: said in the entry', async () => {
      const { page } = browser;
      await page.goto(`${served.url}/#/session/${SESSION}`);
      await page.waitForSelector('#conversation .entry');
      for (const id of EMPTY_IDS)
        await expect(page.locator(`#e-${id} .empty-text`).textContent({ timeout: 5000 })).resolves.toBe(SAID);
      expect(browser.errors).toEqual([]);
    });
  });
});
