/**
 * Options that contradict each other, or an agent named by --source that cannot do what is asked, are
 * refused from the command line alone, before any session is looked for: with an id no agent has,
 * the refusal is what is said, not "session not found". They were refused only after the session was
 * read (context --json with a text format; fork and branch of an agent that cannot) or silently
 * ignored (convert's --at beside --all-branches, --source beside --from; push's --from beside --source).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

/** Counting cats in pictures: a Claude Code session */
const ID = '11111111-1111-4111-8111-111111111111';
const MISSING = 'no-such-session';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ root, env } = await claudeOlderCliHome('tb-contradictions-'));
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

describe('convert and handoff', () => {
  it.each(['convert', 'handoff'])('%s --at with --all-branches is refused (--at was dropped)', async (command) => {
    await expectRefused(
      (id) => [command, id, '--to', 'pi', '--at', 'x', '--all-branches'],
      '--at converts the path to one entry and --all-branches every branch: give one of them',
    );
  });

  it('--from with --source or --no-index is refused (they were ignored)', async () => {
    const store = `sqlite:${join(root, 'no-such.db')}`;
    await expectRefused(
      (id) => ['convert', id, '--to', 'pi', '--from', store, '--source', 'claude'],
      `--from reads the session from ${store}, not from the agents' files --source looks in: give one or the other`,
    );
    await expectRefused(
      (id) => ['convert', id, '--to', 'pi', '--from', store, '--source', 'claude', '--no-index'],
      `--from reads the session from ${store}, not from the agents' files --source and --no-index look in: give one or the other`,
    );
    expect(existsSync(join(root, 'no-such.db'))).toBe(false);
  });
});

describe('fork and branch of an agent that cannot', () => {
  it('fork --source gemini: said before the session is looked for, with the command that writes a copy', async () => {
    await expectRefused(
      (id) => ['fork', id, '--source', 'gemini', '--at', 'e1'],
      'gemini sessions cannot be forked; `threadbase convert <id> --to gemini --at e1` writes a copy of it as a new session',
      1,
    );
  });

  it('branch --source codex: said before the session is looked for', async () => {
    await expectRefused(
      (id) => ['branch', id, '--source', 'codex', '--at', 'e1', '--message', 'm'],
      'codex cannot branch in place',
      1,
    );
  });
});

describe('push', () => {
  it('--source with --from is refused (--from was ignored)', async () => {
    const r = await runCli(env, ['push', '--to', 'http://127.0.0.1:9', '--key', 'k', '--source', 'claude', '--from', 'memory:']);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "threadbase: --source pushes claude's sessions from its own files and --from those of memory:: give one of them\n",
    );
    expect(r.err).not.toContain('cannot reach');
  });
});
