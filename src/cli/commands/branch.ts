import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { SessionDriver } from '../../model/driver.js';
import { UnsupportedError } from '../../model/errors.js';
import { currentLeaf } from '../../model/tree.js';
import type { Entry } from '../../model/types.js';
import { type CliContext, NO_INDEX_FLAG, openSession, printJson, resolveSessionEntry } from '../io.js';
import { agentOption, UsageError } from '../options.js';

interface BranchFlags {
  at: string;
  summary?: string;
  message?: string;
  source?: string;
  json?: boolean;
  index: boolean;
}

export function registerBranch(program: Command, ctx: CliContext): void {
  program
    .command('branch <id>')
    .description('branch in place: start a new branch under an earlier entry of the same session')
    .requiredOption('--at <entry>', 'the entry the new branch grows from')
    .option('--summary <text>', 'record a summary of the branch being left (a branch summary entry)')
    .option('--message <text>', 'a user message that starts the new branch')
    .option('--source <source>', 'look only in this agent', agentOption)
    .option(...NO_INDEX_FLAG)
    .option('--json', 'print JSON only')
    .action(async (id: string, opts: BranchFlags) => {
      // In a file-based tree the leaf is the last entry written, so a branch needs an entry to start it
      // (said before the session is looked for, as a missing --at is).
      if (opts.summary === undefined && opts.message === undefined)
        throw new UsageError('give --summary and/or --message: a new branch starts with an entry');
      const branches = (d: SessionDriver) => d.capabilities.branch && d.appendEntries !== undefined;
      // an agent that cannot branch, named by --source: said before the session is looked for too
      if (opts.source && !branches(ctx.sources().driver(opts.source))) throw new UnsupportedError(opts.source, 'branch in place');
      const { info, session, driver } = await openSession(ctx, id, opts.source, opts.index);
      if (!branches(driver) || !driver.appendEntries) throw new UnsupportedError(driver.name, 'branch in place');
      const at = resolveSessionEntry(session, opts.at);
      const taken = new Set(session.entries.map((e) => e.id));
      // New ids in the shape the session already uses (pi: 8 hex characters; others: UUIDs).
      const short = at.length === 8;
      const mint = () => {
        let nid = '';
        do nid = short ? randomUUID().slice(0, 8) : randomUUID();
        while (taken.has(nid));
        taken.add(nid);
        return nid;
      };
      const now = new Date().toISOString();
      const fromId = currentLeaf(session)?.id;
      const entries: Entry[] = [];
      let parent = at;
      if (opts.summary !== undefined) {
        const eid = mint();
        entries.push({
          id: eid,
          parentId: parent,
          timestamp: now,
          kind: 'branch_summary',
          summary: opts.summary,
          ...(fromId ? { fromId } : {}),
        });
        parent = eid;
      }
      if (opts.message !== undefined) {
        const eid = mint();
        entries.push({
          id: eid,
          parentId: parent,
          timestamp: now,
          kind: 'message',
          message: { role: 'user', parts: [{ type: 'text', text: opts.message }] },
        });
        parent = eid;
      }
      await driver.appendEntries(info.id, entries);
      const out = { id: info.id, source: info.source, at, leafId: parent, entries: entries.map((e) => e.id) };
      if (opts.json) await printJson(ctx, out);
      else ctx.stdout(`branched ${info.id} at ${at}; new leaf ${parent}\n`);
    });
}
