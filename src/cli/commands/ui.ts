/**
 * `threadbase ui`: serves the web viewer on the local index (or any store URL) and opens it in the
 * browser. Runs until interrupted.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import type { SessionDriver } from '../../model/driver.js';
import { IndexSync, indexPath, type SyncReport } from '../../stores/index-sync/sync.js';
import { followChanges } from '../../stores/index-sync/watch.js';
import { openStore } from '../../stores/open.js';
import { isBusyError, openSqliteStore, type SqliteStore } from '../../stores/sqlite/index.js';
import { type CliContext, untilStopped, warn, warnParse, writableIndexPath } from '../io.js';
import { checkStoreKey, checkStoreOption, portOption, pricesOf, storeOpenError, UsageError } from '../options.js';
import { listenError } from './serve.js';

interface UiFlags {
  store?: string;
  host: string;
  port: number;
  key?: string;
  open: boolean;
  sync: boolean;
}

/** How often the viewer on the local index looks for what the agents wrote (see watchDelay). */
const FOLLOW_INTERVAL_MS = 2000;

/** Opens the URL in the desktop's browser when there is one; silently does nothing otherwise. */
function openInBrowser(url: string, env: CliContext['env']): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore', env: { ...env.env } as NodeJS.ProcessEnv });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no opener on this machine: the URL is printed anyway
  }
}

export function registerUi(program: Command, ctx: CliContext): void {
  program
    .command('ui')
    .description('browse every session in the web viewer (the local index unless --store says otherwise)')
    .option(
      '--store <url>',
      "http(s)://KEY@host (a team server), postgres://…, sqlite:PATH, memory:, or agents (each agent's own files); default the local index, else agents",
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', portOption, 4517)
    .option('--key <key>', 'require this key (Authorization: Bearer) for the data routes')
    .option('--no-open', 'do not open a browser')
    .option('--no-sync', 'serve the local index as it is (by default it is synced first and kept in sync while the viewer runs)')
    .action(async (opts: UiFlags) => {
      if (opts.store !== undefined) {
        // only the local index is synced and followed: beside --store it changed nothing, unsaid (as push's)
        if (!opts.sync)
          throw new UsageError(
            `--no-sync is for the local index, which ui syncs first and follows; --store ${opts.store} is shown as it is: leave out --no-sync`,
          );
        checkStoreOption('--store', opts.store, ['agents']);
        checkStoreKey('--store', opts.store, ctx.env.env);
      }
      // the server's modules (hono, zod, pg: ≈ 0.2 s to load) only for the commands that need them
      const [{ serve }, { AgentFilesDriver }, { createWebApp }] = await Promise.all([
        import('@hono/node-server'),
        import('../../server/web/agents-driver.js'),
        import('../../server/web/index.js'),
      ]);
      // an unusable home (THREADBASE_HOME=/proc): the agents' own files, as when there is no index yet
      let store = opts.store;
      if (store === undefined) {
        try {
          // not made here: without an index, ui shows the agents' own files at once, and syncs none
          writableIndexPath(ctx, { make: false });
        } catch (err) {
          warn(ctx, `${(err as Error).message}; showing each agent's own files`);
          store = 'agents';
        }
      }
      const fromAgents = () => new AgentFilesDriver(ctx.sources(), (source, e) => warn(ctx, `${source}: ${e.message}`));
      // The local index, brought up to date first and then kept so: a session the agents write while
      // the viewer is open shows up in its list (which it reloads every few seconds).
      let indexer: SqliteStore | undefined;
      const syncIndex = (): Promise<SyncReport> =>
        new IndexSync(indexer as SqliteStore).sync(ctx.sources(), {
          onWarning: (w) => warnParse(ctx, w),
          // a lock wait would stop the server (SQLite waits on this thread): while another sync
          // holds the index, this one is skipped and the next look tries again
          busyTimeoutMs: 0,
        });
      const syncFailed = (e: Error) => {
        if (!isBusyError(e)) warn(ctx, `the index could not be synced: ${e.message}`);
      };
      if (!store && opts.sync && existsSync(indexPath(ctx.env))) {
        indexer = openSqliteStore(indexPath(ctx.env));
        await syncIndex().catch(syncFailed);
      }
      const storeWarnings: string[] = [];
      let driver: SessionDriver =
        store === 'agents'
          ? fromAgents()
          : await openStore(store, { env: ctx.env, warn: (m) => storeWarnings.push(m) }).catch((err: unknown) => {
              throw store === undefined ? err : storeOpenError('--store', store, err);
            });
      // No index yet (or an empty one): show the agents' own sessions rather than an empty page.
      if (!store && (await driver.listSessions({ limit: 1 })).length === 0) {
        await driver.close?.();
        driver = fromAgents();
        await indexer?.close();
        indexer = undefined;
      } else for (const m of storeWarnings) warn(ctx, m);
      const app = createWebApp({
        driver,
        targets: ctx.sources(),
        apiKey: opts.key ?? ctx.env.env.THREADBASE_API_KEY,
        // the same prices `threadbase stats` uses, the user's file over the bundled table
        prices: pricesOf(undefined, ctx.env),
      });
      const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
        (resolve, reject) => {
          const s = serve({ fetch: app.fetch, hostname: opts.host, port: opts.port }, (info) =>
            resolve({ server: s, address: info }),
          );
          s.once('error', (err) => reject(listenError(err, opts.host, opts.port)));
        },
      );
      const host = address.address.includes(':') ? `[${address.address}]` : address.address;
      const url = `http://${host}:${address.port}/`;
      // listened for before saying so: a Ctrl-C right after the line killed the process unclosed
      const stop = untilStopped();
      ctx.stdout(`threadbase viewer on ${url}  (${driver.name} store; Ctrl-C to stop)\n`);
      if (opts.open) openInBrowser(url, ctx.env);
      const stopped = new AbortController();
      const following = indexer
        ? followChanges(syncIndex, {
            intervalMs: FOLLOW_INTERVAL_MS,
            signal: stopped.signal,
            onError: syncFailed,
          })
        : Promise.resolve();
      await stop;
      stopped.abort();
      await following;
      await new Promise<void>((done) => server.close(() => done()));
      await driver.close?.();
      await indexer?.close();
    });
}
