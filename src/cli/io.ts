/** Output conventions of the CLI: `--json` prints JSON only on stdout; warnings go to stderr. */

import { accessSync, closeSync, constants, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { Sources } from '../formats/registry.js';
import { makeDirectorySync } from '../formats/shared/atomic.js';
import type { DriverEnv, SessionDriver } from '../model/driver.js';
import { AmbiguousIdError, NotFoundError } from '../model/errors.js';
import { resolveEntryId } from '../model/tree.js';
import type { ParseWarning, Session } from '../model/types.js';
import { noteAgentWrite, type OpenedSession, openFreshIndex, openThroughIndex } from '../stores/index-sync/fresh.js';
import { indexPath } from '../stores/index-sync/sync.js';
import type { SqliteStore } from '../stores/sqlite/index.js';
import { drainOf, type TextSink, writeJson } from './json-out.js';

export interface CliContext {
  env: DriverEnv;
  /** writes to stdout; false when its buffer is full, as a stream's write (then wait for stdoutDrained) */
  stdout: (s: string) => boolean;
  /** resolves once stdout has taken what it buffered: large `--json` output goes at its reader's pace */
  stdoutDrained: () => Promise<void>;
  stderr: (s: string) => void;
  /** lazily opened sources of every registered format */
  sources(): Sources;
  /** the exit code of a command that finished but did not do all it was asked (push with failures) */
  exitCode?: number;
}

export function makeContext(env: DriverEnv): CliContext {
  let sources: Sources | undefined;
  const ctx: CliContext = {
    env,
    stdout: (s) => process.stdout.write(s),
    stdoutDrained: () => drainOf(process.stdout),
    stderr: (s) => process.stderr.write(s),
    sources: () => {
      sources ??= new Sources(env, {
        // the index learns of our own writes, so `search`/`stats` right after `convert` see them
        onWrite: (format) =>
          noteAgentWrite(env, format).catch((err: unknown) => {
            ctx.stderr(`threadbase: warning: the index could not be told of the write: ${(err as Error).message}\n`);
          }),
      });
      return sources;
    },
  };
  return ctx;
}

/**
 * A session by id or prefix, read by its agent's own driver: the id resolved through the index for the
 * stores it is fresh for (no listing of every agent's files), through the files for the rest and with
 * `useIndex` false (`--no-index`).
 */
export async function openSession(
  ctx: CliContext,
  id: string,
  source?: string,
  useIndex = true,
): Promise<Omit<OpenedSession, 'fromIndex'>> {
  try {
    const viaIndex = useIndex ? await openThroughIndex(ctx.env, ctx.sources(), id, source) : undefined;
    return viaIndex ?? (await ctx.sources().open(id, source));
  } catch (err) {
    const copies = err instanceof AmbiguousIdError ? await openOneOfCopies(ctx, err) : undefined;
    if (copies) return copies;
    if (err instanceof AmbiguousIdError && err.id === id) throw withWayOut(err, source);
    // no session has that id or prefix: say once which agents were searched ('pi session not found: x')
    if (err instanceof NotFoundError && err.id === id && err.message.startsWith('session not found')) {
      throw source
        ? new NotFoundError(`${source} session`, id)
        : new NotFoundError('session', id, {}, ctx.sources().names().join(', '));
    }
    throw err;
  }
}

/**
 * A prefix several sessions share, with the way to one of them: the candidates read `pi:01a2…`, which
 * no command takes as an id, and named no option to narrow them by.
 */
function withWayOut(err: AmbiguousIdError, source: string | undefined): AmbiguousIdError {
  const agents = [...new Set(err.candidates.map((c) => c.slice(0, c.indexOf(':'))))];
  const narrow = !source && agents.length > 1 ? `, or name its agent: --source ${agents.join('|')}` : '';
  err.message += `; give more of the id${narrow}`;
  return err;
}

/**
 * One agent's session found in several files under one id (a session file copied into another
 * project's folder): the one its driver reads, with a warning naming the files, as the index, which
 * keeps one session an id, answers; "id prefix matches 2 sessions: pi:x, pi:x" named no way out.
 */
async function openOneOfCopies(ctx: CliContext, err: AmbiguousIdError): Promise<Omit<OpenedSession, 'fromIndex'> | undefined> {
  const [candidate, ...others] = err.candidates;
  if (candidate === undefined || others.some((c) => c !== candidate)) return undefined;
  const colon = candidate.indexOf(':');
  const source = candidate.slice(0, colon);
  const id = candidate.slice(colon + 1);
  const driver = ctx.sources().driver(source);
  const session = await driver.getSession(id);
  if (!session) return undefined;
  const infos = (await ctx.sources().list({ source })).sessions.filter((s) => s.id === id);
  const info = infos.find((s) => s.path === session.path) ?? infos[0];
  if (!info) return undefined;
  const files = infos.map((s) => s.path ?? '?');
  warn(
    ctx,
    `${files.length} ${source} session files hold the id ${id} (${files.join(', ')}): reading ${session.path ?? info.path ?? '?'}`,
  );
  return { info, session, driver };
}

/** The entry `given` (an id or a unique prefix) names in `session`; not found names the session. */
export function resolveSessionEntry(session: Pick<Session, 'id' | 'source' | 'entries'>, given: string): string {
  try {
    return resolveEntryId(session.entries, given);
  } catch (err) {
    if (err instanceof NotFoundError && err.id === given)
      throw new NotFoundError('entry', given, {}, `${session.source} session ${session.id}`);
    throw err;
  }
}

/**
 * The local index's path ($THREADBASE_HOME/index.db) for a command that writes it (`sync`, `search`,
 * `stats`), checked first: its directory made, and the file a regular one that opens for reading and
 * writing (made when missing, as SQLite would). An unusable home (/proc, a file, a read-only place, an
 * index.db that is a FIFO) is refused naming the path; SQLite said only "unable to open database file"
 * or "disk I/O error". The commands that only read (`sessions`, `show`) never make the index and read
 * the agents' files without it; `make: false` checks a missing index's place without making it (`ui`).
 */
export function writableIndexPath(ctx: CliContext, opts: { make?: boolean } = {}): string {
  const path = indexPath(ctx.env);
  try {
    // ~/.threadbase is made in a home that is there: HOME=/nonexistent (a service account's) made
    // /nonexistent itself, and an empty HOME put the index in the current directory
    if (!ctx.env.env.THREADBASE_HOME) homeThatIsThere(ctx.env.home);
    // not mkdirSync's `recursive`: under /proc (THREADBASE_HOME=/proc/x) it never returned
    makeDirectorySync(dirname(path));
    // SQLite makes its -wal and -shm files beside the index: a folder it cannot write in failed with
    // "unable to open database file" even where the index itself could be written
    accessSync(dirname(path), constants.W_OK);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && !stat.isFile()) throw new Error('not a regular file');
    // an index that is there is not opened here: closing a descriptor of a SQLite file drops the locks
    // every connection of this process holds on it
    if (stat) accessSync(path, constants.R_OK | constants.W_OK);
    else if (opts.make === false) {
      // checked with a file of its own: a missing index stays missing (`ui` shows the agents' files then)
      const probe = `${path}.${process.pid}.probe`;
      closeSync(openSync(probe, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL));
      unlinkSync(probe);
    } else makeIndexFile(path);
  } catch (err) {
    const home = ctx.env.env.THREADBASE_HOME ? `THREADBASE_HOME=${dirname(path)}` : `${dirname(path)} (HOME/.threadbase)`;
    throw new Error(
      `the index ${path} cannot be made or opened (${(err as Error).message}): ${home} must be a directory threadbase can write in`,
    );
  }
  return path;
}

/**
 * Makes the missing index file. Another command may make it between the stat and this open (two
 * `sync`s, or `sync --watch` and a `search`, started at once on a new index): that file is taken as
 * one that was there, so checked, not opened (a descriptor closed would drop that process's locks).
 */
function makeIndexFile(path: string): void {
  try {
    closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (!statSync(path).isFile()) throw new Error('not a regular file');
    accessSync(path, constants.R_OK | constants.W_OK);
  }
}

/** Throws unless `home` is an absolute path to a directory that is there. */
function homeThatIsThere(home: string): void {
  if (!isAbsolute(home)) throw new Error(home ? `HOME=${home} is not an absolute path` : 'HOME is empty');
  if (!statSync(home, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`HOME=${home} is no directory; set THREADBASE_HOME`);
}

/** `--no-index` for the commands that open one session. */
export const NO_INDEX_FLAG = ['--no-index', "find the session through the agents' files even when the index is fresh"] as const;

/**
 * Whether stdout takes colour: a terminal, unless the user said no (`NO_COLOR` set and not empty, as
 * no-color.org asks) or the terminal cannot show it (`TERM=dumb`).
 */
export function colorOnStdout(ctx: CliContext): boolean {
  const { NO_COLOR, TERM } = ctx.env.env;
  return Boolean(process.stdout.isTTY) && !NO_COLOR && TERM !== 'dumb';
}

/**
 * The width a one-line view (`sessions`' titles, `show`'s entries) is cut to: on a terminal, $COLUMNS
 * when set (as ls takes it), else the terminal's width; none in a pipe, where a line stays whole for grep.
 */
export function terminalColumns(ctx: CliContext): number | undefined {
  if (!process.stdout.isTTY) return undefined;
  const given = Number(ctx.env.env.COLUMNS);
  return Number.isSafeInteger(given) && given > 0 ? given : process.stdout.columns || undefined;
}

/**
 * `value` on stdout as JSON.stringify(value, null, 2) and a newline, written in pieces at the reader's
 * pace: a large session's document was one string (twice the memory; over ~512 MB it threw).
 */
export function printJson(ctx: CliContext, value: unknown): Promise<void> {
  return writeJson(stdoutSink(ctx), value, { indent: 2, end: '\n' });
}

/** The command's stdout as a sink for pieces written at the reader's pace (json-out.ts writePieces). */
export function stdoutSink(ctx: CliContext): TextSink {
  return { write: ctx.stdout, drained: ctx.stdoutDrained };
}

export function warn(ctx: CliContext, message: string): void {
  ctx.stderr(`threadbase: warning: ${message}\n`);
}

/** A warning about a file, on stderr: `file:line: message (id)`. */
export function warnParse(ctx: CliContext, w: ParseWarning): void {
  warn(ctx, `${w.file}${w.line !== undefined ? `:${w.line}` : ''}: ${w.message}${w.id ? ` (${w.id})` : ''}`);
}

export function reportWarnings(ctx: CliContext, warnings: readonly ParseWarning[] | undefined): void {
  for (const w of warnings ?? []) warnParse(ctx, w);
}

/**
 * `--no-sync` on an index that holds none of the sessions asked about (never synced): says so, as
 * 'no matches' or an empty table would read as an answer. True when it said so.
 */
export async function warnIfNeverSynced(ctx: CliContext, index: SessionDriver, source?: string): Promise<boolean> {
  if ((await index.listSessions({ ...(source ? { source } : {}), limit: 1 })).length) return false;
  warn(ctx, `the index holds no ${source ? `${source} ` : ''}sessions: run \`threadbase sync\`, or leave out --no-sync`);
  return true;
}

/**
 * The local index for a command that answers from it (`search`, `stats`, `push`): its place checked
 * (writableIndexPath), brought up to date unless `--no-sync` (parse warnings said as they come), and,
 * with `--no-sync`, an index that holds none of the sessions asked about said so (warnIfNeverSynced:
 * `neverSynced`).
 */
export async function openCommandIndex(
  ctx: CliContext,
  opts: { sync: boolean; source?: string | undefined; maxAgeMs?: number },
): Promise<{ store: SqliteStore; neverSynced: boolean }> {
  writableIndexPath(ctx);
  const store = await openFreshIndex(ctx.env, ctx.sources(), {
    sync: opts.sync,
    ...(opts.source ? { formats: [opts.source] } : {}),
    ...(opts.maxAgeMs !== undefined ? { maxAgeMs: opts.maxAgeMs } : {}),
    onWarning: (w) => warnParse(ctx, w),
  });
  try {
    return { store, neverSynced: !opts.sync && (await warnIfNeverSynced(ctx, store, opts.source)) };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Resolves at the first SIGINT or SIGTERM (Ctrl-C), to that signal, for commands that run until stopped. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise<NodeJS.Signals>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * The exit code of a job a signal cut short (push) after closing cleanly, as a shell reports a process
 * the signal killed (128 + its number: 130 for Ctrl-C, 143 for SIGTERM). Commands whose way to end is
 * being stopped (serve, ui, sync --watch) exit 0.
 */
export function stoppedExitCode(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}
