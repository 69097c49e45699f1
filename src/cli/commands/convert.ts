import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { convertSessionAll } from '../../convert/session.js';
import { AmbiguousIdError, NotFoundError } from '../../model/errors.js';
import { resolveEntryId } from '../../model/tree.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { openStore } from '../../stores/open.js';
import { type CliContext, NO_INDEX_FLAG, openSession, printJson, warn } from '../io.js';
import { agentOption } from '../options.js';

interface ConvertFlags {
  to: string;
  source?: string;
  from?: string;
  at?: string;
  allBranches?: boolean;
  json?: boolean;
  index: boolean;
}

/** What the target could not keep (strings from convert, file-and-line warnings from a driver's read-back). */
function warningsOf(written: SessionInfo): string[] {
  const list = Array.isArray(written.meta?.warnings) ? (written.meta.warnings as unknown[]) : [];
  return list.map((w) => {
    if (typeof w === 'string') return w;
    const p = w as Partial<ParseWarning>;
    return `${p.file ?? '?'}${p.line !== undefined ? `:${p.line}` : ''}: ${p.message ?? JSON.stringify(w)}${p.id ? ` (${p.id})` : ''}`;
  });
}

function described(written: SessionInfo, resume?: string) {
  return {
    id: written.id,
    source: written.source,
    path: written.path ?? null,
    ...(resume ? { command: resume } : {}),
    // only when the target could not keep something, so a lossless conversion prints {id, source, path}
    ...(warningsOf(written).length ? { warnings: warningsOf(written) } : {}),
  };
}

export function registerConvert(program: Command, ctx: CliContext): void {
  /** The session from a store (a team server, PostgreSQL, an index file) rather than the agents' files. */
  const fromStore = async (url: string, id: string): Promise<Session> => {
    // a store file to read from is one that is there (opening a missing one made an empty one)
    const file = /^(sqlite|file):/.test(url)
      ? url.replace(/^(sqlite|file):(\/\/)?/, '')
      : url.startsWith('/') || url.startsWith('.')
        ? url
        : undefined;
    if (file !== undefined && !existsSync(file)) throw new Error(`--from ${url}: no such file`);
    const store = await openStore(url, { env: ctx.env, warn: (m) => warn(ctx, m) });
    try {
      let session = await store.getSession(id);
      if (!session) {
        // a unique prefix names a session here as it does in the agents' stores
        const matches = (await store.listSessions()).filter((s) => s.id.startsWith(id));
        if (matches.length > 1)
          throw new AmbiguousIdError(
            id,
            matches.map((s) => `${s.source}:${s.id}`),
          );
        if (matches[0]) session = await store.getSession(matches[0].id);
      }
      if (!session) throw new NotFoundError('session', id);
      return session;
    } finally {
      await store.close?.();
    }
  };
  const convert = async (id: string, opts: ConvertFlags, handoff: boolean) => {
    const session = opts.from ? await fromStore(opts.from, id) : (await openSession(ctx, id, opts.source, opts.index)).session;
    const target = ctx.sources().driver(opts.to);
    const at = opts.at === undefined ? undefined : resolveEntryId(session.entries, opts.at);
    const written = await convertSessionAll(session, target, { at, allBranches: opts.allBranches });
    const rows = written.map((w) => described(w, handoff ? target.resumeCommand?.(w) : undefined));
    for (const r of rows) for (const m of r.warnings ?? []) warn(ctx, m);
    if (opts.json) return printJson(ctx, rows.length === 1 ? rows[0] : rows);
    for (const r of rows) {
      ctx.stdout(`wrote ${r.source} session ${r.id}${r.path ? ` at ${r.path}` : ''}\n`);
      if (handoff) ctx.stdout(r.command ? `resume it with:\n  ${r.command}\n` : `(${r.source} has no resume command)\n`);
    }
  };

  for (const [name, handoff] of [
    ['convert', false],
    ['handoff', true],
  ] as const) {
    program
      .command(`${name} <id>`)
      .description(
        handoff
          ? 'convert the session into another agent and print the command that resumes it there'
          : "write the session into another agent's own store, resumable there",
      )
      .requiredOption('--to <agent>', 'claude, pi, opencode, codex or threadbase', agentOption)
      .option('--source <source>', 'look only in this agent', agentOption)
      .option(
        '--from <store>',
        'read the session from a store instead: http(s)://host of a team server (key: $THREADBASE_API_KEY), postgres://…, sqlite:PATH',
      )
      .option('--at <entry>', 'convert the path to this entry instead of the current branch')
      .option('--all-branches', 'keep every branch (one session per branch where the target has no trees)')
      .option(...NO_INDEX_FLAG)
      .option('--json', 'print JSON only')
      .action((id: string, opts: ConvertFlags) => convert(id, opts, handoff));
  }

  program
    .command('fork <id>')
    .description('fork a session at an entry into a new session of the same agent')
    .option('--source <source>', 'look only in this agent', agentOption)
    .option('--at <entry>', 'fork at this entry (default: the current leaf)')
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only')
    .action(async (id: string, opts: { source?: string; at?: string; json?: boolean; index: boolean }) => {
      const { info, driver, session } = await openSession(ctx, id, opts.source, opts.index);
      if (!driver.forkSession) throw new Error(`${driver.name} sessions cannot be forked`);
      const at = opts.at === undefined ? undefined : resolveEntryId(session.entries, opts.at);
      const written = await driver.forkSession(info.id, { at });
      const out = { id: written.id, source: written.source, path: written.path ?? null, parentId: info.id };
      if (opts.json) printJson(ctx, out);
      else ctx.stdout(`forked ${info.id} into ${out.source} session ${out.id}${out.path ? ` at ${out.path}` : ''}\n`);
    });
}
