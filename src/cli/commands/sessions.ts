import type { Command } from 'commander';
import { type SessionInfo, sessionRow } from '../../model/types.js';
import { listThroughIndex } from '../../stores/index-sync/fresh.js';
import { indexPath } from '../../stores/index-sync/sync.js';
import { type CliContext, printJson, reportWarnings, terminalColumns, warn } from '../io.js';
import {
  agentOption,
  listedTime,
  positiveIntOption,
  projectOption,
  sinceFlag,
  timeZoneFlag,
  untilFlag,
  zonedWindow,
} from '../options.js';
import { cutToColumns, oneLine, padEndColumns, padStartColumns, stringWidth } from '../text-width.js';

/**
 * `sessions` found none: one line on stderr saying so and where it looked (each agent's place under
 * HOME, and the variables that move one), as an empty answer read as a hang or a broken install;
 * stdout stays empty for a pipe.
 */
function noSessionsLine(ctx: CliContext, opts: { source?: string; project?: string; since?: string; until?: string }): string {
  const agents = opts.source ? [opts.source] : ctx.sources().names();
  const agentVariable = new RegExp(
    `^(?:(?:${agents.map((a) => a.toUpperCase()).join('|')})_(?:[A-Z_]*_)?(?:HOME|DIR|DB)|XDG_DATA_HOME|XDG_CONFIG_HOME)$`,
  );
  const moved = Object.entries(ctx.env.env)
    .filter(([name, value]) => value && agentVariable.test(name))
    .map(([name, value]) => `${name}=${value}`)
    .sort();
  const filters = [
    opts.project ? `--project ${opts.project}` : '',
    opts.since ? `--since ${opts.since}` : '',
    opts.until ? `--until ${opts.until}` : '',
  ].filter(Boolean);
  const what = `no ${opts.source ? `${opts.source} ` : ''}sessions${filters.length ? ` match ${filters.join(' ')}` : ' found'}`;
  const where = `looked where ${agents.join(', ')} ${agents.length > 1 ? 'keep' : 'keeps'} them under ${ctx.env.home}`;
  return `threadbase: ${what}: ${where}${moved.length ? ` (${moved.join(', ')})` : ''}\n`;
}

/** The rows of `sessions`, a session held by several files once, with a warning naming the files (Sources.oneOfEachCopy). */
async function oneOfEachCopies(
  ctx: CliContext,
  sessions: SessionInfo[],
  fromIndex: readonly string[],
): Promise<{ sessions: SessionInfo[]; notes: Map<SessionInfo, string> }> {
  const once = await ctx.sources().oneOfEachCopy(sessions, fromIndex);
  // the warning of each kept copy, given only when it is among the rows shown
  const notes = new Map(
    once.copies.map(({ kept, files }) => [
      kept,
      `${files.length} ${kept.source} session files hold the id ${kept.id} (${files.join(', ')}): listing ${kept.path ?? '?'}`,
    ]),
  );
  return { sessions: once.sessions, notes };
}

export function registerSessions(program: Command, ctx: CliContext): void {
  program
    .command('sessions')
    .description('list the sessions of every agent')
    .option('--source <source>', 'only this agent (claude, pi, opencode, ...)', agentOption)
    .option('--project <path>', 'only sessions that ran in this directory (. is the current one)', projectOption)
    .addOption(sinceFlag('sessions updated since'))
    .addOption(untilFlag('sessions updated at or before'))
    .addOption(timeZoneFlag())
    .option('--limit <n>', 'at most n sessions', positiveIntOption)
    .option('--no-index', "list from the agents' files even when the index is fresh")
    .option('--json', 'print JSON only')
    .action(
      async (opts: {
        source?: string;
        project?: string;
        since?: string;
        until?: string;
        tz?: string;
        limit?: number;
        json?: boolean;
        index: boolean;
      }) => {
        const filter = {
          ...(opts.source ? { source: opts.source } : {}),
          ...(opts.project ? { project: opts.project } : {}),
          // a date alone is the user's own day, as git and stats read it, not UTC's
          ...zonedWindow(opts),
        };
        // The index answers for the stores it is fresh for (nothing changed since their last sync),
        // without parsing their files; the rest are listed from their files.
        const list = async (limit?: number) => {
          const byLimit = limit === undefined ? filter : { ...filter, limit };
          return (
            (opts.index ? await listThroughIndex(ctx.env, ctx.sources(), byLimit) : undefined) ?? {
              ...(await ctx.sources().list(byLimit)),
              fromIndex: [] as string[],
            }
          );
        };
        let listed = await list(opts.limit);
        let { sessions, notes } = await oneOfEachCopies(ctx, listed.sessions, listed.fromIndex);
        // a copy dropped from a full page leaves it a row short: listed whole then, and cut after
        if (opts.limit && sessions.length < opts.limit && listed.sessions.length >= opts.limit) {
          listed = await list();
          ({ sessions, notes } = await oneOfEachCopies(ctx, listed.sessions, listed.fromIndex));
        }
        for (const e of listed.errors) {
          // threadbase's own sessions are in the index's database: SQLite's errors name no file
          const where =
            e.source === 'threadbase' && !e.error.message.includes(indexPath(ctx.env)) ? ` (${indexPath(ctx.env)})` : '';
          warn(ctx, `${e.source}${where}: ${e.error.message}`);
        }
        const shown = opts.limit ? sessions.slice(0, opts.limit) : sessions;
        for (const s of shown) {
          if (!listed.fromIndex.includes(s.source)) reportWarnings(ctx, (s.meta?.warnings as never) ?? undefined);
          const note = notes.get(s);
          if (note) warn(ctx, note);
        }
        const rows = shown.map(sessionRow);
        // a fork's row says where in its parent it starts (the entry `show --json` gives as parentEntryId);
        // other rows keep their shape
        if (opts.json)
          return printJson(
            ctx,
            rows.map((r, i) => {
              const at = shown[i]?.parentEntryId;
              return at ? { ...r, parentEntryId: at } : r;
            }),
          );
        if (!rows.length) return ctx.stderr(noSessionsLine(ctx, opts));
        // columns as wide as their widest cell (ids and agents differ in length); a title on one line,
        // cut to the terminal's width on a terminal (whole in a pipe, for grep)
        const idWidth = Math.max(0, ...rows.map((r) => stringWidth(r.id)));
        const sourceWidth = Math.max(0, ...rows.map((r) => stringWidth(r.source)));
        const countWidth = Math.max(4, ...rows.map((r) => String(r.messageCount).length));
        const columns = terminalColumns(ctx);
        for (const r of rows) {
          const head = `${padEndColumns(r.id, idWidth)}  ${padEndColumns(r.source, sourceWidth)}  ${listedTime(r.updatedAt, opts.tz).padEnd(16)}  ${padStartColumns(String(r.messageCount), countWidth)} msgs  `;
          const tail = r.parentId ? `  (child of ${r.parentId})` : '';
          const title = oneLine(r.title ?? '');
          const room = columns ? columns - stringWidth(head) - stringWidth(tail) : undefined;
          const shown = room === undefined ? title : cutToColumns(title, room);
          ctx.stdout(`${shown ? head + shown : head.trimEnd()}${tail}\n`);
        }
      },
    );
}
