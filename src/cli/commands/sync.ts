import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { IndexSync, type SyncReport } from '../../stores/index-sync/sync.js';
import { followChanges } from '../../stores/index-sync/watch.js';
import { openSqliteStore } from '../../stores/sqlite/index.js';
import { type CliContext, printJson, untilStopped, warn, warnParse, writableIndexPath } from '../io.js';
import { agentListOption, positiveIntOption } from '../options.js';

/**
 * sync's progress bar on a terminal (cli-progress): line wrapping left on and the bar cut to leave the
 * terminal's last column free (a warning's file and line are never cut), each warning printed whole
 * above the bar (MultiBar.log), the bar cleared at the end so the summary follows the warnings.
 */
class SyncProgress {
  private readonly multi: cliProgress.MultiBar;
  private bar: cliProgress.SingleBar | undefined;

  constructor(private readonly ctx: CliContext) {
    // the CLI's stderr as the terminal cli-progress draws on
    const terminal = {
      isTTY: true,
      get columns() {
        return process.stderr.columns;
      },
      write: (s: string) => {
        ctx.stderr(s);
        return true;
      },
    };
    this.multi = new cliProgress.MultiBar(
      {
        stream: terminal as unknown as NodeJS.WritableStream,
        linewrap: true,
        clearOnComplete: true,
        format: (options, params, payload: { format: string }) => syncBarText(options, params, payload.format),
      },
      cliProgress.Presets.shades_classic,
    );
  }

  update(done: number, total: number, format: string): void {
    this.bar ??= this.multi.create(total, 0, { format });
    this.bar.setTotal(total);
    this.bar.update(done, { format });
  }

  log(line: string): void {
    if (this.bar) this.multi.log(line);
    else this.ctx.stderr(line);
  }

  /** The warnings still waiting printed, the bar cleared. */
  stop(): void {
    if (!this.bar) return;
    this.multi.update();
    this.multi.stop();
  }
}

/** `sync [#####-----] 12/45 claude`, its bar as wide as the terminal leaves room for (at most 40). */
export function syncBarText(
  options: { barCompleteChar?: string; barIncompleteChar?: string },
  params: { value: number; total: number },
  format: string,
  columns = process.stderr.columns,
): string {
  const tail = ` ${params.value}/${params.total} ${format}`;
  // room left for the longest agent name ('threadbase'), so the bar keeps its width from one agent to the
  // next; a terminal of no width (0: a pseudo-terminal never sized, as `script` makes) taken as 80, as cli-progress does
  const room =
    (columns || 80) - 1 - 'sync []'.length - Math.max(tail.length, ` ${params.total}/${params.total} threadbase`.length);
  const size = Math.min(40, room);
  if (size < 5) return `sync${tail}`;
  const full = params.total > 0 ? Math.round((params.value / params.total) * size) : 0;
  const bar = (options.barCompleteChar ?? '#').repeat(full) + (options.barIncompleteChar ?? '-').repeat(size - full);
  return `sync [${bar}]${tail}`;
}

/**
 * What a sync did, in a line: one that found nothing changed says the index is up to date ("indexed 20
 * sessions" read as if each had been read again).
 */
export function syncSummary(
  r: Pick<SyncReport, 'units' | 'reread' | 'appended' | 'unchanged' | 'removed' | 'failed' | 'ms'>,
): string {
  const sessions = `${r.units} session${r.units === 1 ? '' : 's'}`;
  const seconds = `${(r.ms / 1000).toFixed(2)} s`;
  if (r.reread + r.appended + r.removed + r.failed === 0)
    return `index up to date: ${sessions}, none changed (checked in ${seconds})`;
  return `indexed ${sessions} in ${seconds}: ${r.reread} read, ${r.appended} appended, ${r.unchanged} unchanged, ${r.removed} removed${r.failed ? `, ${r.failed} failed` : ''}`;
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
        const progress = tty && !quiet ? new SyncProgress(ctx) : undefined;
        // a warning while the bar is drawn: printed whole above it
        const out: CliContext = progress ? { ...ctx, stderr: (s) => progress.log(s) } : ctx;
        try {
          return await indexer.sync(ctx.sources(), {
            ...(formats ? { formats } : {}),
            ...(full ? { full } : {}),
            onProgress: (p) => progress?.update(p.done, p.total, p.format),
            onWarning: (w) => warnParse(out, w),
          });
        } finally {
          progress?.stop();
        }
      };
      try {
        // --full: the first sync only; what --watch follows after it is what changes
        const first = await runOnce(false, opts.full === true);
        if (opts.json) await printJson(ctx, { index: path, ...first });
        else ctx.stderr(`${syncSummary(first)}\n`);
        if (!opts.watch) return;
        const stopped = new AbortController();
        // listened for before saying so: a Ctrl-C right after the line killed the process unclosed
        void untilStopped().then(() => stopped.abort());
        ctx.stderr(`watching for changes (Ctrl-C to stop)\n`);
        await followChanges(() => runOnce(true), {
          intervalMs: opts.interval,
          signal: stopped.signal,
          onChange: (r) => {
            if (opts.json) ctx.stdout(`${JSON.stringify({ at: new Date().toISOString(), ...r })}\n`);
            else ctx.stderr(`${syncSummary(r)}\n`);
          },
          onError: (e) => warn(ctx, `sync failed, trying again: ${e.message}`),
        });
      } finally {
        await store.close();
      }
    });
}
