/**
 * `convert --to claude --project DIR` of a Claude Code session: the copied records' `cwd` is DIR (the
 * records are copied whole, and the reader takes the project from the first record's cwd), so the
 * written session reads back in DIR and Claude Code resumes it there, not in the old project.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import { runCli } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import '../../src/formats/all.js';

/** The real fixture's session, every record's cwd `/tmp/cc/proj` */
const CLAUDE_PARENT = '0afea31a-5ccc-4b41-8d19-4c8571cb3a03';

let fx: FixtureHome;
beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-claude-cwd-', fixtures: ['claude'] });
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

it('Claude Code → Claude Code with --project: the session and every record in the new project', async () => {
  const here = join(fx.home, 'elsewhere');
  mkdirSync(here, { recursive: true });
  const r = await runCli(fx.env, ['convert', CLAUDE_PARENT, '--to', 'claude', '--project', here, '--json', '--no-index']);
  expect(r.code, r.err).toBe(0);
  const out = JSON.parse(r.out) as { id: string; path: string; children?: { path: string }[] };
  const written = await new Sources(fx.env).driver('claude').getSession(out.id);
  expect(written?.project).toBe(here);
  const cwds = readFileSync(out.path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { cwd?: unknown }).cwd)
    .filter((c) => c !== undefined);
  expect(cwds.length).toBeGreaterThan(10);
  expect(new Set(cwds)).toEqual(new Set([here]));
  // the sub-agent's transcript, copied along, is in the new project too
  const children = out.children ?? [];
  expect(children).toHaveLength(1);
  for (const child of children)
    for (const line of readFileSync(child.path, 'utf8').trim().split('\n'))
      if ('cwd' in JSON.parse(line)) expect(JSON.parse(line).cwd).toBe(here);
});
