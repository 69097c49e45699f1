import type { Command } from 'commander';
import { IndexSync, type SyncReport } from '../../stores/index-sync/sync.js';
import { followChanges } from '../../stores/index-sync/watch.js';
import { openSqliteStore } from '../../stores/sqlite/index.js';
import { type CliContext, printJson, untilStopped, warn, warnParse, writableIndexPath } from '../io.js';
import { agentListOption, positiveIntOption } from '../options.js';
import { ProgressLine, syncProgressText } from '../progress-line.js';

function summary(r: SyncReport): string {
  return `indexed ${r.units} sessions in ${(r.ms / 1000).toFixed(2)} s: ${r.reread} read, ${r.appended} appended, ${r.unchanged} unchanged, ${r.removed} removed${r.failed ? `, ${r.failed} failed` : ''}`;
}

export function registerSync(program: Command, ctx: CliContext): void {
  program
    .command('sync')
    .description('index every local agent store into $THREADBASE_HOME/index.db (incremental)')
    .option('--source <names>', 'only these agents (comma-separated: claude,pi)', agentListOption)
    .option('--watch', 'keep following changes (re-syncs what changed every --interval ms)')
    .option(
      '--interval <ms>',
      'how often --watch looks for changes (at least 9× as long as a look takes, so watching stays under a tenth of a core)',
      positiveIntOption,
      1000,
    )
    .option('--full', 'read every session whole again, changed or not (an upgrade that reads more does so by itself)')
    .option('--json', 'print the sync report as JSON')
    .action(async (opts: { source?: string[]; watch?: boolean; interval: number; full?: boolean; json?: boolean }) => {
      const path = writableIndexPath(ctx);
      const store = openSqliteStore(path);
      const indexer = new IndexSync(store);
      const formats = opts.source;
      const tty = Boolean(process.stderr.isTTY) && !opts.json;
      const runOnce = async (quiet: boolean, full = false): Promise<SyncReport> => {
        const columns = () => process.stderr.columns;
        const bar = tty && !quiet ? new ProgressLine(ctx.stderr, columns) : undefined;
        // a warning while the bar is drawn: printed whole above it
        const out: CliContext = bar ? { ...ctx, stderr: (s) => bar.print(s) } : ctx;
        try {
          return await indexer.sync(ctx.sources(), {
            ...(formats ? { formats } : {}),
            ...(full ? { full } : {}),
            onProgress: (p) => bar?.show(syncProgressText(p.done, p.total, p.format, columns()), p.done === p.total),
            onWarning: (w) => warnParse(out, w),
          });
        } finally {
          bar?.done();
        }
      };
      try {
        // --full: the first sync only; what --watch follows after it is what changes
        const first = await runOnce(false, opts.full === true);
        if (opts.json) printJson(ctx, { index: path, ...first });
        else ctx.stderr(`${summary(first)}\n`);
        if (!opts.watch) return;
        ctx.stderr(`watching for changes (Ctrl-C to stop)\n`);
        const stopped = new AbortController();
        void untilStopped().then(() => stopped.abort());
        await followChanges(() => runOnce(true), {
          intervalMs: opts.interval,
          signal: stopped.signal,
          onChange: (r) => {
            if (opts.json) ctx.stdout(`${JSON.stringify({ at: new Date().toISOString(), ...r })}\n`);
            else ctx.stderr(`${summary(r)}\n`);
          },
          onError: (e) => warn(ctx, `sync failed, trying again: ${e.message}`),
        });
      } finally {
        await store.close();
      }
    });
}
