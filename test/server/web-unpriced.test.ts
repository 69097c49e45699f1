/**
 * The session's head says which models' tokens are in no cost: responses that recorded no cost, of a
 * model the price table does not know. Before, a session of such a model showed no cost and no word
 * why, and one that mixed it with a priced model showed the priced part as if it were the whole
 * (while the list showed the same session's cost as unknown). In chromium, on the real Qwen Code
 * session (its stand-in model has no price), a mixed session, and a Cline session (costs recorded).
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Entry, Session } from '../../src/model/types.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { WebData } from '../../src/server/web/data.js';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type Browser, launchBrowser, type Served, serveApp, skipBrowser } from '../e2e/browser.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

const QWEN_ID = 'ee2a1197-112a-4879-a9f4-4ee94585ced0';
const CLINE_ID = '1795664340517_twuoj';

const answer = (id: string, parentId: string, model: string): Entry => ({
  id,
  parentId,
  timestamp: '2026-11-20T10:00:01.000Z',
  kind: 'message',
  message: {
    role: 'assistant',
    model,
    usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    parts: [{ type: 'text', text: `answer of ${model}` }],
  },
});

/** one response of a priced model, one of a model no table knows */
const MIXED: Session = {
  id: 'mixed-models',
  source: 'threadbase',
  title: 'two models',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:01.000Z',
  messageCount: 3,
  entries: [
    {
      id: 'u1',
      parentId: null,
      timestamp: '2026-11-20T10:00:00.000Z',
      kind: 'message',
      message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    },
    answer('a1', 'u1', 'claude-sonnet-4-5'),
    answer('a2', 'a1', 'acme-unknown-model'),
  ],
};

describe.skipIf(skipBrowser)('models with no price in the session head', () => {
  let home: string;
  let sources: Sources;
  let served: Served;
  let mixed: Served;
  let browser: Browser;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'threadbase-web-unpriced-', fixtures: ['qwen', 'cline'] }));
    sources = new Sources({ home, env: { HOME: home } });
    served = await serveApp(createWebApp({ driver: new AgentFilesDriver(sources) }));
    const store = new MemoryStore();
    await store.writeSession(MIXED, { keepId: true });
    mixed = await serveApp(createWebApp({ driver: store }));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await mixed?.close();
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const head = async (base: string, id: string) => {
    const { page } = browser;
    await page.goto('about:blank');
    await page.goto(`${base}/#/session/${id}`);
    await page.waitForFunction((id) => document.querySelector('.session-head .mono')?.textContent === id, id);
    return (await page.locator('.session-head .muted.small').first().textContent()) ?? '';
  };

  it('qwen: a session of a model with no price says so, with no cost', async () => {
    const text = await head(served.url, QWEN_ID);
    expect(text).toMatch(/ · no price for claude-standin$/);
    expect(text).not.toContain('$');
  });

  it('a priced model and one without: the priced cost, and the model left out of it', async () => {
    const text = await head(mixed.url, MIXED.id);
    expect(text).toMatch(/ · ≈\$0\.\d{4} \+ no price for acme-unknown-model$/);
    const data = await new WebData(new AgentFilesDriver(sources)).header(QWEN_ID);
    expect(data.unpricedModels).toEqual(['claude-standin']);
  });

  it('cline: costs recorded, nothing unpriced', async () => {
    const text = await head(served.url, CLINE_ID);
    expect(text).toMatch(/ · \$0\.\d{4}$/);
    expect(text).not.toContain('no price');
    expect(browser.errors).toEqual([]);
  });
});
