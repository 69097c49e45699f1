/**
 * What a new user meets walking through the CLI on real agent sessions (fixtures copied where the
 * agents keep them): the terminal conventions, the error paths, and the options as the help and the
 * README promise them.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeContext } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/main.js';
import { contextFormatNames } from '../../src/convert/formats.js';
import { writableFormatNames } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-new-user-', fixtures: ['claude', 'piAll'] }));
  env = { home: root, env: { HOME: root } };
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Runs `fn` with stdout taken for a terminal. */
async function onTerminal<T>(fn: () => Promise<T>): Promise<T> {
  const tty = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  try {
    return await fn();
  } finally {
    if (tty) Object.defineProperty(process.stdout, 'isTTY', tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  }
}

describe('search on a terminal', () => {
  const search = (extra: Record<string, string>) =>
    onTerminal(() =>
      runCliOk({ home: root, env: { HOME: root, ...extra } }, ['search', 'harness', '--source', 'claude', '--no-sync']),
    );

  it('colours the hits by default', async () => {
    expect(await search({})).toContain('\x1b[1;33mharness\x1b[0m');
  });

  it('prints no colour codes under NO_COLOR or TERM=dumb, the hits marked as in a pipe', async () => {
    for (const extra of [{ NO_COLOR: '1' }, { TERM: 'dumb' }] as Record<string, string>[]) {
      const out = await search(extra);
      expect(out).toContain('[harness]');
      expect(out).not.toContain('\x1b[');
    }
    // an empty NO_COLOR is no request (no-color.org)
    expect(await search({ NO_COLOR: '' })).toContain('\x1b[1;33m');
  });
});

describe('sync --source and push --source name agents as the other commands do', () => {
  it.each([
    ['sync', '--source', 'claude,claud'],
    ['sync', '--source', ','],
    ['push', '--to', 'http://127.0.0.1:9', '--key', 'k', '--source', 'claud'],
  ])('%s refuses an agent it does not know, naming those it knows (%s %s)', async (...args) => {
    // a home of its own: the refusal comes before any index is made
    const fresh = join(root, 'other-home');
    const r = await runCli({ home: fresh, env: { HOME: fresh } }, [...args, '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--source <\w+>.*invalid.*Known agents: .*claude.*pi/);
    expect(existsSync(join(fresh, '.threadbase'))).toBe(false);
  });

  it('sync takes a list, spaces around the names too', async () => {
    const report = JSON.parse(await runCliOk(env, ['sync', '--source', ' claude, pi', '--json'])) as { units: number };
    const listed = JSON.parse(await runCliOk(env, ['sessions', '--json', '--no-index'])) as { source: string }[];
    expect(report.units).toBe(listed.filter((s) => s.source === 'claude' || s.source === 'pi').length);
  });
});

describe('an entry that is not in the session', () => {
  const PI_ID = '0190aaaa-1111-7000-8000-000000000001';

  it.each([
    ['convert', '--to', 'pi', '--at'],
    ['handoff', '--to', 'claude', '--at'],
    ['fork', '--at'],
    ['context', '--leaf'],
  ])('%s names the session it looked in, as show and context do', async (command, ...flags) => {
    const r = await runCli(env, [command, PI_ID, ...flags, 'zzzz']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(`threadbase: entry not found: zzzz (searched pi session ${PI_ID})\n`);
  });
});

describe('ui --port', () => {
  it('refuses a value that is no port, as serve does, instead of the number it starts with', async () => {
    // a port in use, so that taking "<port>x" for <port> fails at once instead of serving
    const busy: Server = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    try {
      for (const value of [`${port}x`, `${port}.5`, '70000']) {
        const r = await runCli(env, ['ui', '--port', value, '--no-open', '--store', 'memory:']);
        expect(r.code).toBe(2);
        expect(r.out).toBe('');
        expect(r.err).toContain(`option '--port <port>' argument '${value}' is invalid. Expected a port, 0 to 65535`);
      }
    } finally {
      await new Promise((done) => busy.close(done));
    }
  });
});

describe('a --since after the --until', () => {
  it.each([
    ['stats', '--since', '2026-11-26', '--until', '2026-11-25'],
    ['search', 'hello', '--since', '2026-11-26T10:00:00Z', '--until', '2026-11-26T11:00:00+02:00'],
  ])('%s refuses it, naming both, instead of an empty answer', async (...args) => {
    const r = await runCli(env, [...args, '--no-sync', '--json']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^threadbase: --since \S+ is after --until \S+: no time lies between them\n$/);
  });

  it('a date alone as both is that whole day, and taken', async () => {
    const r = await runCli(env, ['stats', '--since', '2026-11-22', '--until', '2026-11-22', '--no-sync', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(expect.any(Array));
  });
});

describe("the README's command lines", () => {
  // the command lines of its code blocks
  const lines = readFileSync('README.md', 'utf8')
    .split('```')
    .filter((_, i) => i % 2 === 1)
    .flatMap((block) => block.split('\n'))
    .filter((l) => /^threadbase [a-z]+ /.test(l));
  let program: Command;
  beforeAll(async () => {
    program = await buildProgram(makeContext({ home: '/nonexistent', env: {} }));
  });
  const commandOf = (line: string): Command | undefined => {
    const [, name, sub] = line.split(' ');
    const c = program.commands.find((x) => x.name() === name);
    return sub && c?.commands.length ? c.commands.find((x) => x.name() === sub) : c;
  };

  it('name every command, and only options it takes', () => {
    const named = new Set(lines.map((l) => l.split(' ')[1]));
    expect(program.commands.map((c) => c.name()).filter((n) => !named.has(n))).toEqual([]);
    for (const line of lines) {
      const command = commandOf(line);
      expect(command, line).toBeDefined();
      const flags = new Set(command?.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
      const synopsis = line.split('#')[0] ?? '';
      for (const flag of synopsis.match(/(?<=[\s[])--?[a-z][a-z-]*/g) ?? []) expect(flags, `${flag} in ${line}`).toContain(flag);
    }
  });

  it('list the context formats and the conversion targets there are', () => {
    const choices = (command: string, flag: string) =>
      new Set(
        lines
          .find((l) => l.startsWith(`threadbase ${command} `))
          ?.match(new RegExp(`${flag} ([a-z|-]+)`))?.[1]
          ?.split('|'),
      );
    expect(choices('context', '--format')).toEqual(new Set(contextFormatNames()));
    expect(choices('convert', '--to')).toEqual(new Set(writableFormatNames()));
  });
});

describe('one session in two files (a pi session file copied into another project folder)', () => {
  let copies: string;
  let copiesEnv: DriverEnv;

  beforeAll(async () => {
    // `pi` puts the session under --proj--, `piAll` a copy of the same file under --work-proj--
    ({ home: copies } = await fixtureHome({ prefix: 'tb-new-user-copies-', fixtures: ['pi', 'piAll'] }));
    copiesEnv = { home: copies, env: { HOME: copies } };
  });

  afterAll(async () => {
    if (copies) await rm(copies, { recursive: true, force: true });
  });

  it.each([
    ['show', '--json'],
    ['export', '--format', 'json'],
    ['context', '--json'],
  ])('%s reads one of them, naming both files, instead of calling the id ambiguous', async (command, ...flags) => {
    for (const given of [PI_TOOL_CALL_ID, PI_TOOL_CALL_ID.slice(0, 8)]) {
      const r = await runCli(copiesEnv, [command, given, '--no-index', ...flags]);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toBeTruthy();
      const warning = r.err.split('\n').find((l) => l.includes('session files hold the id'));
      expect(warning).toContain(`2 pi session files hold the id ${PI_TOOL_CALL_ID} (`);
      expect(warning).toContain(join(copies, '.pi/agent/sessions/--proj--/'));
      expect(warning).toContain(join(copies, '.pi/agent/sessions/--work-proj--/real-tool-call.jsonl'));
    }
  });
});

describe('fork of an agent whose sessions cannot be forked', () => {
  let home: string;
  let homeEnv: DriverEnv;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'tb-new-user-fork-', fixtures: ['gemini', 'zed'] }));
    homeEnv = { home, env: { HOME: home } };
  });

  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  const first = async (source: string) =>
    (JSON.parse(await runCliOk(homeEnv, ['sessions', '--source', source, '--json'])) as { id: string }[])[0]?.id ?? '';

  it('names the command that writes a copy when threadbase can write into that agent, and that command works', async () => {
    const id = await first('gemini');
    const r = await runCli(homeEnv, ['fork', id]);
    expect(r.code).toBe(1);
    const command = r.err.match(/`threadbase (convert [^`]+)`/)?.[1];
    expect(command).toBe(`convert ${id} --to gemini`);
    const copy = JSON.parse(await runCliOk(homeEnv, [...(command ?? '').split(' '), '--json'])) as { source: string };
    expect(copy.source).toBe('gemini');
  });

  it('says only that it cannot for a read-only agent', async () => {
    const r = await runCli(homeEnv, ['fork', await first('zed')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe('threadbase: zed sessions cannot be forked\n');
  });
});

describe('stderr closed, stdout read (`threadbase sessions 2>&1 >out | head -1`)', () => {
  it('drops the warnings and still prints the answer, exit 0', async () => {
    // the pi fixtures hold damaged lines: their warnings are written before the first session
    const child = spawn(process.execPath, ['--import', 'tsx', resolve('src/cli/run.ts'), 'sessions', '--no-index'], {
      env: { PATH: process.env.PATH, HOME: root },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.destroy();
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((done) => child.on('close', (c) => done(c)));
    expect(code).toBe(0);
    const listed = JSON.parse(await runCliOk(env, ['sessions', '--no-index', '--json'])) as unknown[];
    expect(out.trimEnd().split('\n')).toHaveLength(listed.length);
  }, 30_000);
});

describe("escape sequences in a session's text (a tool's coloured output, a pasted terminal line)", () => {
  let home: string;
  let homeEnv: DriverEnv;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'tb-new-user-escapes-'));
    homeEnv = { home, env: { HOME: home } };
    // pi's session with its prompt coloured past the 70 characters a one-line view keeps, so the cut
    // drops the reset, and a window-title sequence in the tool's output
    const lines = (await readFile('test/fixtures/pi/real-tool-call.jsonl', 'utf8'))
      .replace('RUN: echo hi > out.txt', `\\u001b[31mRUN: echo ${'red '.repeat(25)}\\u001b[0m`)
      .replace('(no output)', '\\u001b]0;pwned\\u0007(no output)');
    const dir = join(home, '.pi/agent/sessions/--proj--');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `2026-11-22T19-09-17-237Z_${PI_TOOL_CALL_ID}.jsonl`), lines);
  });

  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('are left out of the one-line views: sessions, show, show --tree, search', async () => {
    const shown = await runCliOk(homeEnv, ['show', PI_TOOL_CALL_ID, '--no-index']);
    expect(shown).toContain('user: RUN: echo red red');
    for (const args of [
      ['sessions', '--no-index'],
      ['show', PI_TOOL_CALL_ID, '--no-index'],
      ['show', PI_TOOL_CALL_ID, '--no-index', '--tree'],
      ['search', 'red'],
      ['search', 'output', '--role', 'tool'],
    ]) {
      const out = await onTerminal(() => runCliOk({ home, env: { HOME: home, NO_COLOR: '1' } }, args));
      expect(out.trim(), args.join(' ')).not.toBe('');
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters it must not find
      expect(out, args.join(' ')).not.toMatch(/[\x00-\x08\x0e-\x1f\x7f-\x9f]/);
    }
  });
});
