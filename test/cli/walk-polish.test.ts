/**
 * What a new user met walking through the CLI on real sessions (fixtures copied where the agents keep
 * them) that was unclear or inconsistent, each as it reads now.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  // pi's and codex's fixtures hold sessions whose ids begin alike (01a204ad-…)
  ({ home: root, env } = await fixtureHome({ prefix: 'tb-walk-polish-', agents: ['pi', 'codex'] }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('an id prefix several sessions share', () => {
  // the candidates read `pi:01a2…`, which no command takes as an id: the message said no way on
  it.each([['show'], ['context'], ['export']])('%s names the way to one of them', async (command) => {
    const r = await runCli(env, [command, '01a204a']);
    expect(r.err).toMatch(
      /^threadbase: id prefix "01a204a" matches \d sessions: .*codex:01a204ad.*; give more of the id, or name its agent: --source (pi\|codex|codex\|pi)\n$/,
    );
    expect(r.code).toBe(1);
  });

  it('within one agent (--source given) asks for more of the id only', async () => {
    const r = await runCli(env, ['show', '01a204ad', '--source', 'pi']);
    expect(r.err).toMatch(/matches 2 sessions: pi:01a204ad-[^,]+, pi:01a204ad-[^,]+; give more of the id\n$/);
    expect(r.code).toBe(1);
  });
});
