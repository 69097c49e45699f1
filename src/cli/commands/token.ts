import type { Command } from 'commander';
import { openServerStores } from '../../server/index.js';
import { type CliContext, printJson, warn } from '../io.js';

export function registerToken(program: Command, ctx: CliContext): void {
  const token = program.command('token').description('API keys of the team server');
  token
    .command('create')
    .description('create an API key for a project (printed once; only its hash is stored)')
    .requiredOption('--project <name>', 'the project the key reads and writes')
    .option('--db <path|url>', 'the database the server uses (SQLite file or postgres://…; default the local index)')
    .option('--label <text>', 'a note kept beside the key')
    .option('--json', 'print JSON only')
    .action(async (opts: { project: string; db?: string; label?: string; json?: boolean }) => {
      if (opts.db === 'memory:' || opts.db === 'memory') throw new Error('a key in memory: would be lost at exit; give --db');
      const stores = await openServerStores(opts.db, ctx.env, (m) => warn(ctx, m));
      try {
        const created = await stores.tokens.createToken(opts.project, opts.label);
        if (opts.json) printJson(ctx, { key: created.key, project: created.project });
        else ctx.stdout(`${created.key}\n`);
      } finally {
        await stores.close();
      }
    });
}
