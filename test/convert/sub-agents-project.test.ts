/**
 * `convert <id> --project <dir>` writes the session's sub-agent sessions (and theirs) under `<dir>`
 * too, where the target files a session by its project (pi's sessions folder and header cwd, Codex's
 * session_meta cwd, a threadbase store's project): a sub-agent runs where its parent does. Before,
 * the real Claude Code sub-agent went to the original project while its parent went to `<dir>`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSessionAll, type WrittenSession } from '../../src/convert/session.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome, homeEnv } from '../helpers/fixture-homes.js';
import { CLAUDE_PARENT, type ConvertedRow, sessionIn, subAgentTree } from '../helpers/sub-agents.js';

let fx: FixtureHome;
let elsewhere: string;

beforeAll(async () => {
  fx = await fixtureHome({ prefix: 'tb-sub-agents-project-', fixtures: ['claude'] });
  elsewhere = join(fx.home, 'work', 'elsewhere');
  mkdirSync(elsewhere, { recursive: true });
});
afterAll(() => {
  if (fx) rmSync(fx.home, { recursive: true, force: true });
});

for (const to of ['pi', 'codex']) {
  it(`into ${to}: the real Claude Code sub-agent goes to --project with its parent`, async () => {
    const original = await sessionIn(fx.env, 'claude', CLAUDE_PARENT);
    expect(original.project).not.toBe(elsewhere);
    const out = JSON.parse(
      await runCliOk(fx.env, ['convert', CLAUDE_PARENT, '--to', to, '--project', elsewhere, '--json', '--no-index']),
    ) as ConvertedRow;
    const row = out.children?.[0];
    expect(row, JSON.stringify(out)).toBeDefined();
    const parent = await sessionIn(fx.env, to, out.id);
    const child = await sessionIn(fx.env, to, row?.id as string);
    expect(parent.project).toBe(elsewhere);
    expect(child.parentId).toBe(out.id);
    expect(child.project).toBe(elsewhere);
    // pi files a session under its project's folder: the child beside its parent
    if (to === 'pi') expect(dirname(row?.path as string)).toBe(dirname(out.path as string));
  });
}

it('a sub-agent of a sub-agent goes to the parent project too (library convert, into pi and a threadbase store)', async () => {
  const home = mkdtempSync(join(tmpdir(), 'tb-sub-agents-project-tree-'));
  try {
    const env = homeEnv(home);
    const from = join(home, 'from');
    const to = join(home, 'to');
    mkdirSync(from);
    mkdirSync(to);
    const tree = subAgentTree(from);
    for (const target of ['pi', 'threadbase']) {
      const [written] = (await convertSessionAll(
        { ...tree.parent, project: to },
        { to: target, env, childrenOf: tree.childrenOf },
      )) as WrittenSession[];
      const child = written?.children?.[0];
      const grandchild = child?.children?.[0];
      expect(grandchild, JSON.stringify(written)).toBeDefined();
      for (const w of [written, child, grandchild])
        expect({ target, project: (await sessionIn(env, target, w?.id as string)).project }).toEqual({ target, project: to });
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
