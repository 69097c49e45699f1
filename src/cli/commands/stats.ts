import type { Command } from 'commander';
import { localTimeZone } from '../../model/time-window.js';
import type { PriceTable } from '../../stores/index-sync/prices.js';
import { STATS_BY, type StatsBy, type StatsRow, stats } from '../../stores/index-sync/stats.js';
import { type CliContext, openCommandIndex, printJson, terminalColumns } from '../io.js';
import {
  agentOption,
  oneOfOption,
  pricesFileOption,
  pricesOf,
  projectOption,
  sinceFlag,
  timeZoneOption,
  untilFlag,
  zonedWindow,
} from '../options.js';
import { padEndColumns, padStartColumns, stringWidth } from '../text-width.js';

/** A table's column: its heading and each row's cell, right-aligned, at least `width` wide in the full table. */
interface NumberColumn {
  heading: string;
  width: number;
  cells: string[];
}

/**
 * The rows as a table of `keys` and `columns`, one line a row; narrower than `screen` columns (a
 * terminal's width) where the whole table is not: the tokens in one column, and each key on a line
 * of its own above its numbers when even that is too wide. Every key stays whole.
 */
function statsTable(keyHeading: string, keys: string[], columns: NumberColumn[], screen: number | undefined): string[] {
  const widthOf = (c: NumberColumn) => Math.max(c.width, stringWidth(c.heading), ...c.cells.map((s) => stringWidth(s)));
  const keyWidth = Math.max(stringWidth(keyHeading), ...keys.map((k) => stringWidth(k)));
  const cellsOf = (cols: NumberColumn[], row: number | 'heading') =>
    cols.map((c) => padStartColumns(row === 'heading' ? c.heading : (c.cells[row] as string), widthOf(c))).join(' ');
  const lineWidth = (keyCol: number, cols: NumberColumn[]) => keyCol + cols.reduce((w, c) => w + 1 + widthOf(c), 0);
  const table = (cols: NumberColumn[], keyCol: number) => [
    `${padEndColumns(keyHeading, keyCol)} ${cellsOf(cols, 'heading')}`,
    ...keys.map((k, i) => `${padEndColumns(k, keyCol)} ${cellsOf(cols, i)}`),
  ];
  // the full table, keys in a column at least 38 wide (as it always was)
  const fullKeys = Math.max(38, keyWidth);
  if (screen === undefined || lineWidth(fullKeys, columns) <= screen) return table(columns, fullKeys);
  // narrow: input, output and the cache's reads and writes as one count of tokens, no column wider than it needs
  const tokenColumns = columns.slice(0, 4);
  const tokens: NumberColumn = {
    heading: 'tokens',
    width: 0,
    cells: keys.map((_, i) =>
      tokenColumns.reduce((sum, c) => sum + Number((c.cells[i] as string).replace(/,/g, '')), 0).toLocaleString('en-US'),
    ),
  };
  const narrow = [tokens, ...columns.slice(5)].map((c) => ({ ...c, width: 0 }));
  if (lineWidth(keyWidth, narrow) <= screen) return table(narrow, keyWidth);
  // stacked: each key on a line of its own, its numbers on the next, indented under their headings
  return [keyHeading, `  ${cellsOf(narrow, 'heading')}`, ...keys.flatMap((k, i) => [k, `  ${cellsOf(narrow, i)}`])];
}

export function registerStats(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description('tokens and cost of every agent, by day, week, month, model, project, session or source')
    .option('--by <key>', `group by ${STATS_BY.join('|')}`, oneOfOption(STATS_BY), 'day')
    .option(
      '--tz <zone>',
      "the time zone whose days, weeks (from Monday) and months --by counts, and --since/--until's dates are (IANA name or UTC; default: this machine's)",
      timeZoneOption,
    )
    .addOption(sinceFlag('messages at or after'))
    .addOption(untilFlag('messages at or before'))
    .option('--source <source>', 'only this agent', agentOption)
    .option('--project <path>', 'only this directory (. is the current one)', projectOption)
    .option('--prices <file>', 'model prices (JSON, USD per million tokens) over the bundled table', pricesFileOption)
    .option('--no-sync', 'use the index as it is, without bringing it up to date')
    .option('--json', 'print JSON only')
    .action(
      async (opts: {
        by: string;
        tz?: string;
        since?: string;
        until?: string;
        source?: string;
        project?: string;
        prices?: PriceTable;
        sync: boolean;
        json?: boolean;
      }) => {
        const timeZone = opts.tz ?? localTimeZone();
        const { since, until } = zonedWindow({ ...opts, tz: timeZone });
        const prices = pricesOf(opts.prices, ctx.env);
        const { store } = await openCommandIndex(ctx, opts);
        try {
          const rows = stats(store, prices, {
            by: opts.by as StatsBy,
            ...(since ? { since } : {}),
            ...(until ? { until } : {}),
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
            timeZone,
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
          // a cost with tokens no price is known for: '—' when that is all of it, '+' after what could be priced
          const costCell = (r: StatsRow) =>
            !unpricedOf(r).length ? r.cost.toFixed(4) : r.cost > 0 ? `${r.cost.toFixed(4)}+` : '—';
          // each column as wide as it always was, wider where a number needs it
          const column = (heading: string, width: number, cell: (r: StatsRow) => string): NumberColumn => ({
            heading,
            width,
            cells: rows.map(cell),
          });
          const columns = [
            column('input', 12, (r) => n(r.inputTokens)),
            column('output', 12, (r) => n(r.outputTokens)),
            column('cache read', 14, (r) => n(r.cacheReadTokens)),
            column('cache write', 13, (r) => n(r.cacheWriteTokens)),
            column('reasoning', 10, (r) => n(r.reasoningTokens)),
            column('cost $', 10, costCell),
            column('msgs', 6, (r) => String(r.messages)),
          ];
          // the days' zone in the heading: a day in Berlin is not one in UTC
          const timeKey = opts.by === 'day' || opts.by === 'week' || opts.by === 'month';
          const heading = timeKey ? `${opts.by} (${timeZone})` : opts.by;
          for (const line of statsTable(heading, keys, columns, terminalColumns(ctx))) ctx.stdout(`${line}\n`);
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
