/** A fixture home and chromium for the tests that check in a browser what threadbase writes from agents' files. */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import { type Browser, launchBrowser } from '../e2e/browser.js';
import { type FixtureHome, fixtureHome } from './fixture-homes.js';

export interface FixtureBrowser extends FixtureHome {
  browser: Browser;
}

/**
 * For the enclosing describe: fixtureHome(opts) and a browser, made in beforeAll and closed (the home
 * removed) in afterAll; its fields are set once beforeAll ran.
 */
export function browserOverFixtures(opts: Parameters<typeof fixtureHome>[0]): FixtureBrowser {
  const fx = {} as FixtureBrowser;
  beforeAll(async () => {
    Object.assign(fx, await fixtureHome(opts));
    fx.browser = await launchBrowser();
  });
  afterAll(async () => {
    await fx.browser?.close();
    if (fx.home) await rm(fx.home, { recursive: true, force: true });
  });
  return fx;
}
