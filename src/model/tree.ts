/**
 * Pure tree logic over a session's entries: leaf, path, branches and the context a model sees on
 * resume. No I/O, no agent quirks: formats pass what differs (how a summary is worded) as options.
 */
import { AmbiguousIdError, NotFoundError } from './errors.js';
import { prefixOf } from './text.js';
import type {
  BranchSummaryEntry,
  CompactionEntry,
  Entry,
  Message,
  MessageEntry,
  Part,
  Session,
  ToolCallPart,
  ToolResultPart,
} from './types.js';

export interface EntryIndex {
  byId: Map<string, Entry>;
  children: Map<string | null, Entry[]>;
  /** position in the session's entry order */
  order: Map<string, number>;
}

export function indexEntries(entries: readonly Entry[]): EntryIndex {
  const byId = new Map<string, Entry>();
  const children = new Map<string | null, Entry[]>();
  const order = new Map<string, number>();
  entries.forEach((e, i) => {
    byId.set(e.id, e);
    order.set(e.id, i);
  });
  for (const e of entries) {
    // An orphan (parent not in this session) hangs from the root so it stays reachable.
    const parent = e.parentId !== null && byId.has(e.parentId) ? e.parentId : null;
    let list = children.get(parent);
    if (!list) {
      list = [];
      children.set(parent, list);
    }
    list.push(e);
  }
  return { byId, children, order };
}

/**
 * indexEntries' byId alone (an id met twice: its last entry), for the walks up to the root that need
 * no children or order: the path and branches of a 30 MB session built both for nothing.
 */
export function entriesById(entries: readonly Entry[]): Map<string, Entry> {
  const byId = new Map<string, Entry>();
  for (const e of entries) byId.set(e.id, e);
  return byId;
}

/**
 * A session's leafId when it resumes with nothing though it has entries (Claude Code after a rewind to
 * empty): no entry is the current leaf, the context is empty and a new turn starts a new root.
 */
export const EMPTY_LEAF = '';

/** The current leaf: the session's own leafId, else the last entry not on a side chain (none: EMPTY_LEAF). */
export function currentLeaf(session: Pick<Session, 'entries' | 'leafId'>): Entry | undefined {
  if (session.leafId === EMPTY_LEAF) return undefined;
  if (session.leafId) {
    const found = session.entries.find((e) => e.id === session.leafId);
    if (found) return found;
  }
  for (let i = session.entries.length - 1; i >= 0; i--) {
    const e = session.entries[i];
    if (e && !e.sidechain) return e;
  }
  return undefined;
}

/**
 * Whether an entry is part of the conversation as people read it: an agent's own bookkeeping records
 * (metadata entries: Claude Code's attachments and request logs, codex's events, pi's custom entries)
 * are not, and the views (`show`, the web viewer) leave them out.
 */
export function isConversationEntry(e: Entry): boolean {
  return e.kind !== 'metadata';
}

/**
 * The entry `id` names when it is a conversation entry, else its nearest ancestor that is (null: none),
 * so what hangs from a bookkeeping record hangs from the entry above it. `memo` keeps the answers of the
 * walks (one per session), so each entry is walked once. Stops at a missing parent and at a cycle.
 */
export function nearestConversationEntry(
  index: Pick<EntryIndex, 'byId'>,
  id: string | null,
  memo: Map<string, string | null> = new Map(),
): string | null {
  const walked: string[] = [];
  const seen = new Set<string>();
  let at = id;
  let found: string | null = null;
  while (at !== null) {
    const known = memo.get(at);
    if (known !== undefined) {
      found = known;
      break;
    }
    const e = index.byId.get(at);
    if (!e || seen.has(at)) break;
    if (isConversationEntry(e)) {
      found = at;
      break;
    }
    walked.push(at);
    seen.add(at);
    at = e.parentId;
  }
  for (const w of walked) memo.set(w, found);
  return found;
}

/**
 * The entry `given` names in a session: its exact id, else the one entry id that starts with it (as
 * sessions are named by a unique prefix, so the shortened ids `show` prints can be given back).
 */
export function resolveEntryId(entries: readonly Entry[], given: string): string {
  if (entries.some((e) => e.id === given)) return given;
  const matches = given ? entries.filter((e) => e.id.startsWith(given)).map((e) => e.id) : [];
  if (matches.length > 1) throw new AmbiguousIdError(given, matches, 'entries');
  const [only] = matches;
  if (only === undefined) throw new NotFoundError('entry', given);
  return only;
}

/**
 * Entries from the root down to `leafId`, inclusive. Stops at a missing parent (the entry whose
 * parent is missing becomes the root) and at a cycle, so damaged input never loops. Needs only
 * the index's byId (a reader building its tree as it goes passes its own).
 */
export function pathTo(index: Pick<EntryIndex, 'byId'>, leafId: string): Entry[] {
  const path: Entry[] = [];
  const seen = new Set<string>();
  let cur = index.byId.get(leafId);
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    path.push(cur);
    cur = cur.parentId === null ? undefined : index.byId.get(cur.parentId);
  }
  return path.reverse();
}

export function pathToLeaf(session: Pick<Session, 'entries' | 'leafId'>, leafId?: string): Entry[] {
  const index = { byId: entriesById(session.entries) };
  const leaf = leafId ?? currentLeaf(session)?.id;
  if (!leaf) return [];
  if (!index.byId.has(leaf)) throw new NotFoundError('entry', leaf);
  return pathTo(index, leaf);
}

/** Every leaf of the tree (an entry with no children), main chain and side chains alike. */
export function leaves(entries: readonly Entry[]): Entry[] {
  const index = indexEntries(entries);
  return entries.filter((e) => !(index.children.get(e.id)?.length ?? 0));
}

export interface Branch {
  leaf: Entry;
  /** Where this branch leaves the path of the current leaf (null: shares nothing). */
  forkPointId: string | null;
  length: number;
  current: boolean;
}

/** The branches of the tree, one per leaf that is not on a side chain. */
export function branches(session: Pick<Session, 'entries' | 'leafId'>): Branch[] {
  const index = { byId: entriesById(session.entries) };
  const cur = currentLeaf(session);
  const curPath = new Set(cur ? pathTo(index, cur.id).map((e) => e.id) : []);
  // Side entries (file-level records, sub-agent chains) hang from the main chain but do not end a branch.
  const mainChildren = new Set(session.entries.filter((e) => !e.sidechain && e.parentId !== null).map((e) => e.parentId));
  return session.entries
    .filter((e) => !e.sidechain && !mainChildren.has(e.id))
    .map((leaf) => {
      const path = pathTo(index, leaf.id);
      let forkPointId: string | null = null;
      for (const e of path) if (curPath.has(e.id)) forkPointId = e.id;
      return { leaf, forkPointId, length: path.length, current: leaf.id === cur?.id };
    });
}

export interface ContextOptions {
  /** Resume at this entry instead of the current leaf. */
  leafId?: string;
  /** How the agent words a compaction summary for the model (default: the summary as is). */
  compactionText?: (entry: CompactionEntry) => string;
  /** How the agent words a branch summary for the model (default: its `text`, else the summary as is). */
  branchSummaryText?: (entry: BranchSummaryEntry) => string;
  /** Merge consecutive assistant records of one API response (same responseId). Default true. */
  mergeSplitResponses?: boolean;
}

export interface Context {
  system?: string;
  messages: Message[];
  /** The model and thinking level in force at the leaf, where the path records them. */
  model?: string;
  provider?: string;
  thinkingLevel?: string;
}

/** A context from a wire message list whose leading system messages are its system prompt (OpenAI, AI SDK). */
export function contextFromLeadingSystem(messages: Message[]): Context {
  let i = 0;
  const system: string[] = [];
  for (; i < messages.length && messages[i]?.role === 'system'; i++) {
    system.push((messages[i]?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n'));
  }
  const ctx: Context = { messages: messages.slice(i) };
  if (system.length) ctx.system = system.join('\n\n');
  return ctx;
}

/** A compaction its agent does not apply when it resumes the session (CompactionEntry.appliedOnResume). */
export function notAppliedOnResume(e: Entry): boolean {
  return e.kind === 'compaction' && e.appliedOnResume === false;
}

/**
 * The message list a model sees when the session is resumed at a leaf: the path from the root,
 * with the latest compaction on it applied (summary, then the kept entries, then what follows),
 * branch summaries as user messages, and split responses merged.
 */
export function buildContext(session: Pick<Session, 'entries' | 'leafId'>, opts: ContextOptions = {}): Context {
  const path = pathToLeaf(session, opts.leafId);
  const ctx: Context = { messages: [] };

  for (const e of path) {
    if (e.kind === 'model_change') {
      if (e.model) ctx.model = e.model;
      if (e.provider) ctx.provider = e.provider;
      if (e.thinkingLevel) ctx.thinkingLevel = e.thinkingLevel;
    } else if (e.kind === 'message' && e.message.role === 'assistant' && e.message.model) {
      ctx.model = e.message.model;
      if (e.message.provider) ctx.provider = e.message.provider;
    }
  }

  let compactionIdx = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    const e = path[i];
    // one the agent does not resume from counts only where it is asked for itself
    if (e?.kind === 'compaction' && (!notAppliedOnResume(e) || opts.leafId === e.id)) {
      compactionIdx = i;
      break;
    }
  }

  const out: Message[] = [];
  const emit = (e: Entry) => {
    if (e.kind === 'message') out.push(e.message);
    else if (e.kind === 'branch_summary') {
      const text = opts.branchSummaryText ? opts.branchSummaryText(e) : (e.text ?? e.summary);
      out.push({ role: 'user', parts: [{ type: 'text', text }], meta: { branchSummary: true, fromId: e.fromId } });
    }
  };

  if (compactionIdx >= 0) {
    const c = path[compactionIdx] as CompactionEntry;
    const text = opts.compactionText ? opts.compactionText(c) : c.summary;
    out.push({ role: 'user', parts: [{ type: 'text', text }], meta: { compactionSummary: true } });
    let kept = false;
    for (let i = 0; i < compactionIdx; i++) {
      const e = path[i] as Entry;
      if (c.firstKeptEntryId !== undefined && e.id === c.firstKeptEntryId) kept = true;
      if (kept) emit(e);
    }
    for (let i = compactionIdx + 1; i < path.length; i++) emit(path[i] as Entry);
  } else {
    for (const e of path) emit(e);
  }

  ctx.messages = opts.mergeSplitResponses === false ? out : mergeSplitResponses(out);
  return ctx;
}

/**
 * The entries of the response at `path[i]` (an assistant message entry): it and the assistant messages
 * right after it with its responseId (none: it alone), as Claude Code splits one response into a
 * record per content block; `until` ends the run early at an entry that must stay apart.
 */
export function responseEntriesAt(
  path: readonly Entry[],
  i: number,
  until: (next: MessageEntry) => boolean = () => false,
): MessageEntry[] {
  const first = path[i] as MessageEntry;
  const group = [first];
  const id = first.message.responseId;
  for (let j = i + 1; id !== undefined && j < path.length; j++) {
    const next = path[j] as Entry;
    if (next.kind !== 'message' || next.message.role !== 'assistant' || next.message.responseId !== id || until(next)) break;
    group.push(next);
  }
  return group;
}

/** Consecutive assistant messages with the same responseId become one message. */
export function mergeSplitResponses(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev && m.role === 'assistant' && prev.role === 'assistant' && m.responseId && m.responseId === prev.responseId) {
      out[out.length - 1] = {
        ...prev,
        ...m,
        parts: [...prev.parts, ...m.parts],
        usage: m.usage ?? prev.usage,
      };
    } else out.push(m);
  }
  return out;
}

export interface ToolPairing {
  /** call id → the call */
  calls: Map<string, ToolCallPart>;
  /** call ids that have a result */
  answered: Set<string>;
  /** calls with no result (yet) */
  unanswered: ToolCallPart[];
  /** result call ids with no call */
  orphanResults: string[];
}

/** Pairs tool calls with their results by id across a message list. */
export function pairToolCalls(messages: readonly Message[]): ToolPairing {
  const calls = new Map<string, ToolCallPart>();
  const answered = new Set<string>();
  const orphanResults: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'tool_call') calls.set(p.id, p);
      else if (p.type === 'tool_result') {
        if (calls.has(p.callId)) answered.add(p.callId);
        else orphanResults.push(p.callId);
      }
    }
  }
  const unanswered = [...calls.values()].filter((c) => !answered.has(c.id));
  return { calls, answered, unanswered, orphanResults };
}

/** Plain text of a message's text parts, for titles, search and previews. */
export function messageText(m: Pick<Message, 'parts'>): string {
  return m.parts
    .filter((p): p is Extract<Part, { type: 'text' }> => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** A tool result's text: its text items joined by newlines (its images and files left out). */
export function resultText(content: ToolResultPart['content']): string {
  return typeof content === 'string' ? content : content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}

/**
 * A title from the first line of the first user message with text, cut to 100 units between
 * graphemes; `injected` passes over user messages the agent wrote itself.
 */
export function firstUserLine(entries: readonly Entry[], injected?: (m: Message) => boolean): string | undefined {
  for (const e of entries) {
    if (e.kind !== 'message' || e.message.role !== 'user' || injected?.(e.message)) continue;
    const text = messageText(e.message).trim();
    if (text) return titleLine(text);
  }
  return undefined;
}

/** A session's title from a message's text (trimmed): its first line, at most 100 characters. */
export const titleLine = (text: string): string => prefixOf(text.split('\n')[0] ?? '', 100);

/** Count of user and assistant turns, the `messageCount` every listing reports. */
export function countMessages(entries: readonly Entry[]): number {
  let n = 0;
  for (const e of entries) if (e.kind === 'message' && !e.sidechain) n++;
  return n;
}

/**
 * A path without the model changes that change nothing: codex records its model with every turn,
 * which showed as a '⚙ model → …' row per turn though the model never changed. A change is kept when
 * any model, provider or thinking level it names differs from the one in force on the path.
 */
export function withoutRepeatedSettings(path: Entry[]): Entry[] {
  const inForce: { model?: string; provider?: string; thinkingLevel?: string } = {};
  return path.filter((e) => {
    if (e.kind !== 'model_change') return true;
    const changes = (['model', 'provider', 'thinkingLevel'] as const).filter((k) => e[k] !== undefined && e[k] !== inForce[k]);
    for (const k of changes) inForce[k] = e[k];
    return changes.length > 0;
  });
}
