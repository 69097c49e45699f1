/**
 * Cost marks in the viewer, as the list and the export mark them. The stats page's Cost card showed
 * a cost priced from tokens with no `≈` (the list and the export mark it). And a conversion's copy of
 * a session on a model with no price (a pi session on a model of its own, converted into Claude Code,
 * whose records keep no cost field: pi's recorded $0 is gone in the copy) showed an empty cost cell in
 * the list, its own priced responses included: now the priced part, `+` and the model left out named,
 * as `threadbase stats` shows such a cost (0.0250+). In chromium, over a real SQLite store and memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDriver } from '../../src/model/driver.js';
import type { Entry, Session, Usage } from '../../src/model/types.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { SqliteStore } from '../../src/stores/sqlite/index.js';
import { answeredOnDays, messageEntry, textMessage } from '../helpers/sessions.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from './browser.js';

const usage: Usage = { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const AT = '2026-11-20T10:00:0';

/** pi's records: a model no table prices, the cost pi recorded ($0) on each */
const piRecords = (cost: number | undefined): Entry[] => [
  messageEntry('u1', null, `${AT}0.000Z`, textMessage('user', 'read the file')),
  messageEntry(
    'a1',
    'u1',
    `${AT}1.000Z`,
    textMessage('assistant', 'done', { model: 'acme-standin', usage, cost, responseId: 'r1' }),
  ),
  messageEntry('u2', 'a1', `${AT}2.000Z`, textMessage('user', 'again')),
  messageEntry(
    'a2',
    'u2',
    `${AT}3.000Z`,
    textMessage('assistant', 'done', { model: 'acme-standin', usage, cost, responseId: 'r2' }),
  ),
];

const ORIGINAL: Session = {
  id: 'pi-original',
  source: 'threadbase',
  project: '/work/copies',
  title: 'the pi original',
  createdAt: `${AT}0.000Z`,
  updatedAt: `${AT}3.000Z`,
  messageCount: 4,
  entries: piRecords(0),
};

/** its copy into Claude Code (no cost kept), continued there by a priced model */
const COPY: Session = {
  ...ORIGINAL,
  id: 'claude-copy',
  title: 'the claude copy',
  writtenBy: 'threadbase',
  updatedAt: `${AT}5.000Z`,
  messageCount: 6,
  entries: [
    ...piRecords(undefined),
    messageEntry('u3', 'a2', `${AT}4.000Z`, textMessage('user', 'go on')),
    messageEntry(
      'a3',
      'u3',
      `${AT}5.000Z`,
      textMessage('assistant', 'ok', { model: 'claude-sonnet-4-5', usage, responseId: 'r3' }),
    ),
  ],
};

/** costs its agent recorded, in a project of its own */
const RECORDED = answeredOnDays('recorded', '/work/recorded', ['2026-11-21'], usage);

describe.skipIf(skipBrowser)('web viewer: cost marks on the stats page and a copy in the list', () => {
  let dir: string;
  let browser: Browser;
  const viewers: { name: string; served: Served; store: SessionDriver }[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'threadbase-web-cost-marks-'));
    browser = await launchBrowser();
    const stores: [string, SessionDriver & Required<Pick<SessionDriver, 'writeSession'>>][] = [
      ['sqlite', new SqliteStore(join(dir, 'threadbase.db'))],
      ['memory', new MemoryStore()],
    ];
    for (const [name, store] of stores) {
      for (const s of [ORIGINAL, COPY, RECORDED]) await store.writeSession(s, { keepId: true });
      viewers.push({ name, store, served: await serveApp(createWebApp({ driver: store })) });
    }
  });

  afterAll(async () => {
    await browser?.close();
    for (const v of viewers) {
      await v.served.close();
      await v.store.close?.();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const costCard = async (url: string) => {
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(url);
    const card = page.locator('.card', { hasText: 'Cost' });
    await card.locator('.card-value').waitFor();
    const note = card.locator('.muted');
    return { value: await card.locator('.card-value').textContent(), note: (await note.count()) ? await note.textContent() : '' };
  };

  it.each(['sqlite', 'memory'])('%s: the Cost card marks a priced cost ≈, a recorded one not', async (name) => {
    const v = viewers.find((x) => x.name === name) as (typeof viewers)[number];
    const priced = await costCard(`${v.served.url}/#/stats?project=${encodeURIComponent('/work/copies')}`);
    expect(priced.value).toMatch(/^≈\$0\.\d{4}$/);
    expect(priced.note).toBe('priced from tokens (the agents recorded no cost)');
    const recorded = await costCard(`${v.served.url}/#/stats?project=${encodeURIComponent('/work/recorded')}`);
    expect(recorded).toEqual({ value: '$0.01', note: '' });
    expect(browser.errors).toEqual([]);
  });

  it.each(['sqlite', 'memory'])('%s: the copy’s list cell shows its priced part, + and the model left out', async (name) => {
    const v = viewers.find((x) => x.name === name) as (typeof viewers)[number];
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${v.served.url}/#/`);
    const cellOf = (title: string) => page.locator('tr', { hasText: title }).locator('td.num').last();
    await cellOf('the claude copy').waitFor();
    const copy = cellOf('the claude copy');
    expect(await copy.textContent()).toMatch(/^≈\$0\.\d{4}\+$/);
    expect(await copy.getAttribute('title')).toContain('not in the cost: tokens of acme-standin');
    // the original: pi's recorded $0, unmarked
    expect(await cellOf('the pi original').textContent()).toBe('$0');
    expect(browser.errors).toEqual([]);
  });
});
