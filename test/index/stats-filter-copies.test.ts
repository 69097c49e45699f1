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
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { type TeamServer, teamServer, teamServerStats } from '../server/pg-helpers.js';

const CLAUDE_ID = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let home: string;
let env: DriverEnv;
let team: TeamServer;
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

  team = await teamServer('tb_stats_filter');
  await runCliOk(env, ['push', '--to', team.server.url, '--key', team.key, '--json']);
}, 180_000);

afterAll(async () => {
  await team?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

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
      expect({ filter, ...rounded(await teamServerStats(team, filter)) }).toEqual({
        filter,
        ...rounded(await localStatsTotals(env, args)),
      });
    }
  });
});
