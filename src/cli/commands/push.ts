import { join } from 'node:path';
import type { Command } from 'commander';
import type { SessionDriver } from '../../model/driver.js';
import { ThreadbaseError } from '../../model/errors.js';
import { pushSessions, STORE_ID_HEADER } from '../../server/push.js';
import { openFreshIndex } from '../../stores/index-sync/fresh.js';
import { openStore, storeKindOf, threadbaseHome } from '../../stores/open.js';
import { serverKeyOf, serverRoot } from '../../stores/remote/address.js';
import { type CliContext, printJson, warn, warnIfNeverSynced, warnParse, writableIndexPath } from '../io.js';
import {
  agentOption,
  checkStoreKey,
  checkStoreOption,
  projectOption,
  serverUrlOption,
  sinceOption,
  storeOpenError,
  UsageError,
} from '../options.js';

interface PushFlags {
  to: string;
  key?: string;
  from?: string;
  source?: string;
  project?: string;
  since?: string;
  json?: boolean;
  sync: boolean;
}

export function registerPush(program: Command, ctx: CliContext): void {
  program
    .command('push')
    .description("upload the local index's sessions to a team server (only what is new since the last push)")
    .requiredOption('--to <url>', 'the server, e.g. http://127.0.0.1:8029', serverUrlOption)
    .option(
      '--key <key>',
      "API key (default the --to URL's, http://KEY@host, else $THREADBASE_API_KEY, as --from and ui take it)",
    )
    .option('--from <store>', 'the store to push from (default the local index)')
    .option('--source <agent>', "push this agent's sessions as read from its own files instead of a store", agentOption)
    .option('--project <dir>', 'only sessions that ran in this directory (. is the current one)', projectOption)
    .option('--since <time>', 'only sessions updated since (ISO date or time)', sinceOption)
    .option('--no-sync', 'push the local index as it is, without bringing it up to date first')
    .option('--json', 'print JSON only')
    .action(async (opts: PushFlags) => {
      // --from was silently ignored beside --source: refused, as each names where the sessions come from
      if (opts.source && opts.from)
        throw new UsageError(
          `--source pushes ${opts.source}'s sessions from its own files and --from those of ${opts.from}: give one of them`,
        );
      // the --to URL's (http://KEY@host) as --from and ui take theirs; THREADBASE_KEY: the name push alone read before
      const key = opts.key ?? serverKeyOf(opts.to, ctx.env.env) ?? ctx.env.env.THREADBASE_KEY;
      if (!key) throw new UsageError('no API key: pass --key, give it in --to (http://KEY@host) or set THREADBASE_API_KEY');
      if (opts.from !== undefined) {
        checkStoreOption('--from', opts.from);
        checkStoreKey('--from', opts.from, ctx.env.env);
      }
      let from: SessionDriver;
      let close: (() => Promise<void>) | undefined;
      if (opts.source) from = ctx.sources().driver(opts.source);
      else if (!opts.from) {
        // the local index: an unusable THREADBASE_HOME named (SQLite said 'unable to open database file')
        writableIndexPath(ctx);
        // brought up to date first, as stats and search do: a push before any sync sent nothing and said nothing
        const index = await openFreshIndex(ctx.env, ctx.sources(), {
          sync: opts.sync,
          // whatever its age: a session written since the last sync, where no agent wrote before, was left behind
          maxAgeMs: 0,
          onWarning: (w) => warnParse(ctx, w),
        });
        from = index;
        close = async () => index.close();
        if (!opts.sync) await warnIfNeverSynced(ctx, index);
      } else {
        const fromUrl = opts.from;
        const store = await openStore(fromUrl, { env: ctx.env, warn: (m) => warn(ctx, m) }).catch((err: unknown) => {
          throw storeOpenError('--from', fromUrl, err);
        });
        from = store;
        close = async () => store.close?.();
      }
      try {
        // loaded here: the CLI's start-up loads no server module but the push client
        const { storeIdentity } = await import('../../server/store-identity.js');
        const sourceStoreId = opts.source
          ? undefined
          : ((await storeIdentity(from)) ??
            (opts.from !== undefined ? await servedStoreOfSameKey(ctx, opts.from, opts.to, key) : undefined));
        const report = await pushSessions({
          from,
          to: opts.to,
          key,
          statePath: join(threadbaseHome(ctx.env), 'push-state.json'),
          // a teammate's other projects stay on their machine
          filter: {
            since: opts.since,
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
          },
          ...(sourceStoreId ? { sourceStoreId } : {}),
        });
        for (const f of report.failed) warn(ctx, `session ${f.id} not pushed: ${f.error}`);
        if (opts.json) printJson(ctx, report);
        else
          ctx.stdout(
            `pushed ${report.created} new and ${report.updated} changed sessions (${report.entriesSent} entries); ${report.unchanged} unchanged${
              report.failed.length ? `; ${report.failed.length} failed` : ''
            }\n`,
          );
        // main's code is the process's: process.exitCode set here was overwritten with 0
        if (report.failed.length) ctx.exitCode = 1;
      } finally {
        await close?.();
      }
    });
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
