/**
 * The web viewer's charts past statsSessionLimit, on a store that counts them itself (SQLite:
 * costBuckets), give what the charts per message give: each response once (a fork's copies, a
 * conversion into threadbase's store), split by since/until, by day, model, project and source,
 * without reading a session. Real Claude Code sessions in a local index, and the same sessions in a
 * team server project's view of a SQLite store.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DriverEnv, SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { projectStores } from '../../src/server/scope.js';
import { WebData } from '../../src/server/web/data.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { roundedChart } from './pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';
/** after three of 0afea31a's responses, before the later sessions' */
const WINDOW = { since: '2026-11-22T19:13:01.100Z', until: '2026-11-22T19:20:00.000Z' };

let home: string;
let env: DriverEnv;
let index: SqliteStore;
let server: SqliteStore;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-chart-store-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  await runCliOk(env, ['sync']);
  await runCliOk(env, ['convert', CLAUDE_ID, '--to', 'threadbase', '--json']);
  index = openSqliteStore(indexPath(env), { readonly: true });
  // the same sessions in a team server project (and in another project, holding the same responses)
  server = openSqliteStore(join(home, 'server.db'));
  const sessions: Session[] = [];
  for (const info of await index.listSessions()) {
    const s = await index.getSession(info.id);
    if (s) sessions.push(s);
  }
  for (const project of ['team', 'other'])
    for (const s of sessions) await projectStores(server)(project).writeSession?.(s, { keepId: true });
}, 120_000);

afterAll(async () => {
  await index?.close();
  await server?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

describe.each([
  ['the local index', () => index as SessionDriver, () => index as SessionDriver],
  ['a SQLite team server project', () => projectStores(server)('team'), () => server as SessionDriver],
])("the viewer's charts past statsSessionLimit on %s", (_name, store, watched) => {
  it.each<[string, { since?: string; until?: string; timeZone?: string }]>([
    ['all time', {}],
    ['a window', WINDOW],
    // the reader's days: 19:13 UTC is the next day in Kathmandu (+05:45), the same in Los Angeles
    ['all time in Kathmandu', { timeZone: 'Asia/Kathmandu' }],
    ['a window in Los Angeles', { ...WINDOW, timeZone: 'America/Los_Angeles' }],
  ])('over %s equal the charts per message, reading no session', async (_w, filter) => {
    const perMessage = await new WebData(store(), { statsSessionLimit: 1000 }).stats(filter);
    expect(perMessage.granularity).toBe('message');
    expect(perMessage.totals.responses).toBeGreaterThan(0);
    const reads = vi.spyOn(watched(), 'getSession');
    try {
      const counted = await new WebData(store(), { statsSessionLimit: 0 }).stats(filter);
      expect(reads).not.toHaveBeenCalled();
      expect(roundedChart(counted)).toEqual(roundedChart(perMessage));
      // counted in the reader's zone, not UTC's (the caption would say "UTC days")
      expect(counted.dayZone).toBe(filter.timeZone ?? 'UTC');
    } finally {
      reads.mockRestore();
    }
  });
});
