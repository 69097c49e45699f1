/**
 * An empty argument or option value, as a script passes an unset variable (`threadbase show "$ID"`),
 * is a usage error (exit 2) before anything is read or written: `show ''` answered that the prefix ""
 * matches every session, `--at ''` "entry not found: " (exit 1), and `--project ''` meant the
 * current directory, so `sessions --project "$DIR"` listed that one's sessions or none, exit 0.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

const ID = '11111111-1111-4111-8111-111111111111';
let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-empty-values-'));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it.each([
  [['show', '']],
  [['context', '']],
  [['export', '', '--format', 'md']],
  [['fork', '']],
  [['convert', '', '--to', 'pi']],
  [['handoff', '', '--to', 'pi']],
  [['branch', '', '--at', 'x', '--message', 'm']],
  [['token', 'revoke', '', '--yes']],
  [['show', ID, '--at', '']],
  [['context', ID, '--leaf', '']],
  [['fork', ID, '--at', '']],
  [['convert', ID, '--to', 'pi', '--at', '']],
  [['branch', ID, '--at', '', '--message', 'm']],
  [['convert', ID, '--to', 'pi', '--project', '']],
  [['convert', ID, '--to', 'pi', '--from', '']],
  [['sessions', '--project', '']],
  [['search', 'cats', '--project', '']],
  [['stats', '--project', '']],
])('refuses an empty value: %j', async (args) => {
  const r = await runCli(env, args);
  expect(r.err).toMatch(/is empty|Expected a directory/);
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
});

it('takes the same commands with the values given', async () => {
  const shown = await runCli(env, ['show', '11111111']);
  expect(shown.code, shown.err).toBe(0);
  const listed = await runCli(env, ['sessions', '--project', '/work/proj.a']);
  expect(listed.code, listed.err).toBe(0);
  expect(listed.out).toContain('Counting cats in pictures');
});
