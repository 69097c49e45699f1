/**
 * Exit codes, as a script tells what went wrong: 2 for a command line the CLI cannot take (commander's
 * usage errors exited 1, the same as a session not found, while the CLI's own refusals exited 2), 1 for
 * a failure while doing what was asked, 0 for done (help and version included).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-exit-codes-'));
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Every command with the arguments it needs, so that only what is added makes the line wrong. */
const COMMANDS: string[][] = [
  ['sessions'],
  ['show', 'x'],
  ['context', 'x'],
  ['convert', 'x', '--to', 'pi'],
  ['handoff', 'x', '--to', 'pi'],
  ['fork', 'x'],
  ['branch', 'x', '--at', 'y', '--message', 'm'],
  ['ui', '--no-open'],
  ['serve', '--db', 'memory:'],
  ['token', 'create', '--project', 'p'],
  ['token', 'list'],
  ['token', 'revoke', 'k'],
  ['push', '--to', 'http://127.0.0.1:9'],
  ['sync'],
  ['search', 'x'],
  ['stats'],
  ['export', 'x'],
];

describe('a usage error exits 2', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args] as const))('%s with an unknown option', async (_, args) => {
    const r = await runCli(env, [...args, '--no-such-option']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    // said as the CLI's own errors are, with the way to the command's help
    const command = args.slice(0, args[0] === 'token' ? 2 : 1).join(' ');
    expect(r.err).toBe(`threadbase: unknown option '--no-such-option'\n(see threadbase ${command} --help)\n`);
  });

  it.each([
    [['show'], "threadbase: missing required argument 'id'", 'show'],
    [['convert', 'x'], "threadbase: required option '--to <agent>' not specified", 'convert'],
    [['stats', '--by', 'hour'], "threadbase: option '--by <key>' argument 'hour' is invalid.", 'stats'],
    [['export', 'x', '--format', 'pdf'], "threadbase: option '--format <format>' argument 'pdf' is invalid.", 'export'],
    [['sessions', 'extra'], "threadbase: too many arguments for 'sessions'", 'sessions'],
    [['search'], "threadbase: missing required argument 'query'", 'search'],
    [['no-such-command'], "threadbase: unknown command 'no-such-command'", ''],
  ])('%j', async (args, message, command) => {
    const r = await runCli(env, args);
    expect(r.code).toBe(2);
    expect(r.err.startsWith(message)).toBe(true);
    expect(r.err.endsWith(`\n(see threadbase ${command ? `${command} ` : ''}--help)\n`)).toBe(true);
  });

  it('no command: the help, on stderr', async () => {
    for (const args of [[], ['token']]) {
      const r = await runCli(env, args);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toContain('Usage: threadbase');
    }
  });

  it.each([
    [['branch', 'x', '--at', 'y'], 'give --summary and/or --message'],
    [['stats', '--since', '2026-11-26', '--until', '2026-11-25'], 'is after --until'],
    [['token', 'list', '--db', 'memory:'], 'memory: holds no keys'],
    [['push', '--to', 'http://127.0.0.1:9', '--source', 'pi'], 'no API key'],
  ])("the CLI's own refusal %j", async (args, message) => {
    const r = await runCli(env, args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^threadbase: .*${message}`));
    // refused before anything was made
    expect(existsSync(join(root, '.tb'))).toBe(false);
  });
});

describe('a failure while doing it exits 1, help and version 0', () => {
  it('a session not found', async () => {
    const r = await runCli(env, ['show', 'no-such-session', '--no-index']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^threadbase: session not found: no-such-session/);
  });

  it.each([['--help'], ['--version'], ['help', 'stats'], ['stats', '--help']])('%s', async (...args) => {
    const r = await runCli(env, args);
    expect(r.code).toBe(0);
    expect(r.out).not.toBe('');
  });
});
