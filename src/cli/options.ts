/**
 * Parsers of option values shared by the commands: a bad value is refused with commander's own
 * "option '--x <v>' argument 'y' is invalid" error (exit 2, a usage error) instead of being passed on,
 * where it would match nothing or fail deep inside a query.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { formatNames, writableFormatNames } from '../formats/registry.js';
import type { DriverEnv } from '../model/driver.js';
import { knownTimeZone, localTimeZone, readTimeWindow, type TimeWindowRefusal, wallClockAt } from '../model/time-window.js';
import { loadPrices, type PriceTable } from '../stores/index-sync/prices.js';
import { sqliteFileOf, storeKindOf, threadbaseHome } from '../stores/open.js';
import { isServerUrl, serverKeyOf } from '../stores/remote/address.js';

/**
 * A command line the CLI cannot take, found by the CLI itself rather than by commander (contradictory
 * options, an option naming a file that is not there): exit 2, as commander's usage errors, where a
 * failure while doing what was asked exits 1. Thrown before any store is opened or session read.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

const NOT_A_TIME = 'Expected an ISO date or time, e.g. 2026-11-25 or 2026-11-25T14:00:00Z.';
const NOT_A_ZONE = 'Expected an IANA time zone, e.g. Europe/Berlin, America/Los_Angeles or UTC.';

/** `--tz <zone>`: an IANA time zone name this runtime knows (UTC too), as given. */
export function timeZoneOption(value: string): string {
  if (!knownTimeZone(value)) throw new InvalidArgumentError(NOT_A_ZONE);
  return value;
}

/**
 * `--since T` / `--until T`: an ISO date or time (model/time-window.ts), checked here and kept as
 * written, to be read in the zone given later (`--tz`) by zonedWindow.
 */
export function zonedTimeOption(value: string): string {
  // whether it names a time does not hang on the zone: read in UTC here, in --tz's by zonedWindow
  if (!readTimeWindow({ since: value }).ok) throw new InvalidArgumentError(NOT_A_TIME);
  return value.trim();
}

/** `--since <time>`: only `what` (e.g. 'entries at or after') it, read in `--tz`'s zone by zonedWindow. */
export function sinceFlag(what: string): Option {
  return new Option('--since <time>', `only ${what} (ISO date or time; without an offset, --tz's)`).argParser(zonedTimeOption);
}

/** `--until <time>`: only `what` (e.g. 'entries at or before') it; a date counts through its end. */
export function untilFlag(what: string): Option {
  return new Option(
    '--until <time>',
    `only ${what} (ISO date or time; without an offset, --tz's; a date: through its end)`,
  ).argParser(zonedTimeOption);
}

/** `--tz <zone>` of sessions, search and push: the zone the dates and times without an offset of `of` are (push has no --until). */
export function timeZoneFlag(of = '--since/--until'): Option {
  return new Option(
    '--tz <zone>',
    `the time zone of ${of} dates and times without an offset (IANA name or UTC; default: this machine's)`,
  ).argParser(timeZoneOption);
}

/**
 * A stored time (UTC) as `YYYY-MM-DDTHH:MM` on the clock of `tz` (default this machine's zone), as the
 * text listings print it: the zone `--since`/`--until` read a date in, so a row listed on a day is one
 * `--since` that day keeps. A time that is no ISO time is cut as it is.
 */
export function listedTime(iso: string, tz?: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso.slice(0, 16);
  return new Date(wallClockAt(tz ?? localTimeZone(), t)).toISOString().slice(0, 16);
}

/**
 * `--since`/`--until` as zonedTimeOption took them, read in `tz` (default this machine's zone, as git
 * and stats read a date) by readTimeWindow: the UTC instants a store filters by; a --since after the
 * --until refused (a usage error), as are a time or zone the option parsers would have refused.
 */
export function zonedWindow(opts: { since?: string; until?: string; tz?: string }): { since?: string; until?: string } {
  const window = readTimeWindow({ since: opts.since, until: opts.until, timeZone: opts.tz ?? localTimeZone() });
  if (!window.ok) throw new UsageError(usageErrorOf(window));
  return { ...(window.since ? { since: window.since } : {}), ...(window.until ? { until: window.until } : {}) };
}

/** A refused window in the CLI's words: the option and its value, as commander names a bad one. */
function usageErrorOf(refusal: TimeWindowRefusal): string {
  switch (refusal.reason) {
    case 'since-after-until':
      // a window with nothing in it would print an empty answer that reads as "nothing happened then"
      return `--since ${refusal.since} is after --until ${refusal.until}: no time lies between them`;
    case 'not-a-time':
      return `--${refusal.field} ${JSON.stringify(refusal.value)}: ${NOT_A_TIME}`;
    case 'unknown-zone':
      return `--tz ${JSON.stringify(refusal.value)}: ${NOT_A_ZONE}`;
  }
}

/** `--limit n` and other counts: a whole number of at least 1. */
export function positiveIntOption(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('Expected a whole number of at least 1.');
  return n;
}

/** `--source A`, `--to A`: an agent threadbase knows (a misspelt one said "session not found" or listed nothing). */
export function agentOption(value: string): string {
  const known = formatNames();
  if (!known.includes(value)) throw new InvalidArgumentError(`Known agents: ${known.join(', ')}.`);
  return value;
}

/** `sync --source a,b`: agents threadbase knows, comma-separated (a misspelt one stopped it as "format not found"). */
export function agentListOption(value: string): string[] {
  const known = formatNames();
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length || !names.length)
    throw new InvalidArgumentError(
      `${unknown.length ? `Unknown: ${unknown.join(', ')}. ` : ''}Known agents: ${known.join(', ')}.`,
    );
  return names;
}

/** `convert --to A`: an agent threadbase can write into (a read-only one is refused here, not after reading). */
export function targetOption(value: string): string {
  const known = writableFormatNames();
  if (!known.includes(value)) throw new InvalidArgumentError(`Agents threadbase writes into: ${known.join(', ')}.`);
  return value;
}

/**
 * A parser taking one of `values` (`stats --by`, `export --format`): another is refused as the other
 * option values are, by commander (it was refused after the index was opened, in words of its own).
 */
export function oneOfOption(values: readonly string[]): (value: string) => string {
  return (value) => {
    if (!values.includes(value)) throw new InvalidArgumentError(`Expected one of ${values.join(', ')}.`);
    return value;
  };
}

/** `search --role R`: a message's role (any other matched nothing). */
export const roleOption = oneOfOption(['user', 'assistant', 'tool', 'system']);

/**
 * `--project P`: the directory as agents record it, absolute with no trailing slash (`.` is the current
 * directory; `~/app/` from a shell's completion matched nothing). A Windows path is taken as it is.
 */
export function projectOption(value: string): string {
  // resolve('') is the current directory: an unset variable ("$DIR") named it unseen
  if (value === '') throw new InvalidArgumentError('Expected a directory (. is the current one).');
  return /^[A-Za-z]:[\\/]|^\\\\/.test(value) ? value : resolve(value);
}

/**
 * `--prices FILE`: a price table that is there and reads as one, refused (exit 2) before anything is
 * read: a missing file or a directory was passed over (the bundled prices used as if given), and a
 * file of bad JSON stopped the command with exit 1 only after `export` had read the session.
 * The option's value is the table, read once: the check read the file, then the command again, so
 * `--prices <(…)` (a pipe, read to its end by the check) waited for the second read forever.
 */
export function pricesFileOption(value: string): PriceTable {
  if (!existsSync(value)) throw new InvalidArgumentError('No such file.');
  try {
    // loadPrices passes over a file it cannot read (a missing $THREADBASE_HOME/prices.json is no error)
    if (statSync(value).isDirectory()) throw new Error(`${value} is a directory`);
    accessSync(value, constants.R_OK);
    return loadPrices(value);
  } catch (err) {
    throw new InvalidArgumentError(`Not a price table: ${(err as Error).message}`);
  }
}

/** The prices a command counts costs by: `--prices`' table, else the bundled one under $THREADBASE_HOME/prices.json. */
export function pricesOf(given: PriceTable | undefined, env: DriverEnv): PriceTable {
  return given ?? loadPrices(join(threadbaseHome(env), 'prices.json'));
}

/**
 * `push --to URL`: a server's http(s) URL, by the rule the store options (`--from`) take one
 * (isServerUrl). Another value (`localhost:8029`, `ftp://…`) failed only when the push ran, as a
 * server it "cannot reach" (exit 1).
 */
export function serverUrlOption(value: string): string {
  if (!isServerUrl(value))
    throw new InvalidArgumentError("Expected a server's URL, e.g. http://127.0.0.1:8029 (http:// or https://, in lower case).");
  return value;
}

/**
 * `serve --db`, `token --db`: a SQLite file (a path, `sqlite:PATH`, `file:PATH`), `postgres://…` or
 * `memory:`. A value that reads as a URL of another kind (`sqlit:/x`, `postgress://…`, `https://…`)
 * was taken as a relative file name: a new SQLite database (and a folder `sqlit:`) in the current
 * directory, served as if it were the one meant.
 */
export function dbOption(value: string): string {
  const kind = storeKindOf(value, { fileNames: true });
  if (kind === undefined || kind === 'remote')
    throw new InvalidArgumentError(
      `Not a database threadbase opens (${value.slice(0, value.indexOf(':') + 1)}): a SQLite file (PATH, sqlite:PATH), postgres://… or memory: (a file whose name holds a colon: ./NAME).`,
    );
  return value;
}

/** `--port n`: 0 (any free port) to 65535. */
export function portOption(value: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n > 65535) throw new InvalidArgumentError('Expected a port, 0 to 65535 (0: any free one).');
  return n;
}

/**
 * A store to read from (`--from`, `ui --store`): a URL of a kind threadbase opens, and one named by its
 * file (`sqlite:PATH`, `file:PATH`, a path) that is there. A missing file was made as a new, empty store,
 * a mistyped path read as a store with no sessions; an unknown kind failed only once the command ran.
 */
export function checkStoreOption(option: string, url: string, also: readonly string[] = []): void {
  const kind = storeKindOf(url);
  if (kind === undefined && !also.includes(url))
    throw new UsageError(
      `${option}: not a store URL: ${url} (expected postgres://…, http(s)://…, sqlite:PATH, memory:${also.map((a) => ` or ${a}`).join('')})`,
    );
  const file = kind === 'sqlite' ? sqliteFileOf(url) : undefined;
  if (file !== undefined && !existsSync(file)) throw new UsageError(`${option} ${url}: no such file`);
}

/**
 * A team server as a store to read from (`--from`, `ui --store`): its key is the URL's user part or
 * $THREADBASE_API_KEY, as openStore takes it; with neither, refused before anything runs (exit 2, as
 * `push` without a key): the server's "401: missing Authorization: Bearer <key>" did not say which
 * server, nor where the key goes (push's `--key` is the `--to` server's).
 */
export function checkStoreKey(option: string, url: string, env: Readonly<Record<string, string | undefined>>): void {
  if (storeKindOf(url) !== 'remote' || serverKeyOf(url, env)) return;
  throw new UsageError(
    `${option} ${url}: no API key for that server: give it as ${url.replace(/^(https?:\/\/)/, '$1KEY@')} or set THREADBASE_API_KEY`,
  );
}

/**
 * An empty argument or option value (`show "$ID"`, `--project "$DIR"` with the variable unset) is a
 * usage error (exit 2), refused before anything is read (a preAction hook of every command): `show ''`
 * listed every session as matching the prefix "", `--at ''` said "entry not found: ", and `--project ''`
 * meant the current directory. A search's words (variadic) say themselves what they lack.
 */
export function refuseEmptyValues(command: Command): void {
  const name = command.parent?.parent ? `${command.parent.name()} ${command.name()}` : command.name();
  command.registeredArguments.forEach((arg, i) => {
    if (!arg.variadic && command.processedArgs[i] === '') throw new UsageError(`${name}: <${arg.name()}> is empty`);
  });
  for (const option of command.options) {
    const key = option.attributeName();
    const given = command.getOptionValueSource(key) === 'cli';
    if ((option.required || option.optional) && given && command.getOptionValue(key) === '')
      throw new UsageError(`${name}: ${option.long ?? option.flags} is empty`);
  }
}

/**
 * A store named by `--from` or `--store` that would not open (a file that is no SQLite database, a
 * PostgreSQL server that refused): the error names the option and the store, a URL without its
 * password; SQLite said only "file is not a database".
 */
export function storeOpenError(option: string, url: string, err: unknown): Error {
  const shown = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
  return new Error(`${option} ${shown}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}
