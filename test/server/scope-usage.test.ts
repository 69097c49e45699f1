/**
 * A server project's usage() on a SQLite store (ProjectScopedDriver) is counted in the store, by its
 * own rule: a response copied into several of the project's sessions (the real Claude Code
 * `--fork-session` pair) once, even when the copy the whole store counts is another project's; the
 * same numbers as the local index's `stats` over the files the sessions came from, no session read.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { projectStores } from '../../src/server/scope.js';
import { loadPrices } from '../../src/stores/index-sync/prices.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { statsTokenCounts, tokenCounts } from '../helpers/usage.js';

const CLAUDE_PROJECT = join(__dirname, '..', 'fixtures', 'claude', 'real', 'projects', '-tmp-cc-proj');
const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
const CLAUDE_FORK = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';

let dir: string;
let env: DriverEnv;
let index: SqliteStore;
let server: SqliteStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-scope-usage-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  cpSync(CLAUDE_PROJECT, join(dir, '.claude', 'projects', '-tmp-cc-proj'), { recursive: true });
  mkdirSync(join(dir, '.threadbase'));
  index = openSqliteStore(indexPath(env));
  server = openSqliteStore(join(dir, 'server.db'));
});
afterEach(async () => {
  await index.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

it("counts a project's copied responses once in the store, as the index's stats counts the files", async () => {
  const claude = new Sources(env).driver('claude');
  const sessions = [];
  for (const info of await claude.listSessions()) sessions.push(await claude.getSession(info.id));
  const byId = new Map(sessions.map((s) => [s?.id, s]));
  expect(byId.has(CLAUDE_PARENT) && byId.has(CLAUDE_FORK)).toBe(true);

  await new IndexSync(index).sync(new Sources(env), { formats: ['claude'] });
  const want = statsTokenCounts(stats(index, loadPrices(), { by: 'session', source: 'claude' }));
  expect(want.messages).toBeGreaterThan(0);

  const views = projectStores(server);
  // the parent alone in project `first`, written first: the whole store counts its copies there
  const first = views('first');
  const team = views('team');
  const parent = byId.get(CLAUDE_PARENT);
  if (!first.writeSession || !team.writeSession || !parent) throw new Error('a SQLite project writes sessions');
  await first.writeSession(parent, { keepId: true });
  for (const s of sessions) if (s) await team.writeSession(s, { keepId: true });

  const reads = vi.spyOn(server, 'getSession');
  try {
    expect(tokenCounts(await team.usage())).toEqual(want);
    // the store's own SQL counted it: no session was read
    expect(reads).not.toHaveBeenCalled();
  } finally {
    reads.mockRestore();
  }
  // each of the project's sessions counted alone adds the fork's copies again
  const eachAlone = (await team.listSessions()).reduce((n, info) => n + (info.usage?.input ?? 0), 0);
  expect(want.input).toBeLessThan(eachAlone);
  // the other project holds the parent only: all of what its transcript records
  const alone = summarizeUsage(parent.entries);
  expect(tokenCounts(await first.usage())).toEqual(tokenCounts({ ...alone.usage, cost: 0, messages: alone.responses }));
});
