import { type Command, InvalidArgumentError } from 'commander';
import { contextFormatNames, renderContext } from '../../convert/formats.js';
import { messageToMarkdown } from '../../convert/markdown.js';
import { branches, currentLeaf, pathToLeaf } from '../../model/tree.js';
import type { Entry } from '../../model/types.js';
import {
  type CliContext,
  NO_INDEX_FLAG,
  openSession,
  printJson,
  reportWarnings,
  resolveSessionEntry,
  terminalColumns,
} from '../io.js';
import { agentOption, UsageError } from '../options.js';
import { oneLine } from '../text-width.js';
import { describeEntry, drawTree, fitLine, shortEntryIds, shownEntry } from '../tree-view.js';

export function registerShow(program: Command, ctx: CliContext): void {
  program
    .command('show <id>')
    .description('a session and its entry tree')
    .option('--source <source>', 'look only in this agent', agentOption)
    .option('--tree', 'draw the entry tree with the current leaf (and the --at entry) marked')
    .option('--all', "also list the agent's own bookkeeping records (metadata entries)")
    .option('--at <entry>', 'only the path from the root to this entry (an id or prefix, as search prints), it in full')
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only')
    .action(
      async (
        id: string,
        opts: { source?: string; tree?: boolean; all?: boolean; at?: string; json?: boolean; index: boolean },
      ) => {
        const { session } = await openSession(ctx, id, opts.source, opts.index);
        reportWarnings(ctx, session.warnings);
        const at = opts.at === undefined ? undefined : resolveSessionEntry(session, opts.at);
        // --at: the entries on the way to that one (the branch it is on, up to it)
        const listed = at === undefined ? session.entries : pathToLeaf(session, at);
        if (opts.json) {
          const { warnings: _w, ...rest } = session;
          return printJson(ctx, {
            ...rest,
            ...(at !== undefined ? { at, entries: listed } : {}),
            leafId: currentLeaf(session)?.id ?? null,
            branches: branches(session).map((b) => ({
              leafId: b.leaf.id,
              forkPointId: b.forkPointId,
              length: b.length,
              current: b.current,
            })),
          });
        }
        ctx.stdout(`${session.source} session ${session.id}\n`);
        if (session.title) ctx.stdout(`title:   ${oneLine(session.title)}\n`);
        if (session.project) ctx.stdout(`project: ${session.project}\n`);
        ctx.stdout(
          `created: ${session.createdAt}\nupdated: ${session.updatedAt}\nentries: ${session.entries.length}, messages: ${session.messageCount}\n`,
        );
        if (session.parentId)
          ctx.stdout(
            `parent:  ${session.parentId}${session.parentToolCallId ? ` (tool call ${session.parentToolCallId})` : ''}\n`,
          );
        if (session.path) ctx.stdout(`path:    ${session.path}\n`);
        ctx.stdout('\n');
        // --tree --at: the whole tree, that entry marked (--at alone lists the path to it)
        const drawn = opts.tree ? session.entries : listed;
        // on a terminal each entry's line fits its width (in a pipe each text is cut at 70 columns alone)
        const columns = terminalColumns(ctx);
        if (opts.tree) ctx.stdout(`${drawTree(session, { all: opts.all, columns, ...(at !== undefined ? { at } : {}) })}\n`);
        else {
          const short = shortEntryIds(session.entries);
          for (const e of listed)
            if (shownEntry(e, opts.all) || e.id === at)
              ctx.stdout(`${fitLine(`${short.get(e.id)} ${describeEntry(e)}`, columns)}\n`);
        }
        const hidden = opts.all ? 0 : drawn.filter((e) => !shownEntry(e) && e.id !== at).length;
        if (hidden) ctx.stdout(`(${hidden} bookkeeping records of the agent not shown: --all lists them)\n`);
        const target = at === undefined ? undefined : listed[listed.length - 1];
        if (target) ctx.stdout(`\n${entryInFull(target)}\n`);
      },
    );

  program
    .command('context <id>')
    .description('the context a model sees when the session is resumed')
    .option('--source <source>', 'look only in this agent', agentOption)
    .option('--leaf <entry>', 'resume at this entry instead of the current leaf')
    .option(
      '--format <format>',
      `one of: ${contextFormatNames().join(', ')} (and those converters add) (default: markdown, with --json anthropic)`,
      contextFormatOption,
    )
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only: the anthropic format unless --format names another JSON one')
    .action(async (id: string, opts: { source?: string; leaf?: string; format?: string; json?: boolean; index: boolean }) => {
      const format = opts.format ?? (opts.json ? 'anthropic' : 'markdown');
      // refused before the session is looked for (it was read whole first, then refused)
      if (opts.json && isTextFormat(format)) throw textAsJson(format);
      const { info, driver, session } = await openSession(ctx, id, opts.source, opts.index);
      const leafId = opts.leaf === undefined ? undefined : resolveSessionEntry(session, opts.leaf);
      const context = await driver.getContext(info.id, { leafId });
      const out = renderContext(context, format);
      if (typeof out === 'string') {
        if (opts.json) throw textAsJson(format);
        ctx.stdout(out.endsWith('\n') ? out : `${out}\n`);
      } else await printJson(ctx, out);
    });
}

/** `context --format F`: a format a converter renders (an unknown one was refused only after reading the session). */
function contextFormatOption(value: string): string {
  const known = contextFormatNames();
  if (!known.includes(value)) throw new InvalidArgumentError(`Known formats: ${known.join(', ')}.`);
  return value;
}

/**
 * Whether a context format prints text (markdown) rather than JSON, known before any session is read:
 * what its renderer makes of an empty context (a renderer answers a string or an object whatever the
 * context; one that fails on an empty one is told by what it prints, after reading, as before).
 */
function isTextFormat(format: string): boolean {
  try {
    return typeof renderContext({ messages: [] }, format) === 'string';
  } catch {
    return false;
  }
}

/** `--json` with a format that prints text: a contradiction, refused as a usage error (exit 2). */
function textAsJson(format: string): UsageError {
  const json = contextFormatNames().filter((f) => !isTextFormat(f));
  return new UsageError(`--json: the ${format} format is text, not JSON (JSON formats: ${json.join(', ')})`);
}

/** The whole of one entry (`show --at`): a message as Markdown, a summary's text, else its one line. */
function entryInFull(e: Entry): string {
  if (e.kind === 'message') return messageToMarkdown(e.message).trimEnd();
  if (e.kind === 'compaction' || e.kind === 'branch_summary') return `## ${e.kind.replace('_', ' ')}\n\n${e.summary.trimEnd()}`;
  return describeEntry(e);
}
