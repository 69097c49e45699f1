import { promises as fs } from 'node:fs';
import type { Command } from 'commander';
import { childSessionsFrom } from '../../convert/session.js';
import { EXPORT_FORMATS, exportSessionPieces, type RenderedFormat, subAgentsOf } from '../../export/index.js';
import { sessionAsOpencodeExport } from '../../formats/opencode/export.js';
import { checkWritable, writeFileAtomic } from '../../formats/shared/atomic.js';
import { ThreadbaseError } from '../../model/errors.js';
import { childSessionsThroughIndex } from '../../stores/index-sync/fresh.js';
import type { PriceTable } from '../../stores/index-sync/prices.js';
import { type CliContext, NO_INDEX_FLAG, openSession, reportWarnings, stdoutSink } from '../io.js';
import { jsonChunks, writePieces } from '../json-out.js';
import { agentOption, oneOfOption, pricesFileOption, pricesOf } from '../options.js';

interface ExportFlags {
  source?: string;
  format: string;
  output?: string;
  prices?: PriceTable;
  index: boolean;
}

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
    .action(async (id: string, opts: ExportFlags) => {
      // `opencode`: OpenCode's export JSON, which `opencode import <file>` takes.
      const opencode = opts.format === 'opencode';
      // a place that cannot be written is said before a large session is read and rendered
      const output = opts.output === undefined ? undefined : await outputTarget(opts.output);
      if (output?.atomic) await checkWritable(output.path);
      const { session, driver } = await openSession(ctx, id, opts.source, opts.index);
      reportWarnings(ctx, session.warnings);
      // the JSON formats in chunks as JSON.stringify(value, null, 2) writes them (json-out), not one string
      const pieces: Iterable<string> =
        opencode || opts.format === 'json'
          ? jsonChunks(opencode ? sessionAsOpencodeExport(session) : session, { indent: 2, end: '\n' })
          : exportSessionPieces(session, opts.format as RenderedFormat, {
              prices: pricesOf(opts.prices, ctx.env),
              // the page and the Markdown show each sub-agent's work under the call that ran it
              // (found through the index when it is fresh: the agent's listing parses every Claude Code transcript)
              subAgents: await subAgentsOf(
                session,
                opts.index === false ? childSessionsFrom(driver) : childSessionsThroughIndex(ctx.env, ctx.sources(), driver),
              ),
            });
      // rendered and written a batch at a time (the HTML and Markdown pieces are made as they are asked
      // for), never joined: a large session's document doubled the memory, and one over V8's longest
      // string (~512 MB) threw
      if (output) {
        if (output.atomic) await writeFileAtomic(output.path, batchesOf(pieces));
        else await writeStraight(output.path, batchesOf(pieces));
        ctx.stderr(`wrote ${opts.output}\n`);
      } else await writePieces(stdoutSink(ctx), batchesOf(pieces));
    });
}

/** About this many characters a write to stdout: few writes, and no string of the whole page. */
const BATCH_CHARS = 1 << 20;

/** The pieces joined into strings of about BATCH_CHARS each (one piece longer than that alone), in order. */
export function* batchesOf(pieces: Iterable<string>): Generator<string> {
  let batch: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    if (chars > 0 && chars + piece.length > BATCH_CHARS) {
      yield batch.join('');
      batch = [];
      chars = 0;
    }
    batch.push(piece);
    chars += piece.length;
  }
  if (chars > 0) yield batch.join('');
}

/**
 * Where `-o FILE` writes: a regular file (or a new one) is replaced atomically, through the file a
 * symlink names (the link stays a link); anything else there (`/dev/stdout`, a FIFO, a terminal) is
 * written to as it is. The atomic write renamed a temp file over it: a symlink became a plain file
 * and the file it named kept the old export; `/dev/stdout` was replaced by a file (as root) or refused.
 */
async function outputTarget(file: string): Promise<{ path: string; atomic: boolean }> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (stat && !stat.isFile() && !stat.isDirectory()) return { path: file, atomic: false };
  if (stat?.isFile()) return { path: await fs.realpath(file), atomic: true };
  return { path: file, atomic: true };
}

/**
 * Writes to a device or FIFO as it is, a batch at a time as they come; a write's error said as
 * writeFileAtomic says it, an error the batches throw (rendering) as it is.
 */
async function writeStraight(file: string, batches: Iterable<string>): Promise<void> {
  const cannotWrite = (err: unknown) =>
    new ThreadbaseError('write', `cannot write: ${(err as NodeJS.ErrnoException).message}`, { file }, { cause: err });
  const fh = await fs.open(file, 'w').catch((err: unknown) => {
    throw cannotWrite(err);
  });
  try {
    for (const batch of batches) {
      // from where the last batch ended (a FIFO has no position)
      await fh.writeFile(batch).catch((err: unknown) => {
        throw cannotWrite(err);
      });
    }
  } finally {
    await fh.close().catch(() => undefined);
  }
}
