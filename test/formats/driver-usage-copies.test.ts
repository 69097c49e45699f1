/**
 * An agent driver's usage() (DriverBase: a library user's totals, a server project's on a store
 * without costSummary) counts a response copied into several sessions once, as the local index's
 * `stats` counts the same files: the real Claude Code `--fork-session` pair in test/fixtures repeats
 * its parent's responses.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { statsTokenCounts, tokenCounts } from '../helpers/usage.js';

const CLAUDE_PROJECT = join(__dirname, '..', 'fixtures', 'claude', 'real', 'projects', '-tmp-cc-proj');
const CLAUDE_FORK = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';

let dir: string;
let env: DriverEnv;
let store: SqliteStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-driver-usage-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  cpSync(CLAUDE_PROJECT, join(dir, '.claude', 'projects', '-tmp-cc-proj'), { recursive: true });
  mkdirSync(join(dir, '.threadbase'));
  store = openSqliteStore(indexPath(env));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

it("counts a Claude Code fork's copied responses once, as the index's stats() does over the same files", async () => {
  const driver = new Sources(env).driver('claude');
  const listed = await driver.listSessions();
  expect(listed.map((s) => s.id)).toContain(CLAUDE_FORK);
  // each session on its own: the fork's copies of its parent's responses counted again
  let eachAlone = 0;
  for (const info of listed) eachAlone += summarizeUsage((await driver.getSession(info.id))?.entries ?? []).usage.input;

  await new IndexSync(store).sync(new Sources(env), { formats: ['claude'] });
  const prices = loadPrices();
  const fromIndex = statsTokenCounts(stats(store, prices, { by: 'session', source: 'claude' }));
  expect(fromIndex.messages).toBeGreaterThan(0);
  expect(fromIndex.input).toBeLessThan(eachAlone);

  const all = await driver.usage();
  expect(tokenCounts(all)).toEqual(fromIndex);
  expect(tokenCounts(all)).toEqual(tokenCounts(await store.usage({ source: 'claude' })));
  // a project selected: the same sessions, the same count
  const project = listed.find((s) => s.id === CLAUDE_FORK)?.project as string;
  expect(tokenCounts(await driver.usage({ project }))).toEqual(
    statsTokenCounts(stats(store, prices, { by: 'session', project })),
  );
});
