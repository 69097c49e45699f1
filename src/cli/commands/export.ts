import { join } from 'node:path';
import type { Command } from 'commander';
import { childSessionsFrom } from '../../convert/session.js';
import { EXPORT_FORMATS, type ExportFormat, exportSession, subAgentsOf } from '../../export/index.js';
import { sessionAsOpencodeExport } from '../../formats/opencode/export.js';
import { checkWritable, writeFileAtomic } from '../../formats/shared/atomic.js';
import { loadPrices } from '../../stores/index-sync/prices.js';
import { threadbaseHome } from '../../stores/open.js';
import { type CliContext, NO_INDEX_FLAG, openSession, reportWarnings } from '../io.js';
import { agentOption, oneOfOption, pricesFileOption } from '../options.js';

export function registerExport(program: Command, ctx: CliContext): void {
  program
    .command('export <id>')
    .description('a session as a self-contained HTML page, Markdown, JSON of the model, or OpenCode export JSON (opencode)')
    .option('--source <source>', 'look only in this agent', agentOption)
    .option('--format <format>', [...EXPORT_FORMATS, 'opencode'].join('|'), oneOfOption([...EXPORT_FORMATS, 'opencode']), 'html')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .option(...NO_INDEX_FLAG)
    .option(
      '--prices <file>',
      'model prices (JSON, USD per million tokens) over the bundled table, for costs the agent did not record',
      pricesFileOption,
    )
    .action(async (id: string, opts: { source?: string; format: string; output?: string; prices?: string; index: boolean }) => {
      // `opencode`: OpenCode's export JSON, which `opencode import <file>` takes.
      const opencode = opts.format === 'opencode';
      // a place that cannot be written is said before a large session is read and rendered
      if (opts.output) await checkWritable(opts.output);
      const { session, driver } = await openSession(ctx, id, opts.source, opts.index);
      reportWarnings(ctx, session.warnings);
      const text = opencode
        ? `${JSON.stringify(sessionAsOpencodeExport(session), null, 2)}\n`
        : exportSession(session, opts.format as ExportFormat, {
            prices: loadPrices(opts.prices ?? join(threadbaseHome(ctx.env), 'prices.json')),
            // the page and the Markdown show each sub-agent's work under the call that ran it
            ...(opts.format !== 'json' ? { subAgents: await subAgentsOf(session, childSessionsFrom(driver)) } : {}),
          });
      if (opts.output) {
        await writeFileAtomic(opts.output, text);
        ctx.stderr(`wrote ${opts.output}\n`);
      } else ctx.stdout(text);
    });
}
