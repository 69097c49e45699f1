import type { Command } from 'commander';
import { openFreshIndex } from '../../stores/index-sync/fresh.js';
import type { PriceTable } from '../../stores/index-sync/prices.js';
import { STATS_BY, type StatsBy, type StatsRow, stats } from '../../stores/index-sync/stats.js';
import { type CliContext, printJson, warnIfNeverSynced, warnParse, writableIndexPath } from '../io.js';
import {
  agentOption,
  checkTimeWindow,
  oneOfOption,
  pricesFileOption,
  pricesOf,
  projectOption,
  sinceOption,
  untilOption,
} from '../options.js';
import { padEndColumns, stringWidth } from '../text-width.js';

export function registerStats(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description('tokens and cost of every agent, by day, week, month, model, project, session or source')
    .option('--by <key>', `group by ${STATS_BY.join('|')}`, oneOfOption(STATS_BY), 'day')
    .option('--since <time>', 'only messages at or after (ISO date or time)', sinceOption)
    .option('--until <time>', 'only messages at or before (ISO date or time; a date: through its end)', untilOption)
    .option('--source <source>', 'only this agent', agentOption)
    .option('--project <path>', 'only this directory (. is the current one)', projectOption)
    .option('--prices <file>', 'model prices (JSON, USD per million tokens) over the bundled table', pricesFileOption)
    .option('--no-sync', 'use the index as it is, without bringing it up to date')
    .option('--json', 'print JSON only')
    .action(
      async (opts: {
        by: string;
        since?: string;
        until?: string;
        source?: string;
        project?: string;
        prices?: PriceTable;
        sync: boolean;
        json?: boolean;
      }) => {
        checkTimeWindow(opts.since, opts.until);
        const prices = pricesOf(opts.prices, ctx.env);
        writableIndexPath(ctx);
        const store = await openFreshIndex(ctx.env, ctx.sources(), {
          sync: opts.sync,
          ...(opts.source ? { formats: [opts.source] } : {}),
          onWarning: (w) => warnParse(ctx, w),
        });
        try {
          if (!opts.sync) await warnIfNeverSynced(ctx, store, opts.source);
          const rows = stats(store, prices, {
            by: opts.by as StatsBy,
            ...(opts.since ? { since: opts.since } : {}),
            ...(opts.until ? { until: opts.until } : {}),
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
          });
          const unpricedOf = (r: StatsRow) => r.unpricedModels ?? [];
          // `cost` stays the number it was (what could be priced); these say whether that is all of it
          if (opts.json)
            return printJson(
              ctx,
              rows.map((r) => ({ ...r, costKnown: !unpricedOf(r).length, unpricedModels: unpricedOf(r) })),
            );
          // nothing counted: said on stderr, as `search` says no matches (a header alone read as a table)
          if (!rows.length) {
            const given = [
              opts.source ? `--source ${opts.source}` : '',
              opts.project ? `--project ${opts.project}` : '',
              opts.since ? `--since ${opts.since}` : '',
              opts.until ? `--until ${opts.until}` : '',
            ].filter(Boolean);
            return ctx.stderr(`threadbase: no usage recorded${given.length ? ` for ${given.join(' ')}` : ''}\n`);
          }
          const n = (x: number) => x.toLocaleString('en-US');
          // each key whole (a session id with its agent, a project's path): cut, it could not be given back
          const keys = rows.map((r) =>
            r.source ? `${r.key} (${r.source})` : r.key === '' && opts.by === 'project' ? '(no project)' : r.key,
          );
          // in display columns: a project's path may hold wide characters
          const width = Math.max(38, ...keys.map((k) => stringWidth(k)));
          ctx.stdout(
            `${'key'.padEnd(width)} ${'input'.padStart(12)} ${'output'.padStart(12)} ${'cache read'.padStart(14)} ${'cache write'.padStart(13)} ${'reasoning'.padStart(10)} ${'cost $'.padStart(10)} ${'msgs'.padStart(6)}\n`,
          );
          // a cost with tokens no price is known for: '—' when that is all of it, '+' after what could be priced
          const costCell = (r: StatsRow) =>
            !unpricedOf(r).length ? r.cost.toFixed(4) : r.cost > 0 ? `${r.cost.toFixed(4)}+` : '—';
          rows.forEach((r, i) => {
            ctx.stdout(
              `${padEndColumns(keys[i] as string, width)} ${n(r.inputTokens).padStart(12)} ${n(r.outputTokens).padStart(12)} ${n(r.cacheReadTokens).padStart(14)} ${n(r.cacheWriteTokens).padStart(13)} ${n(r.reasoningTokens).padStart(10)} ${costCell(r).padStart(10)} ${String(r.messages).padStart(6)}\n`,
            );
          });
          const models = [...new Set(rows.flatMap(unpricedOf))].sort();
          // on stderr, as the other notes: stdout stays the table, a header and one line a row
          if (models.length)
            ctx.stderr(
              `— / +: not in the cost (no price known, none recorded): ${models.join(', ')} (--prices FILE gives prices)\n`,
            );
        } finally {
          await store.close();
        }
      },
    );
}
