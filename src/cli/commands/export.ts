import type { Command } from 'commander';
import { EXPORT_FORMATS, type ExportFormat, exportSession } from '../../export/index.js';
import { writeFileAtomic } from '../../formats/shared/atomic.js';
import { type CliContext, reportWarnings } from '../io.js';

export function registerExport(program: Command, ctx: CliContext): void {
  program
    .command('export <id>')
    .description('a session as a self-contained HTML page, Markdown, or JSON of the model')
    .option('--source <source>', 'look only in this agent')
    .option('--format <format>', EXPORT_FORMATS.join('|'), 'html')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (id: string, opts: { source?: string; format: string; output?: string }) => {
      if (!EXPORT_FORMATS.includes(opts.format as ExportFormat))
        throw new Error(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
      const { session } = await ctx.sources().open(id, opts.source);
      reportWarnings(ctx, session.warnings);
      const text = exportSession(session, opts.format as ExportFormat);
      if (opts.output) {
        await writeFileAtomic(opts.output, text);
        ctx.stderr(`wrote ${opts.output}\n`);
      } else ctx.stdout(text);
    });
}
