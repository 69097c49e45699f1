import type { Command } from 'commander';
import { openFreshIndex } from '../../stores/index-sync/fresh.js';
import { type CliContext, colorOnStdout, printJson, warnIfNeverSynced, warnParse, writableIndexPath } from '../io.js';
import {
  agentOption,
  checkTimeWindow,
  positiveIntOption,
  projectOption,
  roleOption,
  sinceOption,
  UsageError,
  untilOption,
} from '../options.js';
import { oneLine, padEndColumns, stringWidth } from '../text-width.js';
import { shortIds } from '../tree-view.js';

/**
 * A snippet's hits in bold on a terminal: the `[word]`s the index marks, each one word (the index's
 * tokens), so the text's own brackets ('[Your previous response…]') stay as they are.
 */
export function highlightHits(snippet: string): string {
  return snippet.replace(/\[([\p{L}\p{N}\p{Co}]+)\]/gu, '\x1b[1;33m$1\x1b[0m');
}

export function registerSearch(program: Command, ctx: CliContext): void {
  program
    .command('search <query...>')
    .description('full-text search over messages, thinking, tool inputs and outputs of every agent (bm25 ranked)')
    .option('--source <source>', 'only this agent', agentOption)
    .option('--project <path>', 'only sessions that ran in this directory (. is the current one)', projectOption)
    .option('--since <time>', 'only entries at or after (ISO date or time)', sinceOption)
    .option('--until <time>', 'only entries at or before (ISO date or time; a date: through its end)', untilOption)
    .option('--role <role>', 'only user, assistant, tool or system messages', roleOption)
    .option('--tool <name>', 'only messages that call (or carry the result of) this tool')
    .option('--limit <n>', 'at most n hits', positiveIntOption, 20)
    .option('--no-sync', 'use the index as it is, without bringing it up to date')
    .option('--json', 'print JSON only')
    .action(
      async (
        words: string[],
        opts: {
          source?: string;
          project?: string;
          since?: string;
          until?: string;
          role?: string;
          tool?: string;
          limit: number;
          sync: boolean;
          json?: boolean;
        },
      ) => {
        checkTimeWindow(opts.since, opts.until);
        // the index matches words: a query without one matched nothing and read as 'no matches'
        const query = words.join(' ');
        if (!/[\p{L}\p{N}\p{Co}]/u.test(query))
          throw new UsageError(`no word to search for in ${JSON.stringify(query)}: the index matches words (letters, digits)`);
        writableIndexPath(ctx);
        const store = await openFreshIndex(ctx.env, ctx.sources(), {
          sync: opts.sync,
          ...(opts.source ? { formats: [opts.source] } : {}),
          onWarning: (w) => warnParse(ctx, w),
        });
        try {
          if (!opts.sync) await warnIfNeverSynced(ctx, store, opts.source);
          const hits = await store.search(query, {
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
            ...(opts.since ? { since: opts.since } : {}),
            ...(opts.until ? { until: opts.until } : {}),
            ...(opts.role ? { role: opts.role } : {}),
            ...(opts.tool ? { tool: opts.tool } : {}),
            limit: opts.limit,
          });
          if (opts.json) {
            return printJson(
              ctx,
              hits.map((h) => ({
                sessionId: h.sessionId,
                entryId: h.entryId,
                source: h.source,
                project: h.project ?? null,
                role: h.role ?? null,
                snippet: h.snippet,
                score: h.score,
                timestamp: h.timestamp,
              })),
            );
          }
          const bold = colorOnStdout(ctx) ? highlightHits : (s: string) => s;
          // each hit's entry id as `show` prints it (unique among its session's ids), for `show <session> --at <entry>`
          const idsOf = store.db.prepare('SELECT id FROM entries WHERE session_id = ?').pluck();
          const shortBySession = new Map<string, Map<string, string>>();
          const shortEntry = (sessionId: string, entryId: string): string => {
            let short = shortBySession.get(sessionId);
            if (!short) {
              short = shortIds(idsOf.all(sessionId) as string[]);
              shortBySession.set(sessionId, short);
            }
            return short.get(entryId) ?? entryId;
          };
          // columns as wide as this answer's longest source and role ('threadbase' is longer than the agents')
          // and the longest session id: agents' ids differ in length (a UUID, kilo's ses_…, cline's 1795…_x)
          const idWidth = Math.max(0, ...hits.map((h) => stringWidth(h.sessionId)));
          const sourceWidth = Math.max(8, ...hits.map((h) => h.source.length));
          const roleWidth = Math.max(9, ...hits.map((h) => (h.role ?? 'summary').length));
          for (const h of hits) {
            // an entry with no role is a summary (a compaction's or a branch's), the only other text indexed
            ctx.stdout(
              `${padEndColumns(h.sessionId, idWidth)}  ${h.source.padEnd(sourceWidth)} ${h.timestamp.slice(0, 16)}  ${(h.role ?? 'summary').padEnd(roleWidth)} ${h.project ?? ''}\n    ${shortEntry(h.sessionId, h.entryId)}  ${bold(oneLine(h.snippet))}\n`,
            );
          }
          if (!hits.length) ctx.stderr('threadbase: no matches\n');
        } finally {
          await store.close();
        }
      },
    );
}
