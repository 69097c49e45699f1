/**
 * Debian's chromium driven by playwright-core (never a downloaded browser), and the viewer served
 * on a loopback port. Screenshots go to test-results/screenshots/ (git-ignored).
 *
 * Where /usr/bin/chromium is missing the browser tests are skipped on a developer's machine, but
 * under CI (CI=true) they run and fail: a CI without its browser must not pass by skipping them.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { createWebApp, type WebViewerOptions } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
/** CI=true (or 1): missing services fail the tests that need them instead of skipping them. */
export const isCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** Skip the browser suites only off CI and only when the browser is missing. */
export const skipBrowser = !chromiumAvailable && !isCI;
export const ARTIFACTS = join(process.cwd(), 'test-results', 'screenshots');
/** A laptop screen. */
export const VIEWPORT = { width: 1366, height: 768 };

/** Throws (failing the suite) when a service the suite needs is missing; only reached on CI or when present. */
export function requireService(available: boolean, what: string): void {
  if (!available) throw new Error(`${what} is missing, and CI=${process.env.CI}: the browser tests must run here, not skip`);
}

export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Anything with a fetch handler: a Hono app of any Env. */
export async function serveApp(app: Pick<Hono, 'fetch'>): Promise<Served> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** console errors and page errors seen so far */
  errors: string[];
  close(): Promise<void>;
}

export interface LaunchOptions {
  colorScheme?: 'light' | 'dark';
  /** the page's time zone (an IANA name); default the machine's */
  timezoneId?: string;
}

export async function launchBrowser(opts: LaunchOptions = {}): Promise<Browser> {
  requireService(chromiumAvailable, `${CHROMIUM} (Debian's chromium: apt-get install chromium)`);
  const userDataDir = await mkdtemp(join(tmpdir(), 'threadbase-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    viewport: VIEWPORT,
    colorScheme: opts.colorScheme ?? 'light',
    ...(opts.timezoneId ? { timezoneId: opts.timezoneId } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return {
    context,
    page,
    errors,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** The viewer over a home of agents' fixtures, in chromium: what viewerOverFixtures sets up. */
export interface FixtureViewer {
  home: string;
  sources: Sources;
  served: Served;
  browser: Browser;
}

/**
 * For the enclosing describe: a fixture home (`setup` may add to it), the viewer on its agents'
 * files and a browser, made in beforeAll and closed in afterAll; its fields are set once beforeAll ran.
 */
export function viewerOverFixtures(
  opts: Parameters<typeof fixtureHome>[0] & { setup?: (home: string) => Promise<void> },
): FixtureViewer {
  const viewer = {} as FixtureViewer;
  beforeAll(async () => {
    ({ home: viewer.home } = await fixtureHome(opts));
    await opts.setup?.(viewer.home);
    viewer.sources = new Sources({ home: viewer.home, env: { HOME: viewer.home } });
    viewer.served = await serveApp(createWebApp({ driver: new AgentFilesDriver(viewer.sources) }));
    viewer.browser = await launchBrowser();
  });
  afterAll(async () => {
    await viewer.browser?.close();
    await viewer.served?.close();
    await viewer.sources?.close();
    if (viewer.home) await rm(viewer.home, { recursive: true, force: true });
  });
  return viewer;
}

/** The viewer over sessions in memory, in chromium: what viewerOverSessions sets up. */
export interface SessionsViewer {
  store: MemoryStore;
  served: Served;
  browser: Browser;
}

/**
 * For the enclosing describe: an in-memory store holding `sessions` (under their own ids), the
 * viewer on it (`options` beside the driver) and a browser (`launch`), made in beforeAll and closed in afterAll.
 */
export function viewerOverSessions(
  sessions: readonly Session[],
  options: Omit<WebViewerOptions, 'driver'> = {},
  launch: LaunchOptions = {},
): SessionsViewer {
  const viewer = {} as SessionsViewer;
  beforeAll(async () => {
    viewer.store = new MemoryStore();
    for (const s of sessions) await viewer.store.writeSession(s, { keepId: true });
    viewer.served = await serveApp(createWebApp({ ...options, driver: viewer.store }));
    viewer.browser = await launchBrowser(launch);
  });
  afterAll(async () => {
    await viewer.browser?.close();
    await viewer.served?.close();
  });
  return viewer;
}

/**
 * Opens every tool fold in the conversation and waits until each has built its body. The body is
 * built on the `toggle` event, which the browser fires after the click returns, and the view may be
 * drawn again once it has scrolled to an entry; so any fold still closed is clicked again.
 */
export async function openToolFolds(page: Page, timeoutMs = 5000): Promise<void> {
  const folds = page.locator('#conversation details.tool');
  const states = () =>
    folds.evaluateAll((ds) =>
      ds.map((d) => {
        const fold = d as HTMLDetailsElement;
        // a call's fold builds its body when opened; a result shown alone has it from the start
        return { open: fold.open, built: fold.dataset.callId === undefined || fold.dataset.built === '1' };
      }),
    );
  const until = Date.now() + timeoutMs;
  for (;;) {
    const now = await states();
    if (now.every((f) => f.open && f.built)) return;
    if (Date.now() > until) {
      throw new Error(`tool folds did not all open and build within ${timeoutMs} ms: ${JSON.stringify(now)}`);
    }
    const closed = now.findIndex((f) => !f.open);
    // one at a time, by its place now: each click changes which folds are still closed
    if (closed >= 0)
      await folds
        .nth(closed)
        .locator('> summary')
        .click({ timeout: 1000 })
        .catch(() => undefined);
    else await page.waitForTimeout(50);
  }
}
