/**
 * What a target agent cannot keep of a session converted into it, worded as warnings (printed by
 * `threadbase convert` on stderr and in `--json` output as `warnings`). Each line names the
 * session, what is lost and how many. CONVERT.md has the same as a table per direction.
 * This module counts what a session holds; each agent's folder registers what its agent loses of it
 * (`registerConversionLosses`, as formats register context shapes). The format encoders add their
 * own warnings beside these (on every write, converted or not), which convert gives the same prefix
 * (asLossLine); a loss an encoder already says is not described again here, so each loss is said
 * once (test/convert/losses-said-once.test.ts).
 */
import type { Entry, Message, Part, Session } from '../model/types.js';
import { isProviderExecuted } from './provider-tools.js';
import { withSentWording } from './sent-wording.js';

/** What the entries a target did not write itself hold that some agent cannot keep. */
export interface LossCounts {
  costs: number;
  providers: Set<string>;
  unsignedThinking: number;
  signedThinking: number;
  redacted: number;
  urlImages: number;
  assistantImages: number;
  /** files without their text (a text note where the target has no file part) */
  fileNotes: number;
  systemMessages: number;
  foreignMetadata: number;
  modelChanges: number;
  labels: number;
  /** tool calls the provider ran itself (codex's web searches): a text note where the target has no form for them */
  providerCalls: number;
  /**
   * messages a compaction kept that were no entries (codex's replacement history), written after the
   * target's summary (convert/session.ts keptMessagesOf; system messages among them are counted as such)
   */
  compactionKept: number;
  /** of those, branch summaries (codex's copy of the user turn threadbase wrote for one) */
  compactionKeptBranchSummaries: number;
}

export interface LossReport {
  readonly session: Session;
  readonly counts: LossCounts;
  /** The entries the target did not write itself: its own records are written back as they were. */
  readonly foreign: readonly Entry[];
  /** A warning with how many, when there are any. */
  say(n: number, what: string): void;
  /** A warning as it stands. */
  line(what: string): void;
}

/** Says, through `report`, what one agent loses of a session written into it. */
export type LossDescriber = (report: LossReport) => void;

const describers = new Map<string, LossDescriber>();

export function registerConversionLosses(target: string, describe: LossDescriber): void {
  describers.set(target, describe);
}

function count(entries: readonly Entry[]): LossCounts {
  const c: LossCounts = {
    costs: 0,
    providers: new Set(),
    unsignedThinking: 0,
    signedThinking: 0,
    redacted: 0,
    urlImages: 0,
    assistantImages: 0,
    fileNotes: 0,
    systemMessages: 0,
    foreignMetadata: 0,
    modelChanges: 0,
    labels: 0,
    providerCalls: 0,
    compactionKept: 0,
    compactionKeptBranchSummaries: 0,
  };
  const part = (p: Part, m: Message) => {
    if (p.type === 'thinking' && m.role === 'assistant') {
      if (p.signature) c.signedThinking++;
      else if (p.thinking.trim()) c.unsignedThinking++;
    } else if (p.type === 'redacted_thinking') c.redacted++;
    else if (p.type === 'image') {
      if (m.role === 'assistant') c.assistantImages++;
      if (p.data === undefined) c.urlImages++;
    } else if (p.type === 'file' && p.text === undefined) c.fileNotes++;
    else if (p.type === 'tool_call' && isProviderExecuted(p)) c.providerCalls++;
    else if (p.type === 'tool_result' && Array.isArray(p.content))
      for (const x of p.content) if (x.type === 'image' && x.data === undefined) c.urlImages++;
  };
  for (const e of entries) {
    if (e.kind === 'message') {
      const m = e.message;
      if (m.cost !== undefined && m.cost > 0) c.costs++;
      if (m.provider) c.providers.add(m.provider);
      if (m.role === 'system') c.systemMessages++;
      else if (m.meta?.compactionKept === true) c.compactionKept++;
      for (const p of m.parts) part(p, m);
    } else if (e.kind === 'branch_summary' && e.compactionKept === true) {
      c.compactionKept++;
      c.compactionKeptBranchSummaries++;
    } else if (e.kind === 'metadata') c.foreignMetadata++;
    else if (e.kind === 'model_change') c.modelChanges++;
    else if (e.kind === 'label') c.labels++;
  }
  return c;
}

/**
 * Targets that write a compaction's kept messages back where the source sent them: codex, whose writer
 * puts copies right after another agent's summary into its `compacted` record, before the summary.
 */
const KEEPS_KEPT_BEFORE_SUMMARY = new Set(['codex']);

/**
 * How every loss line of one conversion begins, `claude:<id> → pi: `: the session as the caller named
 * it (its source and id where it was read) and the target, so that converting several sessions still
 * says which one each line is about.
 */
export function lossPrefix(session: string, target: string): string {
  return `${session} → ${target}: `;
}

/**
 * A warning the target's writer gave (its encoder's: written on every write, converted or not) as a
 * loss line of this conversion: prefixed as the converter's own (lossPrefix), where the encoder named
 * the session its own way first (`pi:x entry s: …`, one of `names`) without that name.
 */
export function asLossLine(warning: string, prefix: string, names: readonly string[]): string {
  if (warning.startsWith(prefix)) return warning;
  const named = names.find((n) => warning.startsWith(`${n} `) || warning.startsWith(`${n}: `));
  return `${prefix}${named === undefined ? warning : warning.slice(named.length).replace(/^:? /, '')}`;
}

/**
 * The warnings for writing `session` (as it will be written: one path or the whole tree) into
 * `target`; each line begins with lossPrefix(`shownAs`, target), `shownAs` the session as the caller
 * named it (default its source:id).
 */
export function conversionLosses(session: Session, target: string, shownAs = `${session.source}:${session.id}`): string[] {
  const describe = describers.get(target);
  if (!describe) return [];
  // counted as written: in the words the source agent sent (sent-wording.ts), its records it sent as
  // messages made those messages (a converted session is already so; wording it again changes no count)
  const foreign = withSentWording(session.entries, target).filter((e) => e.rawSource !== target);
  const prefix = lossPrefix(shownAs, target);
  const out: string[] = [];
  const report: LossReport = {
    session,
    counts: count(foreign),
    foreign,
    say: (n, what) => {
      if (n > 0) out.push(`${prefix}${what} (${n})`);
    },
    line: (what) => out.push(`${prefix}${what}`),
  };
  describe(report);
  // Every target's compaction form sends what follows its summary, and none keeps a message before it.
  if (!KEEPS_KEPT_BEFORE_SUMMARY.has(target)) {
    const summaries = report.counts.compactionKeptBranchSummaries;
    const among = summaries === 0 ? '' : summaries === 1 ? ', a branch summary' : `, ${summaries} branch summaries`;
    report.say(
      report.counts.compactionKept,
      `messages ${session.source}'s compaction kept (its replacement history: the user's earlier prompts, its environment context${among}) are written after ${target}'s compaction summary, so ${target} sends them after it (${session.source} sent them before its summary)`,
    );
  }
  return out;
}
