/**
 * What threadbase says about a Kilo CLI session names Kilo, not OpenCode, whose code reads and
 * writes it (src/formats/opencode with Kilo's flavor): `convert --to kilo`'s loss lines and the
 * encoder's warnings, and the errors of a database Kilo cannot have written.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

/** codex 0.169 (audit home): a thread whose developer message has no OpenCode record */
const CODEX_WITH_SYSTEM = '01a21356-267a-73e0-9768-3144907e69c8';
/** Claude Code 2.1: a session with signed thinking */
const CLAUDE_WITH_THINKING = '4cf6af46-90ce-4140-a417-cb383e9c5ef7';

const warningsOf = (err: string) => err.split('\n').filter((l) => l.includes('→ kilo'));

it('convert --to kilo says Kilo CLI in its loss lines and its encoder warnings', async () => {
  const { env } = await fixtureHome({ prefix: 'tb-kilo-messages-', fixtures: ['claude', 'codex', 'kilo'] });

  const claude = await runCli(env, ['convert', CLAUDE_WITH_THINKING, '--to', 'kilo']);
  expect(claude.code).toBe(0);
  expect(warningsOf(claude.err)).toEqual(
    expect.arrayContaining([expect.stringContaining('but Kilo CLI replays reasoning recorded by another model')]),
  );

  const codex = await runCli(env, ['convert', CODEX_WITH_SYSTEM, '--to', 'kilo']);
  expect(codex.code).toBe(0);
  expect(warningsOf(codex.err)).toEqual(
    expect.arrayContaining([expect.stringMatching(/: system messages have no Kilo CLI equivalent; left out$/)]),
  );

  for (const line of [...warningsOf(claude.err), ...warningsOf(codex.err)]) expect(line).not.toContain('OpenCode');
});

it("a kilo.db without Kilo's tables is named as Kilo's database in the error", async () => {
  const { env, dirs } = await fixtureHome({ prefix: 'tb-kilo-messages-', fixtures: ['claude', 'kilo'] });
  // an SQLite file with none of Kilo's tables (an empty file is a valid, empty SQLite database)
  writeFileSync(join(dirs.kilo, 'kilo.db'), '');
  const r = await runCli(env, ['convert', CLAUDE_WITH_THINKING, '--to', 'kilo']);
  expect(r.code).not.toBe(0);
  expect(r.err).toContain('not a Kilo CLI database this version can read');
  expect(r.err).not.toContain('OpenCode');
});
