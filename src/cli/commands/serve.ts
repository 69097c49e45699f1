import { type Command, InvalidArgumentError, Option } from 'commander';
import type { PriceTable } from '../../stores/index-sync/prices.js';
import { storeKindOf } from '../../stores/open.js';
import { type CliContext, untilStopped, warn, writableIndexPath } from '../io.js';
import { dbOption, portOption, positiveIntOption, pricesFileOption, pricesOf, storeOpenError } from '../options.js';

/** The largest request body `serve` takes by default (the server's own default, said in --help). */
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The project of the key `serve --db memory:` makes at start. */
export const MEMORY_SERVER_PROJECT = 'default';

interface ServeFlags {
  db?: string;
  port: number;
  host: string;
  maxBody: number;
  prices?: PriceTable;
  cors?: string[];
}

/** `--cors a,b --cors c`: each value an origin, as a browser sends it (scheme://host[:port], no path). */
export function corsOriginsOption(value: string, previous: string[] = []): string[] {
  const origins = value
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of origins) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== o.replace(/\/$/, ''))
      throw new InvalidArgumentError(
        `${JSON.stringify(o)} is not an origin (scheme://host[:port], e.g. https://app.example.com)`,
      );
  }
  return [...previous, ...origins.map((o) => o.replace(/\/$/, ''))];
}

/**
 * A server that could not listen, said as what to do: Node's "listen EADDRINUSE: address already in
 * use 127.0.0.1:8029" named neither the option nor the way out (another port, or 0 for any free one).
 */
export function listenError(err: unknown, host: string, port: number): Error {
  const code = (err as { code?: unknown }).code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: another server listens there; give another --port (0: any free one)`, {
      cause: err,
    });
  if (code === 'EACCES')
    return new Error(`cannot listen on ${where}: not allowed (a port below 1024 needs privileges); give another --port`, {
      cause: err,
    });
  if (code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' || code === 'EAI_AGAIN')
    return new Error(`cannot listen on ${where}: --host ${host} is no address of this machine (${code})`, { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the team server: the Acontext session API and threadbase routes under /api/v1')
    .option('--db <path|url>', 'SQLite file, postgres://… URL or memory: (default the local index)', dbOption)
    .option('--port <n>', 'port to listen on (0 picks a free one)', portOption, 8029)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--max-body <bytes>', 'largest request body accepted')
        .argParser(positiveIntOption)
        .default(DEFAULT_MAX_BODY_BYTES, `${DEFAULT_MAX_BODY_BYTES} = 10 MiB`),
    )
    .option('--prices <file>', 'model prices (JSON, USD per million tokens) over the bundled table, for /stats', pricesFileOption)
    .option(
      '--cors <origins>',
      'let browser pages from these origins (comma-separated, scheme://host[:port]) call the API',
      corsOriginsOption,
    )
    .action(async (opts: ServeFlags) => {
      // the server's modules (hono, zod, pg: ≈ 0.2 s to load) only for the commands that need them
      const { openServerStores, startServer } = await import('../../server/index.js');
      // as `stats` prices: the bundled table under $THREADBASE_HOME/prices.json, or --prices; a bad file stops here
      const prices = pricesOf(opts.prices, ctx.env);
      if (!opts.db) writableIndexPath(ctx);
      const db = opts.db;
      const stores = await openServerStores(db, ctx.env, (m) => warn(ctx, m)).catch((err: unknown) => {
        throw db === undefined ? err : storeOpenError('--db', db, err);
      });
      const server = await startServer({
        store: stores.store,
        tokens: stores.tokens,
        port: opts.port,
        host: opts.host,
        maxBodyBytes: opts.maxBody,
        log: (line: string) => ctx.stderr(`${line}\n`),
        prices,
        corsOrigins: opts.cors,
      }).catch(async (err: unknown) => {
        await stores.close();
        throw listenError(err, opts.host, opts.port);
      });
      // A memory: server keeps its keys in memory too, and `token create` has no way into them (it refuses
      // memory:): without a key made here every /api/v1 request was refused, so one is made and shown once.
      if (db !== undefined && storeKindOf(db, { fileNames: true }) === 'memory') {
        const made = await stores.tokens.createToken(MEMORY_SERVER_PROJECT);
        ctx.stdout(
          `threadbase serve: API key of project ${MEMORY_SERVER_PROJECT} (kept in memory, gone when the server stops): ${made.key}\n`,
        );
      }
      // listened for before saying so: a Ctrl-C right after the line killed the process unclosed
      const stop = untilStopped();
      ctx.stdout(`threadbase serve: listening on ${server.url} (store: ${stores.store.name})\n`);
      // Runs until SIGINT/SIGTERM, then closes connections and the store.
      await stop;
      await server.close();
      await stores.close();
    });
}
