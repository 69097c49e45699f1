/** Search's text columns line up whatever the sources in the answer ('threadbase' is 10 wide). */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-search-columns-', fixtures: ['claude'] }));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: `${root}/.threadbase` } };
  await runCliOk(env, ['sync', '--json']);
  const hits = JSON.parse(await runCliOk(env, ['search', 'summary', '--source', 'claude', '--no-sync', '--json'])) as {
    sessionId: string;
  }[];
  const first = hits[0];
  if (!first) throw new Error('the fixtures have no hit for "summary"');
  await runCliOk(env, ['convert', first.sessionId, '--to', 'threadbase', '--json']);
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('hits from Claude Code and from threadbase put time, role and project in the same columns', async () => {
  const text = await runCliOk(env, ['search', 'summary', '--no-sync', '--limit', '200']);
  const heads = text.split('\n').filter((l) => !l.startsWith('    ') && l.trim());
  const sources = new Set(heads.map((l) => l.split(/\s+/)[1]));
  expect(sources).toEqual(new Set(['claude', 'threadbase']));
  const timeAt = new Set(heads.map((l) => l.search(/\d{4}-\d\d-\d\dT\d\d:\d\d/)));
  const projectAt = new Set(heads.map((l) => l.indexOf(' /')));
  expect(timeAt.size).toBe(1);
  expect(projectAt.size).toBe(1);
  // one space at least between source and time
  for (const l of heads) expect(l).toMatch(/^\S+ {2}(claude|threadbase) +\d{4}-/);
});
