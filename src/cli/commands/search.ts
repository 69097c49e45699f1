import type { Command } from 'commander';
import { type CliContext, colorOnStdout, openCommandIndex, printJson, terminalColumns } from '../io.js';
import {
  agentOption,
  listedTime,
  positiveIntOption,
  projectOption,
  roleOption,
  sinceFlag,
  timeZoneFlag,
  UsageError,
  untilFlag,
  zonedWindow,
} from '../options.js';
import { cutStartToColumns, cutToColumns, graphemesOf, oneLine, padEndColumns, stringWidth } from '../text-width.js';
import { shortIds } from '../tree-view.js';

/**
 * A snippet's hits in bold on a terminal: the `[word]`s the index marks, each one word (the index's
 * tokens), so the text's own brackets ('[Your previous response…]') stay as they are.
 */
export function highlightHits(snippet: string): string {
  return snippet.replace(HIT, '\x1b[1;33m$1\x1b[0m');
}

const HIT = /\[([\p{L}\p{N}\p{Co}]+)\]/gu;

/** A piece of a snippet a cut keeps or drops whole: one grapheme of its text, or one hit (a marked word). */
interface SnippetPiece {
  text: string;
  columns: number;
  hit: boolean;
}

/**
 * A snippet (its hits in [brackets]) on one line of at most `width` columns, its first hit in view: on a
 * narrow terminal a hit's line wrapped under the next hit, and a cut at its end alone could drop the very
 * word searched for. Cut with '…' on either side, around that hit; the hits bold when `colored` (their
 * brackets then take no column), else bracketed as the index marks them.
 */
export function fitSnippet(snippet: string, width: number, colored: boolean): string {
  const pieces: SnippetPiece[] = [];
  let at = 0;
  const text = oneLine(snippet);
  for (const m of text.matchAll(HIT)) {
    for (const g of graphemesOf(text.slice(at, m.index))) pieces.push({ text: g, columns: stringWidth(g), hit: false });
    const word = m[1] as string;
    pieces.push({ text: word, columns: stringWidth(word) + (colored ? 0 : 2), hit: true });
    at = m.index + m[0].length;
  }
  for (const g of graphemesOf(text.slice(at))) pieces.push({ text: g, columns: stringWidth(g), hit: false });
  const show = (p: SnippetPiece) => (!p.hit ? p.text : colored ? `\x1b[1;33m${p.text}\x1b[0m` : `[${p.text}]`);
  const columnsOf = (from: number, to: number) => {
    let n = 0;
    for (let i = from; i < to; i++) n += (pieces[i] as SnippetPiece).columns;
    return n;
  };
  const total = columnsOf(0, pieces.length);
  if (total <= width) return pieces.map(show).join('');
  if (width <= 1) return cutToColumns(text, width);
  const first = pieces.findIndex((p) => p.hit);
  if (first < 0) return cutToColumns(text, width);
  // the start kept when the first hit fits there with the end's '…'
  let from = 0;
  let to = first + 1;
  if (columnsOf(0, to) > width - 1) {
    const hit = pieces[first] as SnippetPiece;
    // a hit wider than the line alone: its start, cut
    if (hit.columns > width - 2) return `…${cutToColumns(hit.text, width - 1)}`;
    // else about a third of the room before the hit, what is left after it
    from = first;
    let used = hit.columns + 2;
    const before = Math.floor((width - used) / 3);
    for (let b = 0; from > 0 && b + (pieces[from - 1] as SnippetPiece).columns <= before; ) {
      b += (pieces[--from] as SnippetPiece).columns;
      used += (pieces[from] as SnippetPiece).columns;
    }
    for (; to < pieces.length && used + (pieces[to] as SnippetPiece).columns <= width; to++)
      used += (pieces[to] as SnippetPiece).columns;
    // the end reached: the room left goes before the hit ('…' at the end given back)
    if (to === pieces.length) used--;
    for (; from > 0 && used + (pieces[from - 1] as SnippetPiece).columns <= width; from--)
      used += (pieces[from - 1] as SnippetPiece).columns;
    if (from === 0) used--;
  } else {
    let used = columnsOf(0, to) + 1;
    for (; to < pieces.length && used + (pieces[to] as SnippetPiece).columns <= width; to++)
      used += (pieces[to] as SnippetPiece).columns;
  }
  let kept = pieces.slice(from, to).map(show).join('');
  if (from > 0) kept = `…${kept.trimStart()}`;
  return to < pieces.length ? `${kept.trimEnd()}…` : kept;
}

/** The columns a project keeps at least beside a hit's id on its line (of its path's end). */
const PROJECT_ROOM = 12;

/** `head` and the project after it in `columns`: the project's path cut at its start, else the line at its end. */
function fitHead(head: string, project: string | undefined, columns: number): string {
  const room = columns - stringWidth(head);
  if (room >= Math.min(PROJECT_ROOM, stringWidth(project ?? '')))
    return (head + cutStartToColumns(project ?? '', room)).trimEnd();
  return cutToColumns(head.trimEnd(), columns);
}

/**
 * `search ls -la`: a query's word may start with one '-' (a command's flags), which commander takes for an
 * option it does not know and refuses. Such a word, and the words after it, stay the query's, in order;
 * `--name` is still an option (a typo of one refused, with its suggestion), and after `--` all are words.
 */
export function keepDashWords(command: Command): Command {
  const parse = command.parseOptions.bind(command);
  command.parseOptions = (argv) => {
    const parsed = parse(argv);
    const { operands, unknown } = parsed;
    while (unknown.length) {
      const first = unknown[0] as string;
      if (first === '--') {
        operands.push(...unknown.splice(0).slice(1));
        break;
      }
      if (first.startsWith('--')) break;
      operands.push(unknown.shift() as string);
    }
    return parsed;
  };
  return command;
}

export function registerSearch(program: Command, ctx: CliContext): void {
  const command = program
    .command('search <query...>')
    .description('full-text search over messages, thinking, tool inputs and outputs of every agent (bm25 ranked)')
    .option('--source <source>', 'only this agent', agentOption)
    .option('--project <path>', 'only sessions that ran in this directory (. is the current one)', projectOption)
    .addOption(sinceFlag('entries at or after'))
    .addOption(untilFlag('entries at or before'))
    .addOption(timeZoneFlag())
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
          tz?: string;
          role?: string;
          tool?: string;
          limit: number;
          sync: boolean;
          json?: boolean;
        },
      ) => {
        // a date alone is the user's own day, as git and stats read it, not UTC's
        const window = zonedWindow(opts);
        // the index matches words: a query without one matched nothing and read as 'no matches'
        const query = words.join(' ');
        if (!/[\p{L}\p{N}\p{Co}]/u.test(query))
          throw new UsageError(`no word to search for in ${JSON.stringify(query)}: the index matches words (letters, digits)`);
        const { store } = await openCommandIndex(ctx, opts);
        try {
          const hits = await store.search(query, {
            ...(opts.source ? { source: opts.source } : {}),
            ...(opts.project ? { project: opts.project } : {}),
            ...window,
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
          // on a terminal each line fits its width (a wrapped hit ran into the next); in a pipe lines stay whole
          const columns = terminalColumns(ctx);
          for (const h of hits) {
            // an entry with no role is a summary (a compaction's or a branch's), the only other text indexed
            const about = `${h.source.padEnd(sourceWidth)} ${listedTime(h.timestamp, opts.tz)}  ${(h.role ?? 'summary').padEnd(roleWidth)} `;
            const entry = `    ${shortEntry(h.sessionId, h.entryId)}  `;
            if (columns === undefined) {
              ctx.stdout(
                `${padEndColumns(h.sessionId, idWidth)}  ${about}${h.project ?? ''}\n${entry}${bold(oneLine(h.snippet))}\n`,
              );
              continue;
            }
            const colored = colorOnStdout(ctx);
            const snippet = fitSnippet(h.snippet, columns - stringWidth(entry), colored);
            const head = `${padEndColumns(h.sessionId, idWidth)}  ${about}`;
            // the id, which `show` takes, stays whole: the rest moves under it when the line has no room for it
            const lines =
              stringWidth(head) + Math.min(PROJECT_ROOM, stringWidth(h.project ?? '')) <= columns
                ? [fitHead(head, h.project, columns)]
                : [cutToColumns(h.sessionId, columns), fitHead(`  ${about}`, h.project, columns)];
            ctx.stdout(`${lines.join('\n')}\n${entry}${snippet}\n`);
          }
          if (!hits.length) ctx.stderr('threadbase: no matches\n');
        } finally {
          await store.close();
        }
      },
    );
  keepDashWords(command);
}
