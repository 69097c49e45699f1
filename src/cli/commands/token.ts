import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { TokenInfo } from '../../server/tokens.js';
import { indexPath } from '../../stores/index-sync/sync.js';
import { storeKindOf } from '../../stores/open.js';
import { type CliContext, printJson, warn, writableIndexPath } from '../io.js';
import { dbOption, storeOpenError, UsageError } from '../options.js';

// The server's modules (hono, zod, pg: ≈ 0.2 s to load) only for the commands that need them.
const openServerStores: typeof import('../../server/index.js').openServerStores = async (...args) =>
  (await import('../../server/index.js')).openServerStores(...args);

const isMemory = (db: string | undefined) => db !== undefined && storeKindOf(db) === 'memory';

function describeToken(t: TokenInfo): string {
  const parts = [`project ${t.project}`];
  if (t.prefix) parts.push(`key ${t.prefix}…`);
  if (t.label) parts.push(`label "${t.label}"`);
  parts.push(`created ${t.createdAt}`);
  return `${t.id} (${parts.join(', ')})`;
}

function tokenTable(tokens: readonly TokenInfo[]): string {
  const header = ['ID', 'PREFIX', 'PROJECT', 'LABEL', 'CREATED', 'LAST USED', 'REVOKED'];
  const rows = tokens.map((t) => [
    t.id,
    t.prefix ?? '-',
    t.project,
    t.label ?? '',
    t.createdAt,
    t.lastUsedAt ?? '-',
    t.revokedAt ?? '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/**
 * The stores of --db; without it the local index, its home checked first (an unusable one is named).
 * `existing`: a SQLite file --db names must be there (`token list --db typo.db` made an empty database
 * and said there were no keys).
 */
async function openTokenStores(ctx: CliContext, db: string | undefined, opts: { existing?: boolean } = {}) {
  if (!db) writableIndexPath(ctx);
  else if (opts.existing && storeKindOf(db, { fileNames: true }) === 'sqlite') {
    const path = (await import('../../server/index.js')).sqlitePathOf(db, ctx.env);
    if (!existsSync(path)) throw new UsageError(`--db ${db}: no such database (token create makes one)`);
  }
  return openServerStores(db, ctx.env, (m) => warn(ctx, m)).catch((err: unknown) => {
    throw db === undefined ? err : storeOpenError('--db', db, err);
  });
}

/**
 * The database the keys are in, as a message names it: --db's (a PostgreSQL URL without its password),
 * else the local index's file. "no keys" and "no key with id …" named none, where a key made with
 * `--db team.db` is not found without it.
 */
function keysPlace(ctx: CliContext, db: string | undefined): string {
  return db ? db.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1@') : indexPath(ctx.env);
}

/** `no key with id or prefix X in DB (see threadbase token list [--db DB])`. */
function noKeyError(ctx: CliContext, idOrPrefix: string, db: string | undefined): Error {
  const list = `threadbase token list${db ? ` --db ${keysPlace(ctx, db)}` : ''}`;
  return new Error(`no key with id or prefix ${idOrPrefix} in ${keysPlace(ctx, db)} (see ${list})`);
}

/**
 * The keys `revoke` would match without revoking any: by id or its start (as a session is named by the
 * start of its id; `tok_709b` was no key), by prefix, or the key itself by its prefix
 * (a key made before prefixes were kept has none: matched by the store alone).
 */
function keysMatching(tokens: readonly TokenInfo[], idOrPrefix: string): TokenInfo[] {
  return tokens.filter(
    (t) => t.id.startsWith(idOrPrefix) || t.prefix === idOrPrefix || (t.prefix !== undefined && idOrPrefix.startsWith(t.prefix)),
  );
}

/** Asks on the terminal; true only for an explicit yes. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    // Ctrl+C or Ctrl+D rejects the question: no answer is a no.
    const answer = await rl.question(question).catch(() => '');
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export function registerToken(program: Command, ctx: CliContext): void {
  const token = program.command('token').description('API keys of the team server');
  token
    .command('create')
    .description('create an API key for a project (printed once; only its hash is stored)')
    .requiredOption('--project <name>', 'the project the key reads and writes')
    .option('--db <path|url>', 'the database the server uses (SQLite file or postgres://…; default the local index)', dbOption)
    .option('--label <text>', 'a note kept beside the key')
    .option('--json', 'print JSON only')
    .action(async (opts: { project: string; db?: string; label?: string; json?: boolean }) => {
      if (isMemory(opts.db)) throw new UsageError('a key in memory: would be lost at exit; give --db');
      const stores = await openTokenStores(ctx, opts.db);
      try {
        const created = await stores.tokens.createToken(opts.project, opts.label);
        if (opts.json) await printJson(ctx, { key: created.key, id: created.id, project: created.project });
        else ctx.stdout(`${created.key}\n`);
      } finally {
        await stores.close();
      }
    });

  token
    .command('list')
    .description('list the API keys (id, prefix, project, label, creation, last use, revocation; never the key)')
    .option('--project <name>', 'only the keys of this project')
    .option('--db <path|url>', 'the database the server uses (SQLite file or postgres://…; default the local index)', dbOption)
    .option('--json', 'print JSON only')
    .action(async (opts: { project?: string; db?: string; json?: boolean }) => {
      if (isMemory(opts.db)) throw new UsageError('memory: holds no keys between runs; give --db');
      const stores = await openTokenStores(ctx, opts.db, { existing: true });
      try {
        const tokens = await stores.tokens.listTokens(opts.project);
        if (opts.json) await printJson(ctx, tokens);
        else if (tokens.length) ctx.stdout(`${tokenTable(tokens)}\n`);
        else
          ctx.stderr(`threadbase: no keys${opts.project ? ` for project ${opts.project}` : ''} in ${keysPlace(ctx, opts.db)}\n`);
      } finally {
        await stores.close();
      }
    });

  const revoke = token
    .command('revoke')
    .description('revoke an API key: the server refuses it from the next request on (it stays listed)')
    .argument('<id>', 'the key id (or its start) or prefix that `token list` shows (or the key itself)')
    .option('--db <path|url>', 'the database the server uses (SQLite file or postgres://…; default the local index)', dbOption)
    .option('--yes', 'do not ask for confirmation')
    .option('--json', 'print JSON only')
    .action(async (idOrPrefix: string, opts: { db?: string; yes?: boolean; json?: boolean }) => {
      if (isMemory(opts.db)) throw new UsageError('memory: holds no keys between runs; give --db');
      const stores = await openTokenStores(ctx, opts.db, { existing: true });
      try {
        // an unknown id is said before asking about it (it asked, then said there was no such key)
        const tokens = await stores.tokens.listTokens();
        const known = keysMatching(tokens, idOrPrefix);
        if (!known.length && tokens.every((t) => t.prefix !== undefined)) throw noKeyError(ctx, idOrPrefix, opts.db);
        if (known.length > 1)
          throw new Error(`${idOrPrefix} matches several keys (${known.map((t) => t.id).join(', ')}); give the id`);
        const terminal = Boolean(process.stdin.isTTY && process.stderr.isTTY);
        // a script must say --yes to revoke
        if (!opts.yes && !terminal)
          revoke.error(`threadbase: not revoking ${idOrPrefix}: no terminal to confirm on; pass --yes to revoke without asking`, {
            exitCode: 2,
            code: 'threadbase.confirmationNeeded',
          });
        if (!opts.yes) {
          const shown = known.length === 1 && known[0] ? describeToken(known[0]) : idOrPrefix;
          if (!(await confirm(`Revoke key ${shown}? Clients using it are refused at once. [y/N] `))) {
            throw new Error(`key ${idOrPrefix} not revoked (not confirmed)`);
          }
        }
        // the one key matched, by its id: the store takes a whole id, not its start
        const revoked = await stores.tokens.revokeToken(known.length === 1 && known[0] ? known[0].id : idOrPrefix);
        if (!revoked) throw noKeyError(ctx, idOrPrefix, opts.db);
        if (opts.json) await printJson(ctx, revoked);
        else ctx.stdout(`revoked ${describeToken(revoked)} at ${revoked.revokedAt}\n`);
      } finally {
        await stores.close();
      }
    });
}
