/** `convert --to` names and accepts exactly the agents threadbase can write into. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import '../../src/formats/all.js';
import '../../src/stores/local-source.js';
import { formatNames, Sources } from '../../src/formats/registry.js';
import { runCli } from '../helpers/cli.js';
import { homeEnv } from '../helpers/fixture-homes.js';

const env = homeEnv(mkdtempSync(join(tmpdir(), 'tb-convert-targets-')));

it('the help lists every agent whose driver writes, and a read-only agent is refused before any reading', async () => {
  const sources = new Sources(env);
  const writable = formatNames().filter((n) => sources.driver(n).capabilities.write);
  const readOnly = formatNames().filter((n) => !writable.includes(n));
  expect(writable).toEqual(
    expect.arrayContaining([
      'claude',
      'pi',
      'opencode',
      'codex',
      'gemini',
      'qwen',
      'cline',
      'copilot',
      'continue',
      'kilo',
      'threadbase',
    ]),
  );
  expect(readOnly).toContain('zed');

  const help = await runCli(env, ['convert', '--help']);
  const line = help.out.replace(/\s+/g, ' ').match(/--to <agent> ([a-z, ]+)/)?.[1] ?? '';
  expect(new Set(line.split(/, ?/).map((s) => s.trim()))).toEqual(new Set(writable));

  for (const agent of readOnly) {
    const r = await runCli(env, ['convert', 'no-such-session', '--to', agent]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(`argument '${agent}' is invalid`);
    expect(r.err).not.toContain('session not found');
  }
});
