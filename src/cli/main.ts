import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { type DriverEnv, defaultDriverEnv } from '../model/driver.js';
import { ThreadbaseError } from '../model/errors.js';
import type { CliContext } from './io.js';
import { commandModuleFor, loadFormats } from './lazy-commands.js';

/** Exit codes: 0 done; 1 a failure while doing it; 2 a command line the CLI cannot take (usage). */
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** The installed package's version (src/cli and dist/cli both sit two levels below package.json). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

function programShell(out: Pick<CliContext, 'stdout' | 'stderr'>): Command {
  return new Command('threadbase')
    .description('sessions of AI coding agents: list, read, convert, fork, search, serve')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: out.stdout,
      writeErr: out.stderr,
      // commander's "error: missing required argument 'id'" said as the CLI's own errors are
      outputError: (message, write) => write(`threadbase: ${message.replace(/^(error|threadbase): /, '')}`),
    })
    .showHelpAfterError('(see threadbase --help)');
}

/**
 * After a command line error, the help of the command it was for: `(see threadbase token revoke --help)`,
 * each subcommand its own (commander gives every command the root's text otherwise).
 */
function pointToHelpAfterErrors(command: Command, path: string): void {
  for (const sub of command.commands) {
    const subPath = `${path} ${sub.name()}`;
    sub.showHelpAfterError(`(see ${subPath} --help)`);
    pointToHelpAfterErrors(sub, subPath);
  }
}

/**
 * The CLI with the commands `args` (the arguments after node and the script) need, every command
 * when not given; the commands and the agents' formats are loaded here, not at start-up.
 */
export async function buildProgram(ctx: CliContext, args?: readonly string[]): Promise<Command> {
  const program = programShell(ctx);
  const commands = commandModuleFor(args ?? []);
  if (commands) {
    await loadFormats();
    (await commands.load())(program, ctx);
    pointToHelpAfterErrors(program, 'threadbase');
    // loaded by every command's file already
    const { refuseEmptyValues } = await import('./options.js');
    program.hook('preAction', (_program, command) => refuseEmptyValues(command));
  }
  return program;
}

let quietOnClosedPipe = false;

/**
 * When what reads our output goes away (`threadbase sessions | head -1`), stop quietly, as a Unix tool
 * does on SIGPIPE, instead of an unhandled EPIPE error and its stack trace on stderr. When only what
 * reads stderr goes away (`threadbase search x 2>&1 >out | head -1`), the warnings are dropped and the
 * answer still printed (an unhandled EPIPE on stderr stopped the command, exit 1, stdout empty).
 */
function stopQuietlyOnClosedPipe(): void {
  if (quietOnClosedPipe) return;
  quietOnClosedPipe = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') return;
    throw err;
  });
}

/** Runs the CLI; resolves to the exit code. */
export async function main(argv: string[], env: DriverEnv = defaultDriverEnv()): Promise<number> {
  stopQuietlyOnClosedPipe();
  const args = argv.slice(2);
  // a bare --version: no command, so neither the context (the index's modules) nor a format is loaded
  if (!commandModuleFor(args)) return runProgram(programShell(processOutput), argv, processOutput);
  const { makeContext } = await import('./io.js');
  const ctx = makeContext(env);
  try {
    return await runProgram(await buildProgram(ctx, args), argv, ctx);
  } finally {
    await ctx.sources().close();
  }
}

const processOutput: Pick<CliContext, 'stdout' | 'stderr'> = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

async function runProgram(
  program: Command,
  argv: string[],
  ctx: Pick<CliContext, 'stdout' | 'stderr' | 'exitCode'>,
): Promise<number> {
  try {
    await program.parseAsync(argv);
    return ctx.exitCode ?? 0;
  } catch (err) {
    // commander throws only for the command line (an unknown option or command, a missing argument, a
    // value an option's parser refused, no command given) and for --help/--version (0): it exits 1 by
    // itself, where the CLI's own refusals (token revoke without --yes) exited 2
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : EXIT_USAGE;
    const msg = err instanceof ThreadbaseError || err instanceof Error ? err.message : String(err);
    ctx.stderr(`threadbase: ${msg}\n`);
    // options.js is loaded already: a command's file imports it
    const { UsageError } = await import('./options.js');
    return err instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE;
  }
}
