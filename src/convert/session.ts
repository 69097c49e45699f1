/**
 * Session → session across agents: the current branch (or the path to `at`) written by the
 * target's driver, or the whole tree / one session per branch with `allBranches`. The target is a
 * driver or an agent's name (resolved from the format registry, with the agents' default
 * locations and environment overrides).
 */

import { formatNames, Sources } from '../formats/registry.js';
import { copiedBranchSummaryOf } from '../formats/shared/branch-summary.js';
import { WRITTEN_BY } from '../formats/shared/written-by.js';
import { type DriverEnv, defaultDriverEnv, type SessionDriver } from '../model/driver.js';
import { UnsupportedError } from '../model/errors.js';
import { resumeContextOf } from '../model/resume.js';
import { type SideChainChild, sideChainChildren } from '../model/side-chains.js';
import { branches, currentLeaf, indexEntries, messageText, notAppliedOnResume, pathTo, pathToLeaf } from '../model/tree.js';
import type { CompactionEntry, Entry, Message, Session, SessionInfo, SourceName } from '../model/types.js';
import { THREADBASE_SOURCE } from '../stores/shared.js';
import { asLossLine, conversionLosses, lossPrefix } from './losses.js';
import { withSentWording } from './sent-wording.js';
import { childWriter } from './store-children.js';

export interface ConvertOptions {
  /** Convert the path to this entry instead of the current leaf. */
  at?: string;
  /**
   * Keep every branch: the whole tree where the target keeps trees (branch capability), else one
   * session per branch.
   */
  allBranches?: boolean;
  /**
   * The sub-agent sessions of a session (see childSessionsFrom): each one a call on the written path
   * ran is written under the written session where the target keeps sub-agent sessions
   * (writeChildSession; a threadbase store links each to the written session), their own sub-agents
   * under them; absent, only the session is written.
   */
  childrenOf?: ChildSessions;
}

/** The sub-agent sessions of a session, read whole; each names the call that ran it (parentToolCallId). */
export type ChildSessions = (sessionId: string) => Promise<Session[]>;

/**
 * A written session and the sub-agent sessions written under it: its sub-agent sessions (childrenOf) and,
 * for a target without side chains, its side chains as sessions of their own (withSideChainChildren).
 */
export interface WrittenSession extends SessionInfo {
  children?: WrittenSession[];
}

export interface ConvertToOptions extends ConvertOptions {
  /** The target: an agent's name (`claude`, `pi`, `opencode`, ...) or a driver. */
  to: SourceName | SessionDriver;
  /** Where a named target's data lives (default: this process's HOME and environment). */
  env?: DriverEnv;
}

/**
 * The linear session along one path: what a target without trees can hold. For a `target` other than
 * the session's own agent, a compaction's kept messages that are no entries follow it (keptMessagesOf),
 * and one the source agent does not apply on resume is left out.
 */
export function sessionAlongPath(session: Session, at?: string, target?: SourceName): Session {
  const full = pathToLeaf(session, at);
  const foreign = target !== undefined && target !== session.source;
  // a compaction the source agent does not resume from is no part of what the target resumes, unless asked for itself
  const pathToAt = foreign ? full.filter((e) => !notAppliedOnResume(e) || e.id === at) : full;
  const path = foreign ? withKeptMessages(session, pathToAt) : pathToAt;
  const linked = compactionsForTargets(path.map((e, i) => ({ ...e, parentId: i === 0 ? null : (path[i - 1]?.id ?? null) })));
  const entries = target === undefined ? linked : withSentWording(withSummaryTexts(session, linked, target), target);
  return { ...session, entries, leafId: entries[entries.length - 1]?.id ?? null };
}

/**
 * The agent whose wording a branch summary gets when its session is no agent's (threadbase's own store:
 * sessions made with the library, `source: 'threadbase'`, or any source without a ResumeContext): pi,
 * whose branch summaries the model's are, so every target sends what pi sends for it (pi itself always
 * wraps it in those words), rather than a bare summary the model would take for the user's own words.
 */
const BRANCH_SUMMARY_WORDING_OF = 'pi';

/**
 * The path with the side chains (sub-agent work kept in the session: Claude Code's in-file sidechains,
 * the Agent SDK's sub-agent messages) that start on it, or at no entry (`unrooted`), after its
 * entries, still marked `sidechain`: for a target that writes them as its sub-agent sessions
 * (capabilities.sideChains). A chain of records alone (no message) is no sub-agent's work.
 */
export function withSideChains(session: Session, along: Session, unrooted = true): Session {
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  const onPath = new Set(along.entries.map((e) => e.id));
  const rootOf = new Map<string, Entry>();
  const root = (e: Entry): Entry => {
    const known = rootOf.get(e.id);
    if (known) return known;
    const parent = e.parentId ? byId.get(e.parentId) : undefined;
    // a cycle through side entries ends at the entry it came back to
    rootOf.set(e.id, e);
    const r = parent?.sidechain ? root(parent) : e;
    rootOf.set(e.id, r);
    return r;
  };
  const side = session.entries.filter((e) => e.sidechain && !onPath.has(e.id));
  const chains = new Map<string, Entry[]>();
  for (const e of side) {
    const r = root(e);
    if (r.parentId === null ? !unrooted : !onPath.has(r.parentId)) continue;
    const chain = chains.get(r.id) ?? [];
    chain.push(e);
    chains.set(r.id, chain);
  }
  const kept = [...chains.values()].filter((c) => c.some((e) => e.kind === 'message')).flat();
  return kept.length ? { ...along, entries: [...along.entries, ...kept] } : along;
}

/**
 * Each branch summary with the text the source agent sends the model for it (pi wraps it in its own
 * words: pi/records.ts branchSummaryText), as that agent's ResumeContext renders it, so that a target
 * sends what the source agent sent without knowing its wording: the writers send a branch summary's
 * `text` (else the bare summary) and keep the entry beside it. Within one agent nothing changes. A
 * session of no agent gets pi's wording (BRANCH_SUMMARY_WORDING_OF) in an agent, none in another store.
 */
function withSummaryTexts(session: Session, entries: Entry[], target: SourceName): Entry[] {
  if (target === session.source || !entries.some((e) => e.kind === 'branch_summary' && e.text === undefined)) return entries;
  // into another store (no agent, no wording of its own either) such a session is copied as it is
  const build =
    resumeContextOf(session.source) ??
    (resumeContextOf(target) !== undefined ? resumeContextOf(BRANCH_SUMMARY_WORDING_OF) : undefined);
  if (!build) return entries;
  return entries.map((e) => {
    if (e.kind !== 'branch_summary' || e.text !== undefined) return e;
    const sent = build(session, { leafId: e.id }).messages.findLast((m) => m.meta?.branchSummary === true);
    const text = sent?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    return text !== undefined && text !== e.summary ? { ...e, text } : e;
  });
}

/**
 * The messages a compaction keeps that are no entries of the session, as the source agent resumes
 * (codex's replacement history: its instructions, its environment context and the user's earlier
 * prompts, before the summary, or another agent's kept entries after it; marked `compactionReplacement`),
 * written as messages right after the compaction: every target's compaction form sends what follows
 * the summary, and none can keep a message from before it but the last ones in a row. A branch
 * summary's copy (marked copiedBranchSummary by the source: codex's own compaction copies the user
 * message threadbase wrote for one) is written as that branch summary again.
 */
function keptMessagesOf(session: Session, c: CompactionEntry): Entry[] {
  const build = resumeContextOf(session.source);
  if (!build) return [];
  const messages = build(session, { leafId: c.id }).messages;
  const summaryAt = messages.findIndex((m) => m.meta?.compactionSummary === true);
  // what the source sent after its summary (another agent's kept entries, as codex's writer puts them) loses nothing
  const kept: { m: Message; before: boolean }[] = [];
  messages.forEach((m, at) => {
    if (m.meta?.compactionReplacement !== true || m.meta.compactionSummary === true) return;
    const before = at < summaryAt;
    const prev = kept.at(-1);
    // one response's items (its text, then each parallel call) are one message each in codex's history:
    // joined (the first one's model and API kept), so that a target that answers a call before the next
    // message (pi, …) keeps their results
    if (prev && prev.before === before && prev.m.role === 'assistant' && m.role === 'assistant')
      prev.m = { ...m, ...prev.m, parts: [...prev.m.parts, ...m.parts], meta: { ...m.meta, ...prev.m.meta } };
    else kept.push({ m, before });
  });
  return kept.map(({ m, before }, i): Entry => {
    const { compactionReplacement: _r, ...meta } = m.meta ?? {};
    const id = `${c.id}-kept-${i + 1}`;
    // a branch summary's copy (codex's own compaction copied the turn threadbase wrote for it) is that branch summary again
    const summary = copiedBranchSummaryOf(meta, messageText(m));
    if (summary)
      return {
        kind: 'branch_summary',
        id,
        parentId: null,
        timestamp: c.timestamp,
        ...summary,
        ...(before ? { compactionKept: true } : {}),
      };
    return {
      kind: 'message',
      id,
      parentId: null,
      timestamp: c.timestamp,
      message: { ...m, meta: { ...meta, ...(before ? { compactionKept: true } : {}) } },
    };
  });
}

/** The path with each compaction's kept messages (keptMessagesOf) after it. */
function withKeptMessages(session: Session, path: readonly Entry[]): Entry[] {
  return path.flatMap((e) => (e.kind === 'compaction' ? [e, ...keptMessagesOf(session, e)] : [e]));
}

/**
 * Compactions made writable for any target, without changing the context:
 * - the first kept entry is re-pointed at the first message from it on the path: pi, for one,
 *   keeps from its session's first entry (a model change); targets write messages, not another
 *   agent's settings records, so such an id would dangle there and the kept messages be lost;
 * - a compaction stored before the entries it keeps (Claude Code's `--fork-session` copy starts
 *   at the boundary) keeps nothing from before it: those entries follow it anyway. It takes the
 *   earliest time of the entries after it, so targets that order by time (OpenCode) keep them after it.
 */
function compactionsForTargets(path: Entry[]): Entry[] {
  return path.map((e, i) => {
    if (e.kind !== 'compaction') return e;
    let timestamp = e.timestamp;
    for (const later of path.slice(i + 1)) if (later.timestamp < timestamp) timestamp = later.timestamp;
    return { ...keptFromAMessage(e, path.slice(0, i + 1)), timestamp };
  });
}

/**
 * The compaction with its first kept entry on `pathToIt` (root … the compaction) a message or a branch
 * summary (pi keeps from one when it compacts right after going back in its tree), or none.
 */
function keptFromAMessage(e: CompactionEntry, pathToIt: Entry[]): CompactionEntry {
  if (e.firstKeptEntryId === undefined) return e;
  const from = pathToIt.findIndex((x) => x.id === e.firstKeptEntryId);
  const firstMessage =
    from < 0 ? undefined : pathToIt.slice(from, -1).find((x) => x.kind === 'message' || x.kind === 'branch_summary');
  if (firstMessage) return firstMessage.id === e.firstKeptEntryId ? e : { ...e, firstKeptEntryId: firstMessage.id };
  const { firstKeptEntryId: _none, ...rest } = e;
  return rest;
}

/**
 * The whole tree, each compaction's kept entries made writable as on one path (see
 * compactionsForTargets), one the source agent does not apply on resume kept beside the path (a leaf
 * of its own), and the current leaf written last: Claude Code and pi resume at the
 * last record of a file.
 */
function treeForTargets(session: Session, target: SourceName): Session {
  const index = indexEntries(session.entries);
  // each compaction's kept messages after it, its children continuing from the last of them
  const kept = new Map<string, Entry[]>();
  const newParent = new Map<string, string>();
  for (const e of session.entries) {
    // a copy within one agent keeps its own compaction records as they are
    if (e.kind !== 'compaction' || target === session.source) continue;
    if (e.appliedOnResume === false) {
      // kept beside the path: the target resumes from every message, as the source agent does
      if (e.parentId !== null) for (const child of index.children.get(e.id) ?? []) newParent.set(child.id, e.parentId);
      continue;
    }
    const ms = keptMessagesOf(session, e).map((k, i, all) => ({ ...k, parentId: i === 0 ? e.id : (all[i - 1]?.id ?? null) }));
    const last = ms.at(-1);
    if (!last) continue;
    kept.set(e.id, ms);
    for (const child of index.children.get(e.id) ?? []) newParent.set(child.id, last.id);
  }
  const entries = session.entries.flatMap((e): Entry[] => {
    const moved = newParent.get(e.id);
    const written = moved ? { ...e, parentId: moved } : e;
    if (written.kind !== 'compaction') return [written];
    return [keptFromAMessage(written, pathTo(index, written.id)), ...(kept.get(written.id) ?? [])];
  });
  const leaf = currentLeaf(session);
  if (leaf && entries.at(-1)?.id !== leaf.id && !index.children.get(leaf.id)?.length) {
    const at = entries.findIndex((e) => e.id === leaf.id);
    entries.push(...entries.splice(at, 1));
  }
  return { ...session, entries: withSentWording(withSummaryTexts(session, entries, target), target) };
}

/**
 * The session as it is converted: a threadbase store's copy of an agent's session (written to the
 * store as `threadbase`, `meta.importedFrom` naming the agent's session; its entries keep the agent's
 * records) is that agent's session again, so that converting it on does what converting the original
 * does: into its own agent a copy (its records, its title as they are; Claude Code's copied parent
 * names the copy of its sub-agent), into another agent with the original agent's wording.
 */
function asAgentSession(session: Session): Session {
  const from = session.meta?.importedFrom;
  if (session.source !== THREADBASE_SOURCE || typeof from !== 'object' || from === null) return session;
  const { source, id } = from as { source?: unknown; id?: unknown };
  if (typeof source !== 'string' || typeof id !== 'string' || source === THREADBASE_SOURCE || !formatNames().includes(source))
    return session;
  return { ...session, source, id };
}

/** A session being written: as it is converted (asAgentSession), and as it was read (its id there, its name in loss lines). */
interface Converting {
  session: Session;
  readId: string;
  /** `source:id` as the caller named it, which every loss line begins with */
  shownAs: string;
}

function converting(read: Session): Converting {
  return { session: asAgentSession(read), readId: read.id, shownAs: `${read.source}:${read.id}` };
}

/**
 * What the target could not keep of `written` (the converted session as written): the converter's loss
 * lines, then the writer's own warnings, every line with the same prefix (losses.ts lossPrefix).
 */
function withLosses(written: SessionInfo, source: Session, target: SessionDriver, shownAs: string): SessionInfo {
  const prefix = lossPrefix(shownAs, target.name);
  const names = [shownAs, `${source.source}:${source.id}`];
  const earlier = (Array.isArray(written.meta?.warnings) ? (written.meta.warnings as unknown[]) : []).map((w) =>
    typeof w === 'string' ? asLossLine(w, prefix, names) : w,
  );
  const warnings = [...conversionLosses(source, target.name, shownAs), ...earlier];
  if (!warnings.length) return written;
  return { ...written, meta: { ...(written.meta ?? {}), warnings } };
}

/**
 * The sub-agent sessions of a session in `driver`: the sessions it lists under that parent that name
 * the call that ran them (a fork, which names none, is no sub-agent).
 */
export function childSessionsFrom(driver: SessionDriver): ChildSessions {
  // one listing for the whole tree of sub-agents (an agent's listing may read every session it has)
  let byParent: Promise<Map<string, SessionInfo[]>> | undefined;
  const listed = () => {
    byParent ??= driver.listSessions().then((all) => {
      const map = new Map<string, SessionInfo[]>();
      for (const s of all) if (s.parentId) map.set(s.parentId, [...(map.get(s.parentId) ?? []), s]);
      return map;
    });
    return byParent;
  };
  return async (sessionId) => {
    const out: Session[] = [];
    for (const info of (await listed()).get(sessionId) ?? []) {
      if (info.id === sessionId) continue;
      const child = await driver.getSession(info.id);
      if (child?.parentToolCallId !== undefined) out.push(child);
    }
    return out;
  };
}

function toolCallIdsOf(entries: readonly Entry[]): Set<string> {
  const ids = new Set<string>();
  for (const e of entries) if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_call') ids.add(p.id);
  return ids;
}

function withWarning<T extends SessionInfo>(written: T, warning: string): T {
  const earlier = Array.isArray(written.meta?.warnings) ? (written.meta.warnings as unknown[]) : [];
  return { ...written, meta: { ...(written.meta ?? {}), warnings: [...earlier, warning] } };
}

/**
 * The calls that ran the side chains of `session` that go with it (placed as sideChainChildren places
 * them on `mainEntries`, the written path or tree): a sub-agent session such a call ran is written
 * as that side chain already (Copilot CLI lists each run in a session's file as a session of its own
 * too), not a second time.
 */
function sideChainCalls(session: Session, mainEntries: readonly Entry[]): Set<string> {
  return new Set(sideChainChildren(session, mainEntries).children.map((c) => c.session.parentToolCallId));
}

/**
 * The sub-agent sessions that calls of `from` (the session as written; read as `from.readId`) ran,
 * written under `written` (each along its current branch with its side chains, its own sub-agents
 * under it), but those a side chain written with it holds (`carried`, by call); `seen` (ids as read)
 * stops a cycle of parents.
 */
async function withChildren(
  written: WrittenSession,
  from: Converting,
  target: SessionDriver,
  childrenOf: ChildSessions,
  carried: ReadonlySet<string>,
  seen: Set<string> = new Set([from.readId]),
): Promise<WrittenSession> {
  const calls = toolCallIdsOf(from.session.entries);
  const kids = (await childrenOf(from.readId)).filter(
    (c) =>
      !seen.has(c.id) && c.parentToolCallId !== undefined && calls.has(c.parentToolCallId) && !carried.has(c.parentToolCallId),
  );
  if (!kids.length) return written;
  const writeChild = childWriter(target, written);
  if (!writeChild)
    return withWarning(
      written,
      `${lossPrefix(from.shownAs, target.name)}${kids.length} sub-agent session(s) not written (${kids.map((k) => k.id).join(', ')}): ${target.name} keeps no sub-agent sessions`,
    );
  const children: WrittenSession[] = [];
  for (const kid of kids) {
    seen.add(kid.id);
    const c = converting(kid);
    // its own side chains (a sub-agent's sub-agents it holds) go with it as the session's do
    const path = sessionAlongPath(c.session, undefined, target.name);
    const along = { ...c, session: target.capabilities.sideChains ? withSideChains(c.session, path) : path };
    let child: WrittenSession = withLosses(await writeChild(along.session), along.session, target, c.shownAs);
    if (!target.capabilities.sideChains) child = await withSideChainChildren(child, c, path.entries, target);
    const itsChains = sideChainCalls(target.capabilities.sideChains ? along.session : c.session, path.entries);
    children.push(await withChildren(child, along, target, childrenOf, itsChains, seen));
  }
  return { ...written, children: [...(written.children ?? []), ...children] };
}

/**
 * The side chains of `from` (sub-agent work kept in the session: Copilot CLI's runs, the Agent SDK's
 * sub-agent messages, Claude Code's in-file sidechains) for a target that does not keep them in the
 * session (no capabilities.sideChains): each one a call on the written path ran (sideChainChildren)
 * written under `written` as the target writes a sub-agent session (childWriter), a sub-agent's own
 * under its sub-agent; the chains it cannot write said in one loss line, never dropped silently.
 */
async function withSideChainChildren(
  written: WrittenSession,
  from: Converting,
  path: readonly Entry[],
  target: SessionDriver,
): Promise<WrittenSession> {
  const { children, unplaced } = sideChainChildren(from.session, path);
  if (!children.length && !unplaced.length) return written;
  const prefix = lossPrefix(from.shownAs, target.name);
  const chainIds = (chains: readonly Entry[][]) => chains.map((c) => c[0]?.id).join(', ');
  let out = written;
  if (unplaced.length)
    out = withWarning(
      out,
      `${prefix}${unplaced.length} side chain(s) of sub-agent work not written (${chainIds(unplaced)}): no call on the written path ran them`,
    );
  if (!children.length) return out;
  if (!childWriter(target, written))
    return withWarning(
      out,
      `${prefix}${children.length} side chain(s) of sub-agent work not written (${chainIds(children.map((c) => c.session.entries))}): ${target.name} keeps no sub-agent sessions`,
    );
  // each chain under the session, or under the written chain whose call ran it
  const writeUnder = async (parent: WrittenSession, within: string | undefined): Promise<WrittenSession> => {
    const writeChild = childWriter(target, parent);
    const mine = children.filter((c: SideChainChild) => c.within === within);
    if (!writeChild || !mine.length) return parent;
    const kids: WrittenSession[] = [];
    for (const { session: chain } of mine) {
      const shownAs = `${from.session.source}:${chain.id}`;
      const along = sessionAlongPath(chain, undefined, target.name);
      const child = withLosses(await writeChild(along), along, target, shownAs);
      kids.push(await writeUnder(child, chain.id));
    }
    return { ...parent, children: [...(parent.children ?? []), ...kids] };
  };
  return writeUnder(out, undefined);
}

function targetDriver(to: SourceName | SessionDriver, env?: DriverEnv): SessionDriver {
  return typeof to === 'string' ? new Sources(env ?? defaultDriverEnv()).driver(to) : to;
}

/**
 * Writes the session into the target; returns every session written (more than one only for
 * allBranches into a linear target), each with the sub-agent sessions written under it (`children`, with
 * `childrenOf`). Each one's `meta.warnings` says what the target could not keep.
 */
export async function convertSessionAll(
  given: Session,
  to: SourceName | SessionDriver | ConvertToOptions,
  opts: ConvertOptions = {},
): Promise<WrittenSession[]> {
  const o: ConvertToOptions = typeof to === 'object' && 'to' in to ? to : { ...opts, to };
  const target = targetDriver(o.to, o.env);
  if (!target.writeSession) throw new UnsupportedError(target.name, 'write sessions');
  const read = converting(given);
  const session = read.session;
  const write = async (s: Session) => {
    // a copy: where it starts when its original did (threadbase's own store too), the original counts in stats
    let written = await (target.writeSession as NonNullable<typeof target.writeSession>)({ ...s, writtenBy: WRITTEN_BY });
    // Another agent's title, where the target did not take it from the records (pi names a session
    // in a record of its own). A copy within one agent carries its own title records.
    if (s.title && s.source !== target.name && written.title !== s.title && target.setTitle) {
      await target.setTitle(written.id, s.title);
      written = { ...written, title: s.title };
    }
    let out: WrittenSession = withLosses(written, s, target, read.shownAs);
    // the side chains a target does not keep in the session go as its sub-agent sessions (a tree's
    // under the calls on any of its branches); `s` holds those it keeps (withSideChains)
    const main = s.entries.filter((e) => !e.sidechain);
    if (!target.capabilities.sideChains) out = await withSideChainChildren(out, read, main, target);
    if (!o.childrenOf) return out;
    const carried = sideChainCalls(target.capabilities.sideChains ? s : read.session, main);
    return withChildren(out, { ...read, session: s }, target, o.childrenOf, carried);
  };
  // the side chains go along where the target writes them (those at no entry with the first session written only)
  const along = (at: string | undefined, first: boolean) => {
    const s = sessionAlongPath(session, at, target.name);
    return target.capabilities.sideChains ? withSideChains(session, s, first) : s;
  };
  // a compaction the source agent does not apply on resume that a path leaves out (sessionAlongPath): said
  const writeAlong = async (at: string | undefined, first: boolean) => {
    const written = await write(along(at, first));
    const left =
      session.source === target.name ? [] : pathToLeaf(session, at).filter((e) => notAppliedOnResume(e) && e.id !== at);
    if (!left.length) return written;
    const how = target.capabilities.branch ? '; --all-branches keeps it beside the path' : '';
    return withWarning(
      written,
      `${lossPrefix(read.shownAs, target.name)}a compaction ${session.source} does not apply on resume left out, its summary with it: ${target.name} resumes from every message, as ${session.source} does${how} (${left.length})`,
    );
  };
  if (!o.allBranches) return [await writeAlong(o.at, true)];
  if (target.capabilities.branch) {
    const tree = treeForTargets(session, target.name);
    // side chains go as sub-agent sessions (write) where the target keeps none in a session
    const kept = target.capabilities.sideChains ? tree : { ...tree, entries: tree.entries.filter((e) => !e.sidechain) };
    return [await write(kept)];
  }
  const out: WrittenSession[] = [];
  // Current branch first, so the first written session is the one the user was working on.
  const bs = branches(session).sort((a, b) => Number(b.current) - Number(a.current));
  for (const b of bs) out.push(await writeAlong(b.leaf.id, out.length === 0));
  return out;
}

/**
 * Converts a session into another agent: `convertSession(session, { to: 'pi', at })` or
 * `convertSession(session, driver, { at })`. Returns the written session (its `meta.warnings`
 * list what the target could not keep).
 */
export async function convertSession(
  session: Session,
  to: SourceName | SessionDriver | ConvertToOptions,
  opts: ConvertOptions = {},
): Promise<SessionInfo> {
  const [first] = await convertSessionAll(session, to, opts);
  return first as SessionInfo;
}
