import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type ChildSessions, childSessionsFrom, convertSessionAll, type WrittenSession } from '../../convert/session.js';
import { childSessionsInStore } from '../../convert/store-children.js';
import { writableFormatNames } from '../../formats/registry.js';
import { pickSession } from '../../formats/shared/base.js';
import type { SessionDriver } from '../../model/driver.js';
import { NotFoundError } from '../../model/errors.js';
import type { ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { openStore } from '../../stores/open.js';
import { THREADBASE_SOURCE } from '../../stores/shared.js';
import { type CliContext, NO_INDEX_FLAG, openSession, printJson, resolveSessionEntry, warn, writableIndexPath } from '../io.js';
import { agentOption, checkStoreKey, checkStoreOption, storeOpenError, targetOption, UsageError } from '../options.js';

interface ConvertFlags {
  to: string;
  source?: string;
  from?: string;
  at?: string;
  allBranches?: boolean;
  project?: string;
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

interface Described {
  id: string;
  source: string;
  path: string | null;
  command?: string;
  /** what to know before running `command` (a model the agent may not have) */
  note?: string;
  /** the model to resume with: its agent's configured one, where `note` says the recorded one will not do */
  model?: string;
  /** the call in the written parent that ran this sub-agent session */
  parentToolCallId?: string;
  warnings?: string[];
  /** the sub-agent sessions written under this one */
  children?: Described[];
}

function described(written: WrittenSession, resume?: string): Described {
  const warnings = warningsOf(written);
  return {
    id: written.id,
    source: written.source,
    path: written.path ?? null,
    ...(resume ? { command: resume } : {}),
    ...(written.parentToolCallId !== undefined && written.parentId ? { parentToolCallId: written.parentToolCallId } : {}),
    // only when the target could not keep something, so a lossless conversion prints {id, source, path}
    ...(warnings.length ? { warnings } : {}),
    ...(written.children?.length ? { children: written.children.map((c) => described(c)) } : {}),
  };
}

/** The session and its sub-agent sessions, depth first. */
const withDescendants = (d: Described): Described[] => [d, ...(d.children ?? []).flatMap(withDescendants)];

const isDirectory = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;

/**
 * Why the written session cannot be resumed as it is: an agent resumes a session in its project
 * directory (the resume command goes there; OpenCode runs it there whatever the current directory,
 * and fails with "Unexpected server error" when it is missing; pi refuses), so one that is not on
 * this machine needs creating, or the session another directory (`--project`). The threadbase
 * store, which resumes nothing, is not concerned.
 */
function missingProjectWarning(session: Session, target: SessionDriver): string | undefined {
  if (!target.resumeCommand || session.project === undefined || isDirectory(session.project)) return undefined;
  return `project directory ${session.project} of session ${session.id} does not exist on this machine, and ${target.name} resumes a session in its project directory: create it (or clone the project there) before resuming, or convert again with --project <dir> to write the session under a directory that exists`;
}

/**
 * Options of convert and handoff that contradict each other, refused before anything is read: each
 * was silently ignored (`--at` with `--all-branches` was still looked for in the session, then dropped).
 */
function refuseContradictions(opts: ConvertFlags): void {
  if (opts.at !== undefined && opts.allBranches)
    throw new UsageError('--at converts the path to one entry and --all-branches every branch: give one of them');
  const agentsOnly = [opts.source !== undefined ? '--source' : '', opts.index ? '' : '--no-index'].filter(Boolean);
  if (opts.from !== undefined && agentsOnly.length)
    throw new UsageError(
      `--from reads the session from ${opts.from}, not from the agents' files ${agentsOnly.join(' and ')} ${agentsOnly.length > 1 ? 'look' : 'looks'} in: give one or the other`,
    );
}

/** `fork` of an agent's session that cannot be forked: a copy is what a fork would write, bar the link to its origin, so the command that writes one is named. */
function cannotFork(agent: string, id: string, at: string | undefined): Error {
  const copy = writableFormatNames().includes(agent)
    ? `; \`threadbase convert ${id} --to ${agent}${at ? ` --at ${at}` : ''}\` writes a copy of it as a new session`
    : '';
  return new Error(`${agent} sessions cannot be forked${copy}`);
}

export function registerConvert(program: Command, ctx: CliContext): void {
  /**
   * The session from a store (a team server, PostgreSQL, an index file) rather than the agents' files,
   * and its sub-agent sessions there; `close` closes the store once they are read.
   */
  const fromStore = async (
    url: string,
    id: string,
  ): Promise<{ session: Session; childrenOf: ChildSessions; close: () => Promise<void> }> => {
    checkStoreOption('--from', url);
    checkStoreKey('--from', url, ctx.env.env);
    const store = await openStore(url, { env: ctx.env, warn: (m) => warn(ctx, m) }).catch((err: unknown) => {
      throw storeOpenError('--from', url, err);
    });
    const close = async () => {
      await store.close?.();
    };
    try {
      let session = await store.getSession(id);
      if (!session) {
        // a unique prefix names a session here as it does in the agents' stores
        session = await store.getSession(pickSession(await store.listSessions(), id).id);
      }
      if (!session) throw new NotFoundError('session', id);
      return { session, childrenOf: childSessionsInStore(store), close };
    } catch (e) {
      await close();
      throw e;
    }
  };
  const convert = async (id: string, opts: ConvertFlags, handoff: boolean) => {
    refuseContradictions(opts);
    // a directory to resume in that is not there fails before anything is read or written
    const project = opts.project === undefined ? undefined : resolve(opts.project);
    if (project !== undefined && !isDirectory(project)) throw new UsageError(`--project ${opts.project}: no such directory`);
    // threadbase's own sessions live in the local index: an unusable THREADBASE_HOME is named before reading
    if (opts.to === THREADBASE_SOURCE) writableIndexPath(ctx);
    // the sub-agent sessions go along from the store the session is read from (an agent's own, or --from)
    const opened = opts.from
      ? await fromStore(opts.from, id)
      : await openSession(ctx, id, opts.source, opts.index).then((o) => ({
          session: o.session,
          childrenOf: childSessionsFrom(o.driver),
          close: async () => {},
        }));
    try {
      await convertOpened(opened.session, opened.childrenOf, project, opts, handoff);
    } finally {
      await opened.close();
    }
  };
  const convertOpened = async (
    found: Session,
    childrenOf: ChildSessions,
    project: string | undefined,
    opts: ConvertFlags,
    handoff: boolean,
  ) => {
    const session = project === undefined ? found : { ...found, project };
    const target = ctx.sources().driver(opts.to);
    const at = opts.at === undefined ? undefined : resolveSessionEntry(session, opts.at);
    const written = await convertSessionAll(session, target, { at, allBranches: opts.allBranches, childrenOf });
    const rows = written.map((w) => described(w, handoff ? target.resumeCommand?.(w) : undefined));
    // `command` as it must be run here (with the model `note` names), printed instead of it; not in --json
    const runHere = new Map<Described, string>();
    if (handoff && target.resumeAdvice)
      for (const [i, w] of written.entries()) {
        const row = rows[i];
        const advice = row?.command ? await target.resumeAdvice(w) : undefined;
        if (row && advice) {
          row.note = advice.note;
          if (advice.model) row.model = advice.model;
          runHere.set(row, advice.command);
        }
      }
    // on stderr only: `warnings` in --json are what the target could not keep, and this is no loss
    const missing = missingProjectWarning(session, target);
    if (missing) warn(ctx, missing);
    for (const r of rows.flatMap(withDescendants)) for (const m of r.warnings ?? []) warn(ctx, m);
    if (opts.json) return printJson(ctx, rows.length === 1 ? rows[0] : rows);
    for (const r of rows) {
      ctx.stdout(`wrote ${r.source} session ${r.id}${r.path ? ` at ${r.path}` : ''}\n`);
      const here = runHere.get(r);
      if (handoff && here && r.note) ctx.stdout(`resume it with:\n  ${here}\n${r.note}\n`);
      else if (handoff) ctx.stdout(r.command ? `resume it with:\n  ${r.command}\n` : `(${r.source} has no resume command)\n`);
      for (const c of (r.children ?? []).flatMap(withDescendants))
        ctx.stdout(`wrote ${c.source} sub-agent session ${c.id}${c.path ? ` at ${c.path}` : ''}\n`);
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
      .requiredOption('--to <agent>', writableFormatNames().join(', '), targetOption)
      .option('--source <source>', 'look only in this agent', agentOption)
      .option(
        '--from <store>',
        'read the session from a store instead: http(s)://KEY@host of a team server (or the key in $THREADBASE_API_KEY), postgres://…, sqlite:PATH',
      )
      .option('--at <entry>', 'convert the path to this entry instead of the current branch')
      .option('--all-branches', 'keep every branch (one session per branch where the target has no trees)')
      .option('--project <dir>', "write the session under this project directory instead of the session's own")
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
      // an agent that cannot fork, named by --source: said before the session is looked for
      if (opts.source && !ctx.sources().driver(opts.source).forkSession) throw cannotFork(opts.source, id, opts.at);
      const { info, driver, session } = await openSession(ctx, id, opts.source, opts.index);
      if (!driver.forkSession) throw cannotFork(driver.name, info.id, opts.at);
      const at = opts.at === undefined ? undefined : resolveSessionEntry(session, opts.at);
      const written = await driver.forkSession(info.id, { at });
      const out = { id: written.id, source: written.source, path: written.path ?? null, parentId: info.id };
      if (opts.json) await printJson(ctx, out);
      else ctx.stdout(`forked ${info.id} into ${out.source} session ${out.id}${out.path ? ` at ${out.path}` : ''}\n`);
    });
}
