/**
 * `handoff --to opencode` of a session whose model is of a provider OpenCode does not know (a pi
 * session's `standin/claude-standin`): the printed `opencode --session <id>` failed with "UnknownError …
 * Unexpected server error"; it now asks for `-m <provider/model>` and says why. A provider named in
 * OpenCode's config is taken as known, and the command printed as before.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;
let project: string;

beforeAll(async () => {
  ({ home: root, env } = await fixtureHome({ prefix: 'tb-polish-handoff-', fixtures: ['pi', 'opencode'] }));
  project = join(root, 'proj');
  await mkdir(project);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it('asks for -m when OpenCode knows no provider of the recorded model, and not once its config names it', async () => {
  const unknown = await runCli(env, ['handoff', PI_TOOL_CALL_ID, '--to', 'opencode', '--project', project]);
  expect(unknown.code, unknown.err).toBe(0);
  expect(unknown.out).toMatch(/resume it with:\n {2}cd .* && opencode --session '?ses_\S+'? -m <provider\/model>\n/);
  expect(unknown.out).toContain('model standin/claude-standin is one OpenCode cannot use here');
  const asJson = await runCli(env, ['handoff', PI_TOOL_CALL_ID, '--to', 'opencode', '--project', project, '--json']);
  const row = JSON.parse(asJson.out) as { command: string; note?: string };
  // the command a script runs stays runnable; the note says what it needs
  expect(row.command).not.toContain('-m');
  expect(row.note).toContain('-m <provider/model>');

  // the provider configured without that model: still unknown
  const config = join(root, '.config', 'opencode');
  await mkdir(config, { recursive: true });
  await writeFile(
    join(config, 'opencode.json'),
    JSON.stringify({ provider: { standin: { npm: '@ai-sdk/anthropic', models: { 'claude-test': {} } } } }),
  );
  const otherModel = await runCli(env, ['handoff', PI_TOOL_CALL_ID, '--to', 'opencode', '--project', project]);
  expect(otherModel.out).toContain('-m <provider/model>');
  await writeFile(
    join(config, 'opencode.json'),
    JSON.stringify({ provider: { standin: { npm: '@ai-sdk/anthropic', models: { 'claude-standin': {} } } } }),
  );
  const known = await runCli(env, ['handoff', PI_TOOL_CALL_ID, '--to', 'opencode', '--project', project]);
  expect(known.code, known.err).toBe(0);
  expect(known.out).toMatch(/resume it with:\n {2}cd .* && opencode --session '?ses_\S+'?\n$/);
  expect(known.out).not.toContain('cannot use');
});
