/**
 * The CLI loads a command's modules when that command is run: `--version` loads no command and no
 * agent format, `sessions` its own file and the formats but not the other commands', the server's,
 * the exporters' or the converters' commands (a loader hook records every module the real process
 * loads). Before, every start-up loaded every command and format (`--version` ≈ 0.5 s). Reading loads
 * no format's write-only code (its encoder, proper-lockfile, smol-toml).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import stringWidthOfPackage from 'string-width';
import { afterAll, describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/cli/commands/index.js';
import { makeContext } from '../../src/cli/io.js';
import { COMMAND_MODULES, commandModuleFor } from '../../src/cli/lazy-commands.js';
import { stringWidth } from '../../src/cli/lazy-string-width.js';
import '../../src/formats/all.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'tb-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// the hooks run in their own thread: each module's URL is appended to $TB_LOADED as it loads
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  const loaded = await next(url, context);
  appendFileSync(process.env.TB_LOADED, url + '\\n');
  return loaded;
}
`,
);
writeFileSync(
  join(dir, 'register.mjs'),
  `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
);

let runs = 0;

/** The files of this repository (relative to it) and the packages `threadbase <args>` loaded. */
function loadedBy(args: string[]): { code: number | null; stdout: string; files: string[]; packages: Set<string> } {
  const record = join(dir, `loaded-${++runs}.txt`);
  const home = mkdtempSync(join(dir, 'home-'));
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, 'src/cli/run.ts', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home, THREADBASE_HOME: join(home, '.tb'), TB_LOADED: record },
    },
  );
  const urls = readFileSync(record, 'utf8').split('\n').filter(Boolean);
  const paths = urls.filter((u) => u.startsWith('file:')).map((u) => new URL(u).pathname);
  const files = paths.filter((p) => p.startsWith(`${ROOT}/src/`)).map((p) => p.slice(ROOT.length + 1));
  const packages = new Set(
    paths.flatMap((p) => {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
      return m?.[1] ? [m[1]] : [];
    }),
  );
  return { code: r.status, stdout: r.stdout, files, packages };
}

const HEAVY_PACKAGES = ['hono', '@hono/node-server', 'zod', 'pg', 'playwright-core', 'cli-progress'];

describe('what the CLI loads at start-up', () => {
  it('--version: the version, and no command, agent format or index module', () => {
    const { code, stdout, files, packages } = loadedBy(['--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+/);
    expect(files).toContain('src/cli/main.ts');
    expect(files.filter((f) => /^src\/(cli\/commands|cli\/io|formats|stores|convert|export|server)\b/.test(f))).toEqual([]);
    expect([...packages]).toEqual(['commander']);
  });

  it("sessions: its own command and the agents' formats, not the other commands, the server or the exporters", () => {
    const { code, files, packages } = loadedBy(['sessions']);
    expect(code).toBe(0);
    expect(files).toContain('src/cli/commands/sessions.ts');
    expect(files).toContain('src/formats/claude/driver.ts');
    expect(files).toContain('src/stores/local-source.ts');
    expect(files.filter((f) => f.startsWith('src/cli/commands/') && f !== 'src/cli/commands/sessions.ts')).toEqual([]);
    expect(files.filter((f) => /^src\/(server|export)\//.test(f))).toEqual([]);
    expect([...packages].filter((p) => HEAVY_PACKAGES.includes(p))).toEqual([]);
    // nothing to measure but ASCII: string-width (its segmenter and emoji expression) is not loaded
    expect(packages.has('string-width')).toBe(false);
    // reading writes nothing: a driver imports its encoder, and the lock and TOML libraries, when it writes
    // (kilo takes opencode's driver, context, records and losses, not opencode's index, which exports its encoder)
    expect(
      files.filter((f) => /^src\/formats\/(claude|continue|copilot|gemini|pi|qwen|opencode)\/(encode|export)\.ts$/.test(f)),
    ).toEqual([]);
    expect([...packages].filter((p) => ['proper-lockfile', 'smol-toml'].includes(p))).toEqual([]);
  });

  it('--help: every command, as before', () => {
    const { code, stdout, files } = loadedBy(['--help']);
    expect(code).toBe(0);
    expect(files).toContain('src/cli/commands/index.ts');
    for (const { names } of COMMAND_MODULES) for (const name of names) expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });
});

describe('the commands each lazily loaded file registers', () => {
  const ctx = makeContext({ home: '/nonexistent', env: {} });
  const namesOf = (program: Command) => program.commands.flatMap((c) => [c.name(), ...c.aliases()]);

  it('are the names the dispatch looks for, and together every command in the order --help lists them', async () => {
    const all = new Command('threadbase');
    registerCommands(all, ctx);
    const lazily: string[] = [];
    for (const m of COMMAND_MODULES) {
      const program = new Command('threadbase');
      (await m.load())(program, ctx);
      expect(namesOf(program), m.names.join(', ')).toEqual(m.names);
      lazily.push(...namesOf(program));
    }
    expect(lazily).toEqual(namesOf(all));
  });

  it('a command line naming a command loads its file; a bare --version none; anything else every command', () => {
    expect(commandModuleFor(['show', 'x'])?.names).toEqual(['show', 'context']);
    expect(commandModuleFor(['context', 'x'])?.names).toEqual(['show', 'context']);
    expect(commandModuleFor(['--version'])).toBeUndefined();
    expect(commandModuleFor(['-V'])).toBeUndefined();
    for (const args of [[], ['--help'], ['-h', 'sessions'], ['help', 'sessions'], ['sesions'], ['--version', 'sessions']])
      expect(commandModuleFor(args)?.names, args.join(' ')).toEqual([]);
  });
});

describe('the width of a text, string-width loaded when a text is not all printable ASCII', () => {
  it("is string-width's answer", () => {
    const texts = [
      '',
      'abc',
      'a b~',
      '日本語',
      'e\u0301',
      '👍🏽 ok',
      '👨‍👩‍👧',
      'tab\there',
      '\x1b[31mred\x1b[0m',
      'ｶﾞ',
      '\u200b',
      '\x7f',
      'Ä',
    ];
    for (const text of texts) expect(stringWidth(text), JSON.stringify(text)).toBe(stringWidthOfPackage(text));
  });
});
