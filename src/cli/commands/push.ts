import { join } from 'node:path';
import type { Command } from 'commander';
import type { SessionDriver } from '../../model/driver.js';
import { ThreadbaseError } from '../../model/errors.js';
import { pushSessions, STORE_ID_HEADER } from '../../server/push.js';
import { openStore, storeKindOf, threadbaseHome } from '../../stores/open.js';
import { serverKeyOf, serverRoot } from '../../stores/remote/address.js';
import { type CliContext, openCommandIndex, printJson, stoppedExitCode, warn } from '../io.js';
import {
  agentOption,
  checkStoreKey,
  checkStoreOption,
  projectOption,
  serverUrlOption,
  sinceFlag,
  storeOpenError,
  timeZoneFlag,
  UsageError,
  zonedWindow,
} from '../options.js';

interface PushFlags {
  to: string;
  key?: string;
  from?: string;
  source?: string;
  project?: string;
  since?: string;
  tz?: string;
  json?: boolean;
  sync: boolean;
  force?: boolean;
}

export function registerPush(program: Command, ctx: CliContext): void {
  program
    .command('push')
    .description(
      "upload sessions to a team server, the local index's unless --from or --source names others (only what is new since the last push)",
    )
    .requiredOption('--to <url>', 'the server, e.g. http://127.0.0.1:8029', serverUrlOption)
    .option(
      '--key <key>',
      "API key (default the --to URL's, http://KEY@host, else $THREADBASE_API_KEY, as --from and ui take it)",
    )
    .option('--from <store>', 'the store to push from (default the local index)')
    .option('--source <agent>', "push this agent's sessions as read from its own files instead of a store", agentOption)
    .option('--project <dir>', 'only sessions that ran in this directory (. is the current one)', projectOption)
    .addOption(sinceFlag('sessions updated since'))
    .addOption(timeZoneFlag('--since'))
    .option('--no-sync', 'push the local index as it is, without bringing it up to date first')
    .option(
      '--force',
      "a session whose entries changed since they were pushed (the server refuses it: duplicate_entry) replaces the server's copy whole; unchanged ones are not sent again",
    )
    .option('--json', 'print JSON only')
    .action(async (opts: PushFlags) => {
      // a date alone is the user's own day, as git and stats read it, not UTC's
      const { since } = zonedWindow(opts);
      // --from was silently ignored beside --source: refused, as each names where the sessions come from
      if (opts.source && opts.from)
        throw new UsageError(
          `--source pushes ${opts.source}'s sessions from its own files and --from those of ${opts.from}: give one of them`,
        );
      // only the local index is synced before a push: beside --from or --source it changed nothing, unsaid
      if (!opts.sync && (opts.from !== undefined || opts.source))
        throw new UsageError(
          `--no-sync is for the local index, which push brings up to date first; ${
            opts.source ? `--source ${opts.source} reads its files` : `--from ${opts.from} is pushed`
          } as they are: leave out --no-sync`,
        );
      // the --to URL's (http://KEY@host) as --from and ui take theirs; THREADBASE_KEY: the name push alone read before
      const key = opts.key ?? serverKeyOf(opts.to, ctx.env.env) ?? ctx.env.env.THREADBASE_KEY;
      if (!key) throw new UsageError('no API key: pass --key, give it in --to (http://KEY@host) or set THREADBASE_API_KEY');
      if (opts.from !== undefined) {
        checkStoreOption('--from', opts.from);
        checkStoreKey('--from', opts.from, ctx.env.env);
      }
      let from: SessionDriver;
      // --no-sync on an index never synced: said once, not again as nothing to push
      let saidEmpty = false;
      let close: (() => Promise<void>) | undefined;
      if (opts.source) from = ctx.sources().driver(opts.source);
      else if (!opts.from) {
        // the local index, brought up to date first as stats and search do: a push before any sync sent
        // nothing and said nothing; whatever its age: a session written since the last sync, where no
        // agent wrote before, was left behind
        const { store: index, neverSynced } = await openCommandIndex(ctx, { sync: opts.sync, maxAgeMs: 0 });
        from = index;
        close = async () => index.close();
        saidEmpty = neverSynced;
      } else {
        const fromUrl = opts.from;
        const store = await openStore(fromUrl, { env: ctx.env, warn: (m) => warn(ctx, m) }).catch((err: unknown) => {
          throw storeOpenError('--from', fromUrl, err);
        });
        from = store;
        close = async () => store.close?.();
      }
      const stop = stopOnSignals();
      try {
        // loaded here: the CLI's start-up loads no server module but the push client
        const { storeIdentity } = await import('../../server/store-identity.js');
        const sourceStoreId = opts.source
          ? undefined
          : ((await storeIdentity(from)) ??
            (opts.from !== undefined ? await servedStoreOfSameKey(ctx, opts.from, opts.to, key) : undefined));
        // the session being sent when a signal came: its upload, cut short, is no failure to report
        let current: string | undefined;
        let cutShort: string | undefined;
        stop.signal.addEventListener('abort', () => (cutShort = current), { once: true });
        const report = await pushSessions({
          from: stop.stoppable(from),
          fetchImpl: stop.fetchImpl,
          onProgress: (_done, _total, info) => (current = info.id),
          to: opts.to,
          key,
          statePath: join(threadbaseHome(ctx.env), 'push-state.json'),
          // a teammate's other projects stay on their machine
          filter: {
            since,
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
          },
          ...(sourceStoreId ? { sourceStoreId } : {}),
          ...(opts.force ? { force: true } : {}),
        }).catch((err: unknown) => {
          // stopped before the first session (the server's ping cut short): nothing was sent
          if (stop.stoppedBy() && current === undefined) return undefined;
          throw err;
        });
        const by = stop.stoppedBy();
        if (by) {
          ctx.exitCode = stoppedExitCode(by);
          if (report) report.failed = report.failed.filter((f) => f.id !== cutShort);
        }
        if (!report) {
          warn(ctx, `push stopped by ${by}: nothing pushed`);
          return;
        }
        for (const f of report.failed) warn(ctx, `session ${f.id} not pushed: ${f.error}`);
        // "pushed 0 new and 0 changed sessions; 0 unchanged" read as a push done, a mistyped --project too
        if (report.sessions === 0 && !saidEmpty) warn(ctx, `nothing to push: ${noSessionsOf(opts)}`);
        if (opts.json) await printJson(ctx, report);
        else
          ctx.stdout(
            `pushed ${report.created} new and ${report.updated} changed ${
              report.created + report.updated === 1 ? 'session' : 'sessions'
            }${report.replaced ? ` (${report.replaced} replaced)` : ''} (${report.entriesSent} ${report.entriesSent === 1 ? 'entry' : 'entries'}); ${report.unchanged} unchanged${
              report.failed.length ? `; ${report.failed.length} failed` : ''
            }\n`,
          );
        if (by) {
          const pushed = report.created + report.updated;
          warn(
            ctx,
            `push stopped by ${by} after ${pushed} ${pushed === 1 ? 'session' : 'sessions'} pushed; what went is saved, the next push sends the rest`,
          );
        }
        // main's code is the process's: process.exitCode set here was overwritten with 0
        else if (report.failed.length) ctx.exitCode = 1;
      } finally {
        stop.dispose();
        await close?.();
      }
    });
}

/** Where a push found no session, and by which of its options. */
function noSessionsOf(opts: PushFlags): string {
  // not the --from URL itself: it may hold a key
  const from = opts.source ? `${opts.source}'s files` : opts.from !== undefined ? 'the --from store' : 'the local index';
  const by = [opts.project && `--project ${opts.project}`, opts.since && `--since ${opts.since}`].filter(Boolean);
  return by.length ? `no session of ${from} matches ${by.join(' ')}` : `${from} holds no sessions`;
}

/** What stopOnSignals gives a push. */
interface PushStop {
  signal: AbortSignal;
  /** The signal that stopped the push, if one did. */
  stoppedBy(): NodeJS.Signals | undefined;
  /** `from`, giving no further session once stopped (pushSessions passes over one it cannot read). */
  stoppable(from: SessionDriver): SessionDriver;
  /** fetch, its requests cut short once stopped. */
  fetchImpl: typeof fetch;
  dispose(): void;
}

/**
 * Ctrl-C (SIGINT) or SIGTERM during a push stops it at the session being sent and lets pushSessions
 * end as it does after its last session, writing its state whole (temp + rename) before the CLI
 * exits (130, 143): killed at once, the sessions sent since the last save (up to a second's) were
 * sent again by the next push. A second signal exits at once.
 */
function stopOnSignals(): PushStop {
  const stop = new AbortController();
  let by: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (by) process.exit(stoppedExitCode(signal));
    by = signal;
    stop.abort(new Error(`stopped by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const fetchImpl = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    if (stop.signal.aborted) return Promise.reject(stop.signal.reason);
    const signal = init?.signal ? AbortSignal.any([init.signal, stop.signal]) : stop.signal;
    return fetch(input, { ...init, signal });
  }) as typeof fetch;
  return {
    signal: stop.signal,
    stoppedBy: () => by,
    stoppable: (from) =>
      new Proxy(from, {
        get(target, prop) {
          if (prop === 'getSession') return async (id: string) => (stop.signal.aborted ? undefined : target.getSession(id));
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    fetchImpl,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * `--from http(s)://S`, read with the key the push sends (one project): the identity of the store S
 * serves, so that pushing into S itself (`--to` the same server under another name too) is refused as
 * pushing the local index into a server on it is; it re-sent every session, reported as changed. With
 * another key the push copies one project's sessions into another, and is taken.
 */
async function servedStoreOfSameKey(ctx: CliContext, fromUrl: string, toUrl: string, key: string): Promise<string | undefined> {
  if (storeKindOf(fromUrl) !== 'remote') return undefined;
  // the key openStore gives the remote store
  if (serverKeyOf(fromUrl, ctx.env.env) !== key) return undefined;
  const from = serverRoot(fromUrl);
  // a server whose store keeps no identity (memory:) is still told by its address
  if (from === serverRoot(toUrl))
    throw new ThreadbaseError(
      'push_to_itself',
      `${from} serves the very store this push reads from: nothing pushed (push another store, or to another server)`,
    );
  try {
    const res = await fetch(`${from}/api/v1/ping`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    });
    return res.headers.get(STORE_ID_HEADER) ?? undefined;
  } catch {
    // unreachable: reading the sessions from it says so
    return undefined;
  }
}
