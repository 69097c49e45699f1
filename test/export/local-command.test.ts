/**
 * A slash command the user ran in Claude Code (`/compact`) and what it printed, which Claude Code
 * records as user text in its own tags (`<command-name>/compact</command-name><command-message>…`,
 * `<local-command-stdout>…`), are shown in the export as the viewer shows them: the command line and
 * its output as code, not the tagged text. Before, the HTML page and the Markdown showed the tags.
 * The viewer and the export read them with one function (src/formats/claude/local-command.ts), which the
 * viewer loads as its asset `local-command.js`. On the session real Claude Code wrote, exported
 * through the CLI from a temp home, and the page read in chromium.
 */
import { readFile, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCommand } from '../../src/formats/claude/local-command.js';
import { createWebApp, LOCAL_COMMAND_ASSET } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, skipBrowser } from '../e2e/browser.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';

/** Claude Code 2.1: ran /compact */
const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const TAGS = /<(command-name|command-message|command-args|local-command-stdout)>|&lt;(command-name|local-command-stdout)/;

describe('a Claude Code slash command in the export', () => {
  let fx: FixtureHome;
  let browser: Browser | undefined;
  beforeAll(async () => {
    fx = await fixtureHome({ prefix: 'threadbase-export-local-command-', fixtures: ['claude'] });
    if (!skipBrowser) browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  it('localCommand reads the command line and its output, and nothing else', () => {
    expect(
      localCommand(
        '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>opus</command-args>',
      ),
    ).toEqual({ kind: 'command', text: '/model opus' });
    expect(localCommand('<local-command-stderr>no</local-command-stderr>')).toEqual({ kind: 'stderr', text: 'no' });
    expect(localCommand('run <command-name>/x</command-name>')).toBeUndefined();
  });

  it('Markdown: the command and its output as code, no tags', async () => {
    const md = await runCliOk(fx.env, ['export', CLAUDE_ID, '--format', 'md', '--no-index']);
    expect(md).not.toMatch(TAGS);
    expect(md).toContain('## user\n\n```\n/compact\n```\n');
    expect(md).toContain('## user\n\n_stdout of the command:_\n\n```\nCompacted (ctrl+o to see full summary)\n```\n');
  });

  it.skipIf(skipBrowser)('HTML: the command and its output as code, as the viewer shows them', async () => {
    const html = await runCliOk(fx.env, ['export', CLAUDE_ID, '--format', 'html', '--no-index']);
    const page = (browser as Browser).page;
    await page.setContent(html);
    await expect(page.locator('pre.local-command').allTextContents()).resolves.toEqual([
      '/compact',
      'Compacted (ctrl+o to see full summary)',
    ]);
    await expect(page.locator('main').textContent()).resolves.not.toMatch(TAGS);
    expect((browser as Browser).errors).toEqual([]);
  });

  it('the viewer has no copy of its own: render.js imports the served module', async () => {
    const render = await readFile('src/server/web/assets/render.js', 'utf8');
    // no pattern of its own (its comment names the tags)
    expect(render).not.toContain('<\\/command-name>');
    expect(render).toContain(`import { localCommand } from './${LOCAL_COMMAND_ASSET}';`);
    const res = await createWebApp({ driver: new MemoryStore() }).request(`/ui/assets/${LOCAL_COMMAND_ASSET}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^export const localCommand = function localCommand\(/m);
  });
});
