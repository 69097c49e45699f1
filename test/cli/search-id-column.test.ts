/**
 * Search's text lines put agent, time, role and project in the same columns whatever the session ids
 * in the answer: agents' ids differ in length (Kilo CLI's ses_… 30 characters, Continue's UUID 36),
 * and each line began with its id unpadded, so the columns after it wandered from line to line.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-search-id-column-', fixtures: ['kilo', 'continue'] }));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: `${root}/.threadbase` } };
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('lines up hits of sessions whose ids differ in length', async () => {
  // "No such file or directory": a failed command in both fixtures
  const text = await runCliOk(env, ['search', 'directory', '--no-sync', '--limit', '200']);
  const heads = text.split('\n').filter((l) => !l.startsWith('    ') && l.trim());
  const ids = new Set(heads.map((l) => (l.split(/\s+/)[0] ?? '').length));
  expect(ids.size).toBeGreaterThan(1);
  const sourceAt = new Set(heads.map((l) => l.search(/ (kilo|continue) /)));
  const timeAt = new Set(heads.map((l) => l.search(/\d{4}-\d\d-\d\dT\d\d:\d\d/)));
  expect(sourceAt.size).toBe(1);
  expect(timeAt.size).toBe(1);
});
