import type { Command } from 'commander';
import { contextFormatNames, renderContext } from '../../convert/formats.js';
import { branches, currentLeaf } from '../../model/tree.js';
import { type CliContext, NO_INDEX_FLAG, openSession, printJson, reportWarnings } from '../io.js';
import { describeEntry, drawTree } from '../tree-view.js';

export function registerShow(program: Command, ctx: CliContext): void {
  program
    .command('show <id>')
    .description('a session and its entry tree')
    .option('--source <source>', 'look only in this agent')
    .option('--tree', 'draw the entry tree with the current leaf marked')
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only')
    .action(async (id: string, opts: { source?: string; tree?: boolean; json?: boolean; index: boolean }) => {
      const { session } = await openSession(ctx, id, opts.source, opts.index);
      reportWarnings(ctx, session.warnings);
      if (opts.json) {
        const { warnings: _w, ...rest } = session;
        return printJson(ctx, {
          ...rest,
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
      if (session.title) ctx.stdout(`title:   ${session.title}\n`);
      if (session.project) ctx.stdout(`project: ${session.project}\n`);
      ctx.stdout(
        `created: ${session.createdAt}\nupdated: ${session.updatedAt}\nentries: ${session.entries.length}, messages: ${session.messageCount}\n`,
      );
      if (session.parentId)
        ctx.stdout(`parent:  ${session.parentId}${session.parentToolCallId ? ` (tool call ${session.parentToolCallId})` : ''}\n`);
      if (session.path) ctx.stdout(`path:    ${session.path}\n`);
      ctx.stdout('\n');
      if (opts.tree) ctx.stdout(`${drawTree(session)}\n`);
      else for (const e of session.entries) ctx.stdout(`${e.id.slice(0, 12)} ${describeEntry(e)}\n`);
    });

  program
    .command('context <id>')
    .description('the context a model sees when the session is resumed')
    .option('--source <source>', 'look only in this agent')
    .option('--leaf <entry>', 'resume at this entry instead of the current leaf')
    .option('--format <format>', `one of: ${contextFormatNames().join(', ')} (and those converters add)`, 'markdown')
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only (the default for JSON formats)')
    .action(async (id: string, opts: { source?: string; leaf?: string; format: string; index: boolean }) => {
      const { info, driver } = await openSession(ctx, id, opts.source, opts.index);
      const context = await driver.getContext(info.id, { leafId: opts.leaf });
      const out = renderContext(context, opts.format);
      if (typeof out === 'string') ctx.stdout(out.endsWith('\n') ? out : `${out}\n`);
      else printJson(ctx, out);
    });
}
