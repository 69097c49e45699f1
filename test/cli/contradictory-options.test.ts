/**
 * Options that contradict each other are refused from the command line alone, before any session is
 * looked for: with an id no agent has, the refusal is what is said, not "session not found". context
 * --json with a text format was refused only after the session was read.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';

/** Counting cats in pictures: a Claude Code session */
const ID = '11111111-1111-4111-8111-111111111111';
const MISSING = 'no-such-session';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-contradictions-'));
  await mkdir(join(root, '.claude'), { recursive: true });
  await cp(resolve('test/fixtures/claude/older/projects'), join(root, '.claude', 'projects'), { recursive: true });
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Refused with `message`, exit `code`, whether the session is there or not. */
async function expectRefused(args: (id: string) => string[], message: string, code = 2): Promise<void> {
  for (const id of [MISSING, ID]) {
    const r = await runCli(env, args(id));
    expect(r.code, r.err).toBe(code);
    expect(r.out).toBe('');
    expect(r.err).toBe(`threadbase: ${message.replaceAll('<id>', id)}\n`);
    expect(r.err).not.toContain('not found');
  }
}

describe('context --json with a format that prints text', () => {
  it('is refused before the session is looked for, naming the JSON formats', async () => {
    await expectRefused(
      (id) => ['context', id, '--format', 'markdown', '--json'],
      '--json: the markdown format is text, not JSON (JSON formats: anthropic, openai, ai-sdk, openai-responses, gemini)',
    );
  });

  it('--json with a JSON format, or with none, prints JSON; markdown without --json prints text', async () => {
    for (const args of [['--json'], ['--json', '--format', 'openai'], ['--format', 'gemini']]) {
      const out = await runCliOk(env, ['context', ID, ...args]);
      expect(JSON.stringify(JSON.parse(out))).toContain('cats');
    }
    expect(await runCliOk(env, ['context', ID, '--format', 'markdown'])).toContain('## user');
  });
});
