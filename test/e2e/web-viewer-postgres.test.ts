/**
 * The viewer on the team server (`createApp`, as `threadbase serve` runs it) over PostgreSQL
 * (127.0.0.1:5432, db `test`), in Debian's chromium. Seeds a fresh schema through the store's
 * driver for one project, then: key prompt, search, the hit opened at its turn in the
 * 10,000-entry session, a branch switch, stats, "Continue in…" as the handoff command a reader
 * runs on their own machine (run here, it writes a real pi session); another project's key sees
 * none of it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { openPostgresStore, type PostgresStore } from '../../src/stores/postgres/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import {
  type Browser,
  chromiumAvailable,
  isCI,
  launchBrowser,
  requireService,
  type Served,
  screenshot,
  serveApp,
} from './browser.js';
import { ALT_LEAF, BIG_NEEDLE, BIG_NEEDLE_INDEX, PARSER_ID, seedStore } from './fixtures.js';

const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `tb_web_${randomUUID().replaceAll('-', '').slice(0, 12)}`;

async function postgresUp(): Promise<boolean> {
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const pgAvailable = await postgresUp();

// Off CI a machine without chromium or PostgreSQL skips this; under CI it fails instead.
describe.skipIf((!chromiumAvailable || !pgAvailable) && !isCI)('web viewer on PostgreSQL in chromium', () => {
  let store: PostgresStore;
  let served: Served;
  let browser: Browser;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    requireService(pgAvailable, `PostgreSQL at ${PG_URL}`);
    store = await openPostgresStore(PG_URL, { schema });
    const tokens = new MemoryTokenStore();
    const team = await tokens.createToken('team');
    key = team.key;
    otherKey = (await tokens.createToken('other-team')).key;
    await seedStore(store.forTenant(team.project.id));
    served = await serveApp(createApp({ store, tokens, log: () => {} }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await store?.close?.();
    if (!pgAvailable) return;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  });

  it('asks for the key, searches, opens the hit in the big session and switches a branch', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/sessions`);
    await page.waitForSelector('#api-key');
    await page.fill('#api-key', key);
    await page.keyboard.press('Enter');
    await page.waitForSelector('tr.row');
    expect(await page.locator('tr.row').count()).toBe(11);

    await page.goto(`${served.url}/#/search?q=${BIG_NEEDLE}`);
    await page.waitForSelector('ol.hits li');
    // PostgreSQL marks the hit itself (ts_headline «…»); the parts of the hyphenated word are marked
    const marks = (await page.locator('ol.hits li').first().locator('mark').allTextContents()).join(' ');
    for (const word of BIG_NEEDLE.split('-')) expect(marks).toContain(word);
    expect(await page.locator('ol.hits .snippet').first().textContent()).not.toContain('«');
    await page.locator('ol.hits a').first().click();
    await page.waitForSelector(`#e-big-${BIG_NEEDLE_INDEX}.hit`);
    expect(await page.locator('.conversation .entry').count()).toBeLessThan(600);
    await screenshot(page, 'pg-01-hit');

    await page.goto(`${served.url}/#/session/${PARSER_ID}`);
    await page.waitForSelector('#tree-panel a.leaf');
    await page.locator(`#tree-panel a[data-node-id="${ALT_LEAF}"]`).click();
    await page.waitForSelector(`#e-${ALT_LEAF}`);
    expect(await page.locator('#e-p-8').count()).toBe(0);
    await page.locator(`#e-p-2 details.tool summary`).click();
    await page.waitForSelector('#e-p-2 pre.diff .add');
    await screenshot(page, 'pg-02-branch');

    await page.goto(`${served.url}/#/stats`);
    await page.waitForSelector('svg.time-chart rect.bar');
    expect(await page.locator('svg.bar-chart').count()).toBe(3);
    await screenshot(page, 'pg-03-stats');
    expect(browser.errors.filter((e) => !e.includes('401'))).toEqual([]);
  });

  it('continues a session in pi from the team server: the handoff command, run with the key, writes a pi session', async () => {
    const { page } = browser;
    await page.goto(`${served.url}/#/session/${PARSER_ID}?leaf=${ALT_LEAF}`);
    await page.waitForSelector('#continue-target');
    const options = await page.locator('#continue-target option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['claude', 'pi', 'opencode', 'codex']));
    await page.selectOption('#continue-target', 'pi');
    await page.click('#continue-button');
    await page.waitForSelector('#handoff-command');
    const command = (await page.locator('#handoff-command').textContent()) ?? '';
    // the server writes nothing of its own: it names itself as where the session is read from
    expect(command).toBe(`threadbase handoff ${PARSER_ID} --from ${served.url} --to pi --at ${ALT_LEAF}`);
    expect(await page.locator('#continue-out').textContent()).toContain('THREADBASE_API_KEY');
    expect(await page.locator('#resume-command').count()).toBe(0);
    await screenshot(page, 'pg-04-continue-in');

    // the reader's machine: an empty HOME, the key in the environment, the command as shown
    const laptop = await mkdtemp(join(tmpdir(), 'threadbase-laptop-'));
    try {
      const args = command.split(' ').slice(1);
      const out = await runCliOk({ home: laptop, env: { HOME: laptop, THREADBASE_API_KEY: key } }, args);
      const path = out.match(/wrote pi session \S+ at (\S+\.jsonl)/)?.[1];
      expect(path, out).toBeTruthy();
      expect(path?.startsWith(join(laptop, '.pi'))).toBe(true);
      // the path quoted only if it needs it (shellQuote); a temp dir's does not
      expect(out).toContain(`pi --session ${path}`);
      expect(existsSync(path as string)).toBe(true);
      // the branch picked in the viewer is what was handed off
      const written = readFileSync(path as string, 'utf8');
      expect(written).toContain('rewrite the lexer as a state machine');
      expect(written).not.toContain('red block');
      // another project's key cannot read it from the server
      const denied = await runCli({ home: laptop, env: { HOME: laptop, THREADBASE_API_KEY: otherKey } }, args);
      expect(denied.code).not.toBe(0);
      expect(denied.err).toContain(`session not found: ${PARSER_ID}`);
    } finally {
      await rm(laptop, { recursive: true, force: true });
    }
  });

  it("shows another project's key none of these sessions", async () => {
    const mine = await fetch(`${served.url}/api/v1/web/sessions`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await mine.json()) as { total: number }).total).toBe(11);
    const theirs = await fetch(`${served.url}/api/v1/web/sessions`, { headers: { authorization: `Bearer ${otherKey}` } });
    expect(((await theirs.json()) as { total: number }).total).toBe(0);
    const direct = await fetch(`${served.url}/api/v1/web/sessions/${PARSER_ID}`, {
      headers: { authorization: `Bearer ${otherKey}` },
    });
    expect(direct.status).toBe(404);
    expect((await fetch(`${served.url}/api/v1/web/sessions`)).status).toBe(401);
    const shell = await fetch(`${served.url}/`);
    expect(shell.status).toBe(200);
    expect(await shell.text()).toContain('/ui/assets/app.js');
  });
});
