/**
 * Local `threadbase stats --source/--project` and a team server's `/stats?source=&project=` count the
 * same responses: a Claude Code session converted into pi (each response's id and time kept) has
 * its responses counted in the original, and `--source pi` still counts the conversion's copies once,
 * as the server counts the sessions a filter selects.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore } from '../../src/server/tokens.js';
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: string;
let env: DriverEnv;
let pg: TestSchema;
let server: RunningServer;
let key: string;
let project: string;

beforeAll(async () => {
  ({ home } = await fixtureHome({ prefix: 'tb-stats-filter-', fixtures: ['claude'] }));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
  // into pi under a project of its own: its copies are the only sessions `--project` selects
  project = join(home, 'converted');
  await mkdir(project);
  await runCliOk(env, ['convert', CLAUDE_ID, '--to', 'pi', '--project', project, '--json']);
  await runCliOk(env, ['sync']);
  const listed = JSON.parse(await runCliOk(env, ['sessions', '--source', 'pi', '--json'])) as { project?: string }[];
  // the session, and its sub-agent's, which goes with it
  expect(listed.map((s) => s.project)).toEqual([project, project]);

  pg = await freshSchema('tb_stats_filter');
  const tokens = new PostgresTokenStore(pg.store.pool, pg.store.ready());
  server = await startServer({ store: pg.store, tokens, port: 0, log: () => undefined });
  key = (await tokens.createToken('team')).key;
  await runCliOk(env, ['push', '--to', server.url, '--key', key, '--json']);
}, 180_000);

afterAll(async () => {
  await server?.close();
  await pg?.drop();
  if (home) await rm(home, { recursive: true, force: true });
});

/** the team server's /stats (PostgreSQL's costSummary) over `query` */
async function serverStats(query: Record<string, string>): Promise<StatsTotals> {
  const res = await fetch(`${server.url}/api/v1/threadbase/stats?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  const { data } = (await res.json()) as { data: { cost: number; usage: { input: number; output: number; messages: number } } };
  return { cost: data.cost, input: data.usage.input, output: data.usage.output, messages: data.usage.messages };
}

const rounded = (t: StatsTotals) => ({ ...t, cost: Math.round(t.cost * 1e9) / 1e9 });

describe('stats over the sessions a filter selects', () => {
  it('`--source pi` and `--project` count the conversion into pi, whose copies are not the index’s counted ones', async () => {
    const pi = await localStatsTotals(env, ['--source', 'pi']);
    expect(pi.messages).toBeGreaterThan(0);
    expect(await localStatsTotals(env, ['--project', project])).toEqual(pi);
    // every session: each response once, the conversion adding none
    const all = await localStatsTotals(env);
    expect(await localStatsTotals(env, ['--source', 'claude'])).toEqual(all);
  });

  it('local `stats` and the server’s /stats give the same numbers for each source and project', async () => {
    const filters: Record<string, string>[] = [
      { source: 'pi' },
      { source: 'claude' },
      { project },
      { source: 'pi', project },
      {},
    ];
    for (const filter of filters) {
      const args = Object.entries(filter).flatMap(([k, v]) => [`--${k}`, v]);
      expect({ filter, ...rounded(await serverStats(filter)) }).toEqual({
        filter,
        ...rounded(await localStatsTotals(env, args)),
      });
    }
  });
});
