/**
 * Reads one Claude Code transcript (JSONL) into the model. Every record type is kept: user and
 * assistant records become messages, a `compact_boundary` becomes a compaction (its summary is the
 * `isCompactSummary` user record that follows it), everything else (attachments, queue operations,
 * file-history snapshots, titles, modes, request logs, unknown types) a metadata entry with the
 * record in `raw`. Bad lines become warnings naming file and line; the rest still loads.
 */
import { createHash } from 'node:crypto';
import { messageFromAnthropic, usageFromAnthropic } from '../../convert/anthropic.js';
import { providerCallOf } from '../../convert/provider-tools.js';
import type { WireReadOptions } from '../../convert/read-issues.js';
import { EMPTY_LEAF, messageText } from '../../model/tree.js';
import type { CompactionEntry, Entry, Message, Meta, MetadataEntry, ParseWarning, Usage } from '../../model/types.js';
import { keptAssistantImage } from '../shared/assistant-images.js';
import { branchSummaryOf } from '../shared/branch-summary.js';
import { readJsonl } from '../shared/jsonl.js';
import { writtenByOf } from '../shared/written-by.js';
import { markClaudeDenials, recordedDenial } from './denials.js';

export type ClaudeRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export interface ParsedTranscript {
  entries: Entry[];
  warnings: ParseWarning[];
  leafId?: string;
  sessionIdInFile?: string;
  cwd?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
  /** `custom-title` (set by the user) */
  customTitle?: string;
  /** `ai-title`, or a `summary` record whose leaf is in this file */
  summaryTitle?: string;
  /** `summary` records: older Claude Code often wrote them into another session's file, naming the leaf */
  summaries: { leafUuid?: string; summary: string }[];
  firstPrompt?: string;
  forkedFrom?: { sessionId?: string; messageUuid?: string };
  /**
   * The last reply whose `requestSessionId` names another session: Claude Code's `--fork-session`
   * copy marks only those (with the session the request was made in), no `forkedFrom` (NOTES.md "Forks").
   */
  requestedIn?: { sessionId: string; messageUuid: string };
  /** a record with a uuid of a type Claude Code keeps no row of (`progress`, unknown) was read */
  nonRows?: boolean;
  /** what the leaf rule (claudeLeaf) went by, for a later read of only the part from `safe` on (driver.ts leafAfter) */
  leafFacts: LeafFacts;
  /** the last `ai-title` record's title: the summary title when there is one */
  aiTitle?: string;
  agentId?: string;
  version?: string;
  /** `threadbase` when the transcript's first record says threadbase wrote it (encode.ts markWritten) */
  writtenBy?: 'threadbase';
  /** Where the next read continues: just after the last whole line (a torn last line is read again). */
  end: { offset: number; line: number };
  /**
   * The last user prompt line: a point where every earlier response is complete, so a later read
   * can re-parse from there and settle links across the old end (entryIndex: entries before it;
   * latestTimestamp: the latest time before it, which a record there without one takes).
   */
  safe?: { offset: number; line: number; entryIndex: number; latestTimestamp?: string; orphan?: boolean };
}

/** Text of a user prompt as Claude Code shows it in its session picker: skips meta, commands, and tool results. */
export function promptText(r: ClaudeRecord): string | undefined {
  if (r.isMeta === true || r.isCompactSummary === true || isRecord(r.origin)) return undefined;
  const m = r.message;
  if (!isRecord(m)) return undefined;
  const c = m.content;
  let text: string | undefined;
  if (typeof c === 'string') text = c;
  else if (Array.isArray(c)) {
    if (c.some((b) => isRecord(b) && b.type === 'tool_result')) return undefined;
    text = c.flatMap((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n');
  }
  if (!text) return undefined;
  const t = text.trim();
  if (!t || t.startsWith('<command-') || t.startsWith('<local-command') || t.startsWith('<system-reminder>')) return undefined;
  return t;
}

/**
 * A response whose stream the API paused and Claude Code resumed keeps the earlier streams' usage in
 * `message.pausedResponses` (`{limit, usage, requestId, ...}`), outside the message's own usage; Claude
 * Code's stats add their input, output and cache tokens to it (read from its 2.1.331 binary: the feature
 * is behind a server-side flag, so no real transcript here has one).
 */
function withPausedResponses(u: Usage, paused: readonly unknown[]): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const out = { ...u };
  for (const p of paused) {
    const pu = isRecord(p) && isRecord(p.usage) ? p.usage : undefined;
    if (!pu) continue;
    out.input += n(pu.input_tokens);
    out.output += n(pu.output_tokens);
    out.cacheRead += n(pu.cache_read_input_tokens);
    out.cacheWrite += n(pu.cache_creation_input_tokens);
  }
  return out;
}

/** The model Claude Code records on replies it made up itself (API errors, "No response requested."). */
export const SYNTHETIC_MODEL = '<synthetic>';

const MADE_UP_PREFIX = 'msg_tb_';

/** The made-up id's first form: the entry id's first 24 characters without dashes (a UUID's 96 bits). */
const madeUpFromPrefix = (entryId: string): string => `${MADE_UP_PREFIX}${entryId.replace(/-/g, '').slice(0, 24)}`;

/**
 * The `message.id` threadbase writes for a reply of entry `entryId` that had no response id (a Zed
 * or Gemini reply converted into Claude Code, which wants one on every assistant record): made from
 * the entry id, so it is read back as no response id (messageOfRecord), and `stats` knows the copy
 * by its entry id and time as it knows the original (src/model/copies.ts). A UUID (or an id of at
 * most 24 such characters) gives its own characters; a longer id a hash of all of it, as its first 24
 * characters need not tell entries apart (Continue's `<session uuid>:<n>`): records of one message.id
 * are one response to Claude Code, which would send every such reply joined into one.
 */
export function madeUpResponseId(entryId: string): string {
  const compact = entryId.replace(/-/g, '');
  if (compact.length <= 24 || /^[0-9a-f]{32}$/i.test(compact)) return madeUpFromPrefix(entryId);
  return `${MADE_UP_PREFIX}${createHash('sha256').update(entryId).digest('hex').slice(0, 24)}`;
}

/** Whether `responseId` is the id threadbase made up for record `uuid`, in either form it has written. */
const isMadeUpResponseId = (responseId: string, uuid: string): boolean =>
  responseId === madeUpResponseId(uuid) || responseId === madeUpFromPrefix(uuid);

/**
 * `threadbase.claudeApiError`: the API-error record is Claude Code's own failed request, carrying only
 * threadbase's mark as a transcript's first record (encode.ts markWritten), not another agent's
 * failed turn threadbase wrote (encode.ts failedTurnRecord, whose `threadbase` holds what it kept).
 */
export const CLAUDE_API_ERROR = 'claudeApiError';

/**
 * `threadbase.keptCopyOf`: the record copies a reply of that response id which a compaction kept (encode.ts
 * keptCopies), written under a message id of its own so that Claude Code does not join it to the reply
 * before the compaction; its usage is counted there.
 */
export const KEPT_COPY_OF = 'keptCopyOf';

/** The model message of a user/assistant record; undefined when it has none. */
export function messageOfRecord(r: ClaudeRecord, opts?: WireReadOptions): Message | undefined {
  const raw = r.message;
  if (!isRecord(raw)) return undefined;
  const msg = messageFromAnthropic(raw, opts);
  // (the prefix first: making the id from the uuid for every reply cost more than the rest of this check)
  if (msg.responseId?.startsWith(MADE_UP_PREFIX) && typeof r.uuid === 'string' && isMadeUpResponseId(msg.responseId, r.uuid))
    delete msg.responseId;
  if (msg.usage && Array.isArray(raw.pausedResponses)) msg.usage = withPausedResponses(msg.usage, raw.pausedResponses);
  // Claude Code's own stand-in replies (API errors, "No response requested.") name the model
  // "<synthetic>": no model answered, so no model, usage or response is counted for them.
  if (raw.model === SYNTHETIC_MODEL) {
    delete msg.model;
    delete msg.usage;
    delete msg.responseId;
  }
  const claude: Record<string, unknown> = {};
  if (typeof r.requestId === 'string') claude.requestId = r.requestId;
  if (r.isMeta === true) claude.isMeta = true;
  if (r.ownNote === true) claude.ownNote = true;
  if (isRecord(r.origin)) claude.origin = r.origin;
  // Claude Code sends a user record's text blocks without the blank ones, but a string as it is: a
  // lone blank text block is the one list of blocks its parts do not tell from a string.
  if (r.type === 'user' && Array.isArray(raw.content) && raw.content.length === 1 && msg.parts.length === 1) {
    const only = msg.parts[0];
    if (only?.type === 'text' && !only.meta && only.text.trim() === '') claude.blockContent = true;
  }
  if (isRecord(r.threadbase) && Array.isArray(r.threadbase.parts)) restoreKeptParts(msg, r.threadbase.parts);
  if (r.type === 'assistant' && isRecord(r.threadbase) && typeof r.threadbase[KEPT_COPY_OF] === 'string') {
    msg.responseId = r.threadbase[KEPT_COPY_OF];
    delete msg.usage;
  }
  // a call refused or cancelled before it ran (denials.ts): its result marked, the kind kept to write back
  if (r.type === 'user') {
    markClaudeDenials(msg, r.toolDenialKind);
    if (typeof r.toolDenialKind === 'string') Object.assign(claude, recordedDenial(msg, r.toolDenialKind));
  }
  if (r.isApiErrorMessage === true) {
    claude.isApiErrorMessage = true;
    msg.stopReason = 'error';
    if (isRecord(r.threadbase) && r.threadbase[CLAUDE_API_ERROR] !== true) restoreFailedTurn(msg, r);
    else {
      // A failed request: its text ("API Error: 400 …") is the error, not a reply.
      const text = msg.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      msg.error = text || (typeof r.error === 'string' ? r.error : 'API error');
    }
  }
  if (Object.keys(claude).length) msg.meta = { ...(msg.meta ?? {}), claude };
  return msg;
}

/**
 * Parts threadbase wrote as Claude Code can take them (encode.ts keptParts), back as they were:
 * thinking without a signature from the text block it was written as (marked `claudeText`: Claude
 * Code sends it as text, reply.ts), the meta of an image or file, a tool call's or result's own id
 * (the one Claude Code sends kept as `claudeId`: AnthropicToolIds), a provider-executed call
 * from its text note, and an image the assistant made from its text note (shared/assistant-images.ts).
 * A block that is no longer what was written is left as it is.
 */
function restoreKeptParts(msg: Message, kept: readonly unknown[]): void {
  for (const k of kept) {
    if (!isRecord(k) || typeof k.block !== 'number') continue;
    const at = msg.parts[k.block];
    const meta = isRecord(k.meta) ? (k.meta as Meta) : undefined;
    const call = isRecord(k.call) ? providerCallOf({ type: 'text', text: '', meta: { providerCall: k.call } }) : undefined;
    const image = msg.role === 'assistant' ? keptAssistantImage(k) : undefined;
    if (call && at?.type === 'text') msg.parts[k.block] = call;
    else if (image && at?.type === 'text') msg.parts[k.block] = image;
    else if (k.thinking === true && at?.type === 'text')
      msg.parts[k.block] = { type: 'thinking', thinking: at.text, meta: { ...(meta ?? {}), claudeText: true } };
    else if (meta && (at?.type === 'image' || at?.type === 'file'))
      msg.parts[k.block] = { ...at, meta: { ...(at.meta ?? {}), ...meta } };
    else if (typeof k.id === 'string' && at?.type === 'tool_call')
      msg.parts[k.block] = { ...at, id: k.id, meta: { ...(at.meta ?? {}), claudeId: at.id } };
    else if (typeof k.id === 'string' && at?.type === 'tool_result')
      msg.parts[k.block] = { ...at, callId: k.id, meta: { ...(at.meta ?? {}), claudeId: at.callId } };
  }
}

/**
 * Another agent's failed turn that threadbase wrote as an API-error record (encode.ts
 * failedTurnRecord): its content is the reply so far, `errorDetails` the error, and the fields
 * Claude Code's record has no slot for come back from `threadbase`.
 */
function restoreFailedTurn(msg: Message, r: ClaudeRecord): void {
  const kept = r.threadbase as Record<string, unknown>;
  if (typeof r.errorDetails === 'string' && r.errorDetails) msg.error = r.errorDetails;
  if (typeof kept.model === 'string') msg.model = kept.model;
  if (typeof kept.responseId === 'string') msg.responseId = kept.responseId;
  if (typeof kept.stopReason === 'string') msg.stopReason = kept.stopReason;
  const usage = usageFromAnthropic(kept.usage);
  if (usage) msg.usage = usage;
}

export interface ParseOptions {
  /** A sub-agent transcript: its records are all `isSidechain`, but they are this session's main chain. */
  subagent?: boolean;
  /** Continue from this byte (the start of a line) and line number: the earlier entries are known elsewhere. */
  start?: number;
  startLine?: number;
  /**
   * The latest `timestamp` of the records before `start` (ParsedTranscript.safe.latestTimestamp), so a
   * record without one at the start of the part read takes what a whole read gives it.
   */
  latestTimestamp?: string;
  /** a record before `start` has a uuid and a type Claude Code keeps no row of (ParsedTranscript.nonRows) */
  nonRowsBefore?: boolean;
}

/** A user record that starts a turn (not a tool result, not a compaction summary, not a side chain). */
function startsTurn(r: ClaudeRecord): boolean {
  if (r.type !== 'user' || r.isSidechain === true || r.isCompactSummary === true || typeof r.uuid !== 'string') return false;
  const m = r.message;
  if (!isRecord(m)) return false;
  return !(Array.isArray(m.content) && m.content.some((b) => isRecord(b) && b.type === 'tool_result'));
}

export async function parseTranscript(file: string, opts: ParseOptions = {}): Promise<ParsedTranscript> {
  const continuation = opts.start !== undefined && opts.start > 0;
  const facts: LeafFacts = { checkpointSet: false, explicitNow: false, prompted: false, snapshotsAfter: 0, underLast: false };
  const out: ParsedTranscript = {
    entries: [],
    warnings: [],
    summaries: [],
    leafFacts: facts,
    end: { offset: opts.start ?? 0, line: opts.startLine ?? 1 },
  };
  const seen = new Set<string>();
  /** per uuid, where its record so far stands: a later record of the uuid leaves it out */
  const placeOf = new Map<string, { index: number; line: number }>();
  const leftOut = new Set<number>();
  const compactions = new Map<string, CompactionEntry>();
  // A content block that is not an object is skipped by the reader; say where, as for a bad line.
  const skippedAt = (line: number, id: string): WireReadOptions => ({
    onIssue: (issue) => out.warnings.push({ file, line, id, message: `message.${issue.message}` }),
  });
  let lastUuid: string | undefined;
  /** where each uuid was first written: the order Claude Code's Map by uuid keeps them in */
  const firstAt = new Map<string, number>();
  /** the greatest `timestamp` of a row so far (Claude Code's rule: a plain string comparison) */
  let newestTime = '';
  /** the next record is the transcript's first (a read from an offset starts after it) */
  let first = !continuation;
  /** the latest (greatest, not last seen) timestamp so far, which a record without one takes */
  let latest = continuation ? opts.latestTimestamp : undefined;

  for await (const l of readJsonl(file, { start: opts.start ?? 0, startLine: opts.startLine ?? 1 })) {
    // A torn last line may still be being written: the next read starts at it again.
    if (l.partial && l.error) out.end = { offset: l.offset, line: l.line };
    else out.end = l.partial ? { offset: l.end, line: l.line } : { offset: l.end, line: l.line + 1 };
    if (l.error) {
      out.warnings.push({ file, line: l.line, message: l.error });
      continue;
    }
    const r = l.value;
    if (isRecord(r) && !opts.subagent && startsTurn(r) && !l.partial)
      out.safe = {
        offset: l.offset,
        line: l.line,
        entryIndex: out.entries.length,
        ...(latest !== undefined ? { latestTimestamp: latest } : {}),
      };
    if (!isRecord(r)) {
      out.warnings.push({ file, line: l.line, message: 'record is not a JSON object' });
      continue;
    }
    if (first) Object.assign(out, writtenByOf(isRecord(r.threadbase) ? r.threadbase.writtenBy : undefined));
    first = false;
    const type = str(r.type) ?? '';
    const uuid = str(r.uuid);
    const timestamp = str(r.timestamp);
    if (timestamp) {
      out.firstTimestamp ??= timestamp;
      if (!out.lastTimestamp || timestamp > out.lastTimestamp) out.lastTimestamp = timestamp;
      if (!latest || timestamp > latest) latest = timestamp;
    }
    if (!out.sessionIdInFile && typeof r.sessionId === 'string') out.sessionIdInFile = r.sessionId;
    if (!out.cwd && typeof r.cwd === 'string') out.cwd = r.cwd;
    if (!out.version && typeof r.version === 'string') out.version = r.version;
    if (!out.agentId && typeof r.agentId === 'string') out.agentId = r.agentId;
    // the LAST mark is the fork point: `/branch` and the SDK's forkSession mark each copied record with its
    // own uuid in the original, threadbase's forkSession each with the fork point (NOTES.md "Forks")
    if (isRecord(r.forkedFrom))
      out.forkedFrom = { sessionId: str(r.forkedFrom.sessionId), messageUuid: str(r.forkedFrom.messageUuid) };
    if (type === 'assistant' && uuid && typeof r.requestSessionId === 'string' && r.requestSessionId !== r.sessionId)
      out.requestedIn = { sessionId: r.requestSessionId, messageUuid: uuid };
    if (type === 'last-prompt') notePrompt(facts, r);
    if (type === 'custom-title' && typeof r.customTitle === 'string') out.customTitle = r.customTitle;
    if (type === 'ai-title' && typeof r.aiTitle === 'string') out.aiTitle = r.aiTitle;
    if (type === 'summary' && typeof r.summary === 'string')
      out.summaries.push({ leafUuid: str(r.leafUuid), summary: r.summary });

    const ts = timestamp ?? latest ?? new Date(0).toISOString();
    const sidechain = !opts.subagent && r.isSidechain === true;
    const parentUuid = str(r.parentUuid) ?? null;

    if (!uuid) {
      // File-level records (queue operations, titles, modes, request logs, ...) are on no path:
      // they hang from the entry before them as side entries, so they never become the leaf.
      out.entries.push({
        kind: 'metadata',
        id: `${type || 'record'}@${l.line}`,
        parentId: lastUuid ?? null,
        timestamp: ts,
        type: type || 'unknown',
        data: r,
        raw: r,
        rawSource: 'claude',
        sidechain: true,
      });
      continue;
    }
    // Claude Code reads a transcript into a Map by uuid with Map.set (2.1.332's loader), so of a uuid
    // written twice only the later record is sent, and when it is the last record on the main chain
    // it is the leaf (probed: test/agents/claude-repeated-uuid). The earlier one is left out here too.
    const earlier = placeOf.get(uuid);
    if (earlier) {
      leftOut.add(earlier.index);
      out.warnings.push({
        file,
        line: earlier.line,
        id: uuid,
        message: `duplicate uuid ${uuid}: line ${l.line} has it again and Claude Code keeps only that later record; this one left out`,
      });
    }

    let entry: Entry;
    if (type === 'system' && r.subtype === 'compact_boundary') {
      const logical = str(r.logicalParentUuid);
      const meta = isRecord(r.compactMetadata) ? r.compactMetadata : {};
      const preserved = isRecord(meta.preservedSegment) ? meta.preservedSegment : undefined;
      const c: CompactionEntry = {
        kind: 'compaction',
        id: uuid,
        // Linked to the history it summarises when that is earlier in this file (a fork starts at the boundary).
        parentId: logical && seen.has(logical) ? logical : parentUuid,
        timestamp: ts,
        summary: '',
        raw: r,
        rawSource: 'claude',
      };
      if (typeof meta.preTokens === 'number') c.tokensBefore = meta.preTokens;
      const head = preserved ? str(preserved.headUuid) : undefined;
      if (head) c.firstKeptEntryId = head;
      if (sidechain) c.sidechain = true;
      compactions.set(uuid, c);
      entry = c;
    } else if (type === 'user' && r.isCompactSummary === true && parentUuid && compactions.has(parentUuid)) {
      const c = compactions.get(parentUuid) as CompactionEntry;
      const m = messageOfRecord(r, skippedAt(l.line, uuid));
      c.summary = m ? m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') : '';
      // The compaction entry renders the summary; this record stays for lossless write-back.
      const md: MetadataEntry = {
        kind: 'metadata',
        id: uuid,
        parentId: parentUuid,
        timestamp: ts,
        type: 'compact-summary',
        data: r,
        raw: r,
        rawSource: 'claude',
      };
      if (sidechain) md.sidechain = true;
      entry = md;
    } else if ((type === 'user' || type === 'assistant') && isRecord(r.message)) {
      const message = messageOfRecord(r, skippedAt(l.line, uuid)) as Message;
      // a branch summary threadbase wrote as a user turn, the entry kept beside it (encode.ts)
      const kept =
        type === 'user' && isRecord(r.threadbase) ? branchSummaryOf(r.threadbase.branchSummary, messageText(message)) : undefined;
      entry = kept
        ? { kind: 'branch_summary', id: uuid, parentId: parentUuid, timestamp: ts, ...kept, raw: r, rawSource: 'claude' }
        : { kind: 'message', id: uuid, parentId: parentUuid, timestamp: ts, message, raw: r, rawSource: 'claude' };
      if (sidechain) entry.sidechain = true;
    } else if (type === 'system' && r.subtype === 'local_command' && typeof r.content === 'string') {
      // A command run in Claude Code's REPL (`/branch`, `/model`) and its output: Claude Code sends
      // the record as the user's text, joined to the user turn before it (NOTES.md "Local commands").
      entry = {
        kind: 'message',
        id: uuid,
        parentId: parentUuid,
        timestamp: ts,
        message: { role: 'user', parts: [{ type: 'text', text: r.content }], meta: { claude: { localCommand: true } } },
        raw: r,
        rawSource: 'claude',
      };
      if (sidechain) entry.sidechain = true;
    } else {
      const data = type === 'attachment' ? r.attachment : r;
      entry = {
        kind: 'metadata',
        id: uuid,
        parentId: parentUuid,
        timestamp: ts,
        type: type || 'unknown',
        data,
        raw: r,
        rawSource: 'claude',
      };
      if (sidechain) entry.sidechain = true;
    }
    seen.add(uuid);
    placeOf.set(uuid, { index: out.entries.length, line: l.line });
    if (!firstAt.has(uuid)) firstAt.set(uuid, firstAt.size);
    out.entries.push(entry);
    lastUuid = uuid;
    if (ROW_TYPES.has(type)) newestTime = noteRow(facts, r, uuid, sidechain, newestTime);
    else out.nonRows = true;
  }

  if (leftOut.size) dropLeftOut(out, leftOut);
  out.firstPrompt = firstPromptIn(out.entries);
  const orphans = bridgeMissingParents(
    out.entries,
    firstAt,
    continuation ? undefined : { file, lineOf: placeOf, warnings: out.warnings },
  );
  if (continuation) {
    // parents before the part are in the earlier entries; but a row other than the part's first that
    // hangs on no row of the part may be bridged to an earlier row by time: the index reads whole
    // (a parent before the part that is a row is fine, one never written the index refuses: only a
    // record Claude Code keeps no row of, in the part or before it, may make it bridge)
    const firstRow = out.entries.find((e) => !e.id.includes('@'))?.id;
    const inPart = new Set(out.entries.map((e) => e.id));
    facts.orphanInPart = [...orphans].some((id) => {
      const parent = str((out.entries.find((e) => e.id === id)?.raw as ClaudeRecord | undefined)?.parentUuid);
      return id !== firstRow && (opts.nonRowsBefore === true || (parent !== undefined && inPart.has(parent)));
    });
  } else {
    for (const e of out.entries)
      if (
        e.parentId &&
        !seen.has(e.parentId) &&
        !e.id.includes('@') &&
        !(isRecord(e.raw) && ROW_TYPES.has(str(e.raw.type) ?? ''))
      )
        out.warnings.push({ file, id: e.id, message: `parent ${e.parentId} is not in this file; the entry starts a new root` });
    const safeEntry = out.safe ? out.entries[out.safe.entryIndex] : undefined;
    if (out.safe && safeEntry && orphans.has(safeEntry.id)) out.safe.orphan = true;
  }
  out.leafId = claudeLeaf(out.entries, facts, firstAt);
  relinkParallelToolResults(out.entries);
  // the last ai-title, else the last summary of a leaf in this file
  out.summaryTitle = out.aiTitle || out.summaries.filter((x) => !x.leafUuid || seen.has(x.leafUuid)).at(-1)?.summary;
  return out;
}

/**
 * Takes the entries at `leftOut` (earlier records of a uuid written again) out of `out.entries`,
 * moving the entry count that points into the list (`safe`) back by those before it.
 */
function dropLeftOut(out: ParsedTranscript, leftOut: ReadonlySet<number>): void {
  if (out.safe) {
    const at = out.safe.entryIndex;
    let before = 0;
    for (const i of leftOut) if (i < at) before++;
    out.safe.entryIndex = at - before;
  }
  out.entries = out.entries.filter((_, i) => !leftOut.has(i));
}

/** The first prompt Claude Code's session picker shows: of the user records on the main chain, the first with prompt text. */
function firstPromptIn(entries: readonly Entry[]): string | undefined {
  for (const e of entries) {
    if ((e.kind !== 'message' && e.kind !== 'branch_summary') || e.sidechain || !isRecord(e.raw) || e.raw.type !== 'user')
      continue;
    const prompt = promptText(e.raw);
    if (prompt !== undefined) return prompt;
  }
  return undefined;
}

/** The record types Claude Code 2.1.332's loader keeps as a transcript's rows (its Map by uuid); others are not on its chains. */
const ROW_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'attachment', 'system']);

/**
 * What Claude Code's leaf rule goes by, gathered in file order as its loader does (claudeLeaf):
 * - `checkpoint`: the last `last-prompt`'s leafUuid, unless a `compact_boundary` or a `last-prompt`
 *   with `leafUuid: null, explicit: true` came after it (either clears it); `checkpointSet` when the
 *   records read set or cleared it;
 * - `explicitNow`: that `last-prompt` is `explicit` (a rewind) and no main-chain row came after it;
 * - `clearedToEmpty`: the last `last-prompt` is a rewind to empty (`leafUuid: null, explicit: true`) and
 *   no main-chain row came after it (`file_snapshot` rows do not count): Claude Code resumes with nothing;
 * - `prompted`: some `last-prompt` has a leafUuid field (null too);
 * - `lastRow`: the last main-chain row (a `system` `file_snapshot` and a `fork_briefing` attachment
 *   are none); `newestRow`: the first main-chain row with the greatest `timestamp` (as strings);
 * - `snapshotsAfter`: the `file_snapshot` rows after the last row;
 * - `underLast`: some main-chain row hangs under the last row; `byEnds`: a compaction that kept a
 *   segment made the ends of the chains decide (both set by claudeLeaf).
 */
export interface LeafFacts {
  checkpoint?: string;
  checkpointSet: boolean;
  explicitNow: boolean;
  /** the checkpoint was named by an explicit `last-prompt` (rows after it or not): no batch rule (underByBatch) */
  explicitSet?: boolean;
  clearedToEmpty?: boolean;
  prompted: boolean;
  lastRow?: string;
  newestRow?: string;
  snapshotsAfter: number;
  underLast: boolean;
  byEnds?: boolean;
  /** the nearest user/assistant row at or above the last row is the end of its chain (no user/assistant row under it) */
  lastAtEnd?: boolean;
  /** a read from an offset: a row after the part's first hangs on no row of the part (bridgeMissingParents) */
  orphanInPart?: boolean;
  /** a `compact_boundary` row was read; `segmentKept`: one that names a segment it kept */
  compacted?: boolean;
  segmentKept?: boolean;
}

function notePrompt(facts: LeafFacts, r: ClaudeRecord): void {
  if (r.leafUuid !== undefined) facts.prompted = true;
  const id = str(r.leafUuid);
  if (id) {
    facts.explicitNow = r.explicit === true || (facts.explicitNow && facts.checkpoint === id);
    facts.explicitSet = r.explicit === true || (facts.explicitSet === true && facts.checkpoint === id);
    facts.checkpoint = id;
    facts.checkpointSet = true;
    delete facts.clearedToEmpty;
  } else if (r.leafUuid === null && r.explicit === true) {
    clearCheckpoint(facts);
    facts.clearedToEmpty = true;
  }
}

function clearCheckpoint(facts: LeafFacts): void {
  delete facts.checkpoint;
  facts.explicitNow = false;
  delete facts.explicitSet;
  facts.checkpointSet = true;
}

/** A row (ROW_TYPES) read: returns the greatest row timestamp so far. */
function noteRow(facts: LeafFacts, r: ClaudeRecord, uuid: string, sidechain: boolean, newest: string): string {
  let out = newest;
  if (r.type === 'system' && r.subtype === 'file_snapshot') facts.snapshotsAfter++;
  else if (!sidechain && !(r.type === 'attachment' && isRecord(r.attachment) && r.attachment.type === 'fork_briefing')) {
    facts.lastRow = uuid;
    facts.snapshotsAfter = 0;
    facts.explicitNow = false;
    delete facts.clearedToEmpty;
    if (typeof r.timestamp === 'string' && r.timestamp > out) {
      facts.newestRow = uuid;
      out = r.timestamp;
    }
  }
  if (r.type === 'system' && r.subtype === 'compact_boundary') {
    clearCheckpoint(facts);
    facts.compacted = true;
    const meta = isRecord(r.compactMetadata) ? r.compactMetadata : {};
    if (isRecord(meta.preservedSegment) || isRecord(meta.preservedMessages)) facts.segmentKept = true;
  }
  return out;
}

/**
 * The leaf Claude Code 2.1.332 resumes on (its transcript loader, read from the binary and probed:
 * NOTES.md "Leaf", test/agents/claude-repeated-uuid), over its rows as its Map by uuid holds them (the
 * later record of a uuid, in the place of the first):
 * - a rewind to empty with no main-chain row after it (LeafFacts.clearedToEmpty): none (EMPTY_LEAF);
 * - after a compaction whose last boundary names the segment it kept (afterPreserved), unless the
 *   checkpoint is explicit now: of the ends of the chains (chainEnds) the only one, else the checkpoint
 *   when it is one, else the last row's, else the newest (the last row stays the leaf when it is at or
 *   under the end picked);
 * - a checkpoint (LeafFacts) that is a row: the last row when it is under the checkpoint by the rows'
 *   parentUuid and the checkpoint is not explicit now, else the checkpoint itself;
 * - else, with `file_snapshot` rows after the last row: of the user/assistant records at the ends
 *   of the chains (newestEnd), the newest;
 * - else the last row, unless no `last-prompt` has a leafUuid and another row is at least as new
 *   by `timestamp`: then the newest row under the last one (the later of equals in Map order), if any.
 * A read from an offset does not see the rows before it: driver.ts leafAfter settles its leaf.
 */
function claudeLeaf(entries: readonly Entry[], facts: LeafFacts, firstAt: ReadonlyMap<string, number>): string | undefined {
  let parentOf = new Map<string, string | null>();
  let rows: Row[] = [];
  for (const e of entries) {
    if (e.id.includes('@') || !isRecord(e.raw)) continue;
    parentOf.set(e.id, str(e.raw.parentUuid) ?? null);
    if (ROW_TYPES.has(str(e.raw.type) ?? '')) rows.push({ id: e.id, sidechain: e.sidechain === true, raw: e.raw });
  }
  const order = (id: string) => firstAt.get(id) ?? Number.MAX_SAFE_INTEGER;
  rows.sort((a, b) => order(a.id) - order(b.id));
  const compacted = afterPreserved(rows, parentOf);
  if (compacted) ({ rows, parentOf } = compacted);
  const last = facts.lastRow;
  // (walked down from the last row: a walk up from every row would cost rows × depth)
  const below = last ? descendants(parentOf, last) : new Set<string>();
  const belowLast = rows.filter((e) => !e.sidechain && below.has(e.id));
  facts.underLast = belowLast.length > 0;
  const checkpoint = facts.checkpoint;
  const named = checkpoint ? rows.find((e) => e.id === checkpoint) : undefined;
  facts.byEnds = compacted?.tail !== undefined;
  const lastTurn = last ? turnAtOrAbove(rows, parentOf, last) : undefined;
  facts.lastAtEnd = lastTurn !== undefined && !rows.some((e) => isTurn(e) && parentOf.get(e.id) === lastTurn);
  // a rewind to empty with no row after it: 2.1.332 resumes with no messages, whatever else the file holds
  if (facts.clearedToEmpty) return EMPTY_LEAF;
  if (compacted?.tail !== undefined && !(facts.explicitNow && named && !named.sidechain)) {
    // after a compaction that kept a segment: the ends of the chains decide, not the last row
    const ends = chainEnds(rows, parentOf);
    const pick =
      named && ends.includes(named) && (facts.explicitNow || !last || !underByBatch(rows, parentOf, last, named.id, facts, false))
        ? named.id
        : facts.snapshotsAfter > 0
          ? undefined
          : last;
    const turn =
      ends.length <= 1
        ? ends[0]?.sidechain
          ? undefined
          : (ends[0]?.id ?? newestRow(rows))
        : ((pick ? turnAtOrAbove(rows, parentOf, pick) : undefined) ?? newestOf(ends.filter((e) => !e.sidechain))?.id);
    // Claude Code sends the records after that turn on its chain too: the last row stays the leaf when it is one
    return last && turn && lastTurn === turn ? last : turn;
  }
  if (named)
    return !facts.explicitNow && last && last !== checkpoint && underByBatch(rows, parentOf, last, named.id, facts, true)
      ? last
      : named.id;
  if (facts.snapshotsAfter > 0) {
    const ends = chainEnds(rows, parentOf);
    return ends.length ? newestOf(ends.filter((e) => !e.sidechain))?.id : newestRow(rows);
  }
  if (!last || facts.prompted || !facts.newestRow || facts.newestRow === last) return last;
  let leaf = last;
  let newest = '';
  for (const e of belowLast)
    if (typeof e.raw.timestamp === 'string' && e.raw.timestamp >= newest) {
      leaf = e.id;
      newest = e.raw.timestamp;
    }
  return leaf;
}

const isBoundary = (e: Row) => e.raw.type === 'system' && e.raw.subtype === 'compact_boundary';
const isTurn = (e: Row) => e.raw.type === 'user' || e.raw.type === 'assistant';

/**
 * Claude Code's loader after a compaction (2.1.332, read from the binary): when a compact boundary
 * carries the segment it kept (`compactMetadata.preservedSegment` {headUuid, tailUuid, anchorUuid}, or
 * `preservedMessages` {uuids, anchorUuid}), the rows before the last boundary that are not in that
 * segment go, and when the last boundary is the one that carries it (its tail reaching its head up
 * the rows' parents), the segment is re-hung after its anchor (the summary), what hung under the anchor
 * after the segment, and a user/assistant record whose parent went, under its tail; `tail` is then
 * set, and the leaf is taken from the ends of the chains (claudeLeaf). Undefined when nothing changes.
 */
function afterPreserved(
  rows: readonly Row[],
  parentOf: ReadonlyMap<string, string | null>,
): { rows: Row[]; parentOf: Map<string, string | null>; tail?: string } | undefined {
  const keptOf = (e: Row) => (isRecord(e.raw.compactMetadata) ? e.raw.compactMetadata : undefined);
  const carries = (e: Row) => isBoundary(e) && (isRecord(keptOf(e)?.preservedMessages) || isRecord(keptOf(e)?.preservedSegment));
  const lastAt = rows.findLastIndex(isBoundary);
  const carrierAt = rows.findLastIndex(carries);
  if (carrierAt < 0) return undefined;
  const known = new Set(rows.map((e) => e.id));
  let segment: { anchor?: string; ids: string[] } | undefined;
  if (carrierAt === lastAt) {
    const meta = keptOf(rows[carrierAt] as Row) ?? {};
    const listed = isRecord(meta.preservedMessages) ? meta.preservedMessages : undefined;
    if (listed)
      segment = {
        anchor: str(listed.anchorUuid),
        ids: Array.isArray(listed.uuids) ? listed.uuids.filter((u): u is string => typeof u === 'string') : [],
      };
    else {
      const walk = isRecord(meta.preservedSegment) ? meta.preservedSegment : {};
      const ids: string[] = [];
      for (let at = str(walk.tailUuid); at && known.has(at) && !ids.includes(at); at = parentOf.get(at) ?? undefined) {
        ids.push(at);
        if (at === walk.headUuid) {
          segment = { anchor: str(walk.anchorUuid), ids: ids.reverse() };
          break;
        }
      }
    }
    // a segment whose walk breaks: Claude Code leaves the rows as they are
    if (!segment) return undefined;
  }
  const ids = segment?.ids ?? [];
  if (ids.some((id) => !known.has(id))) return undefined;
  const tail = ids.at(-1);
  const inSegment = new Set(ids);
  const next = new Map(parentOf);
  if (tail) {
    let anchor = segment?.anchor ?? null;
    for (const id of ids) {
      next.set(id, anchor);
      anchor = id;
    }
    for (const e of rows) if (next.get(e.id) === segment?.anchor && e.id !== ids[0]) next.set(e.id, tail);
  }
  const gone = new Set(rows.slice(0, lastAt).flatMap((e) => (inSegment.has(e.id) ? [] : [e.id])));
  const kept = rows.filter((e) => !gone.has(e.id));
  if (tail && gone.size) for (const e of kept) if (isTurn(e) && gone.has(next.get(e.id) ?? '')) next.set(e.id, tail);
  for (const id of gone) next.delete(id);
  return { rows: kept, parentOf: next, ...(tail ? { tail } : {}) };
}

/** Whether `id` is `top` or under it, up `parentOf` (a cycle ends the walk). */
function isAtOrUnder(parentOf: ReadonlyMap<string, string | null>, id: string, top: string): boolean {
  const seen = new Set<string>();
  for (let at: string | null | undefined = id; at && !seen.has(at); at = parentOf.get(at)) {
    if (at === top) return true;
    seen.add(at);
  }
  return false;
}

/**
 * Whether Claude Code 2.1.332 counts the last row as under the checkpoint (its loader's `Kin(rows,
 * lastRow, checkpoint, {direct, throughBatch})`, read from the binary; live: test/agents/claude-batch-leaf):
 * `direct`, the last row at or under it by parentUuid; and, unless an explicit `last-prompt` set the
 * checkpoint, the batch rule. From the checkpoint up over side rows (attachment, system but a boundary,
 * meta user; virtual calls) to a tool result (its call ids; the reply is its parent) or, from an
 * attachment with `toolUseID`, the record of that response holding the call (else the checkpoint is
 * the reply). Then up from the last row: under when it meets another record of the reply's response
 * (same `message.id`, with calls) above the reply in its batch, or one and then the reply itself, or
 * reaches the reply from a tool result answering another of its calls.
 */
function underByBatch(
  rows: readonly Row[],
  parentOf: ReadonlyMap<string, string | null>,
  last: string,
  checkpoint: string,
  facts: LeafFacts,
  direct: boolean,
): boolean {
  const byId = new Map(rows.map((e) => [e.id, e]));
  const parent = (r: Row) => byId.get(parentOf.get(r.id) ?? '');
  let reply: Row | undefined;
  let answered: string[] = [];
  let byAttachment = false;
  if (facts.explicitSet !== true) {
    const seen = new Set<string>();
    let side: Row | undefined;
    let at = byId.get(checkpoint);
    while (at && (isSideRow(at.raw) || isVirtualCall(at.raw)) && !seen.has(at.id)) {
      seen.add(at.id);
      side = at;
      at = parent(at);
    }
    if (at?.raw.type === 'user' && blockIds(at.raw, 'tool_result', 'tool_use_id').length > 0) {
      answered = blockIds(at.raw, 'tool_result', 'tool_use_id');
      reply = parent(at);
    } else if (side) {
      const attachment = side.raw.type === 'attachment' && isRecord(side.raw.attachment) ? side.raw.attachment : undefined;
      const useId = typeof attachment?.toolUseID === 'string' ? attachment.toolUseID : undefined;
      const response = at?.raw.type === 'assistant' ? responseIdOf(at.raw) : undefined;
      reply =
        at && response && useId
          ? [at, ...sameResponseAbove(at, response, parent)].find((r) => callIdsOf(r.raw).includes(useId))
          : undefined;
      answered = reply && useId ? [useId] : [];
      byAttachment = answered.length > 0;
    } else reply = at;
  }
  const calls = reply ? callIdsOf(reply.raw) : [];
  const response = reply?.raw.type === 'assistant' && calls.length > 0 ? responseIdOf(reply.raw) : undefined;
  const above = new Set(reply && response ? sameResponseAbove(reply, response, parent).map((r) => r.id) : []);
  const walked = new Set<string>();
  let child: Row | undefined;
  let metOne = false;
  for (let at: string | null | undefined = last; at && !walked.has(at); ) {
    if (direct && at === checkpoint) return true;
    walked.add(at);
    const row = byId.get(at);
    if (reply && response && row) {
      if (metOne && row.id === reply.id) return true;
      if (
        row.raw.type === 'assistant' &&
        row.id !== reply.id &&
        responseIdOf(row.raw) === response &&
        callIdsOf(row.raw).length
      ) {
        if (above.has(row.id)) return true;
        metOne = true;
      } else if (!ofResponse(row.raw, response)) metOne = false;
    }
    if (
      reply &&
      row?.id === reply.id &&
      child &&
      answered.some((c) => calls.includes(c)) &&
      blockIds(child.raw, 'tool_result', 'tool_use_id').some(
        (c) => calls.includes(c) && (byAttachment ? calls.length > 1 : !answered.includes(c)),
      )
    )
      return true;
    child = row;
    // on through a record that is no row (a progress record: its parent holds what hangs under it)
    at = parentOf.get(at);
  }
  return false;
}

/** The records above `r` of the same response, as long as the chain stays in it (2.1.332 `Yst`). */
function sameResponseAbove(r: Row, response: string, parent: (r: Row) => Row | undefined): Row[] {
  const out: Row[] = [];
  const seen = new Set([r.id]);
  for (let at = parent(r); at && !seen.has(at.id) && ofResponse(at.raw, response); at = parent(at)) {
    seen.add(at.id);
    out.push(at);
  }
  return out;
}

/** A record that may sit among a response's records (2.1.332 `WMe`): its own, a tool result or meta user, a side record. */
function ofResponse(r: ClaudeRecord, response: string): boolean {
  if (r.type === 'assistant') return responseIdOf(r) === response;
  if (r.type === 'user') return r.isMeta === true || blockIds(r, 'tool_result', 'tool_use_id').length > 0;
  if (r.type === 'attachment') return true;
  return r.type === 'system' && r.subtype !== 'compact_boundary';
}

/** An attachment, a `system` record but a boundary, a meta user record without a tool result (2.1.332 `XN`). */
function isSideRow(r: ClaudeRecord): boolean {
  if (r.type === 'attachment') return true;
  if (r.type === 'system') return r.subtype !== 'compact_boundary';
  return r.type === 'user' && r.isMeta === true && blockIds(r, 'tool_result', 'tool_use_id').length === 0;
}

/** A virtual call or result record (2.1.332 `z8`). */
function isVirtualCall(r: ClaudeRecord): boolean {
  if (r.isVirtual !== true) return false;
  if (r.type === 'assistant') return callIdsOf(r).length > 0;
  return r.type === 'user' && blockIds(r, 'tool_result', 'tool_use_id').length > 0;
}

const callIdsOf = (r: ClaudeRecord): string[] => (r.type === 'assistant' ? blockIds(r, 'tool_use', 'id') : []);
const responseIdOf = (r: ClaudeRecord): string | undefined => (isRecord(r.message) ? str(r.message.id) : undefined);

/** The `key` of each content block of `type` in the record's message (strings only). */
function blockIds(r: ClaudeRecord, type: string, key: string): string[] {
  const content = isRecord(r.message) ? r.message.content : undefined;
  if (!Array.isArray(content)) return [];
  return content.flatMap((b) => (isRecord(b) && b.type === type && typeof b[key] === 'string' ? [b[key] as string] : []));
}

/** The nearest user/assistant row at or above `id`. */
function turnAtOrAbove(rows: readonly Row[], parentOf: ReadonlyMap<string, string | null>, id: string): string | undefined {
  const byId = new Map(rows.map((e) => [e.id, e]));
  const walked = new Set<string>();
  for (let at = byId.get(id); at && !walked.has(at.id); at = byId.get(parentOf.get(at.id) ?? '')) {
    if (isTurn(at)) return at.id;
    walked.add(at.id);
  }
  return undefined;
}

/** The records under `top` by their parentUuid (not `top` itself). */
function descendants(parentOf: ReadonlyMap<string, string | null>, top: string): Set<string> {
  const children = new Map<string, string[]>();
  for (const [id, parent] of parentOf) {
    if (!parent) continue;
    const siblings = children.get(parent);
    if (siblings) siblings.push(id);
    else children.set(parent, [id]);
  }
  const out = new Set<string>();
  const todo = [...(children.get(top) ?? [])];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (out.has(id) || id === top) continue;
    out.add(id);
    todo.push(...(children.get(id) ?? []));
  }
  return out;
}

interface Row {
  id: string;
  sidechain: boolean;
  raw: ClaudeRecord;
}

/**
 * The ends of the chains as Claude Code's loader finds them: from each row nothing hangs under, the
 * nearest user/assistant record up its chain, when no user/assistant record hangs under that one.
 */
function chainEnds(rows: readonly Row[], parentOf: ReadonlyMap<string, string | null>): Row[] {
  const byId = new Map(rows.map((e) => [e.id, e]));
  const parents = new Set<string>();
  const turnParents = new Set<string>();
  for (const e of rows) {
    const parent = parentOf.get(e.id);
    if (!parent) continue;
    parents.add(parent);
    if (isTurn(e)) turnParents.add(parent);
  }
  const ends = new Set<string>();
  for (const e of rows) {
    if (parents.has(e.id)) continue;
    const walked = new Set<string>();
    let at: Row | undefined = e;
    while (at && !isTurn(at) && !walked.has(at.id)) {
      walked.add(at.id);
      const parent = parentOf.get(at.id);
      at = parent ? byId.get(parent) : undefined;
    }
    if (at && isTurn(at) && !turnParents.has(at.id)) ends.add(at.id);
  }
  return rows.filter((e) => ends.has(e.id));
}

/** Claude Code's pick of the newest: by `Date.parse(timestamp)`, the first of equals, a time that does not parse the oldest. */
function newestOf(of: readonly Row[]): Row | undefined {
  let best: Row | undefined;
  let bestTime = Number.NEGATIVE_INFINITY;
  for (const e of of) {
    const ms = typeof e.raw.timestamp === 'string' ? Date.parse(e.raw.timestamp) : Number.NaN;
    const time = Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
    if (time > bestTime || bestTime === Number.NEGATIVE_INFINITY) {
      bestTime = time;
      best = e;
    }
  }
  return best;
}

/** With no chain end: the newest main-chain row, a `file_snapshot` only when there is nothing else. */
function newestRow(rows: readonly Row[]): string | undefined {
  const main = rows.filter((e) => !e.sidechain);
  return (newestOf(main.filter((e) => !(e.raw.type === 'system' && e.raw.subtype === 'file_snapshot'))) ?? newestOf(main))?.id;
}

/** Claude Code's bridge over a missing parent: the latest row at most this much older (2.1.332's `eTr`). */
const BRIDGE_MS = 5000;

/**
 * Claude Code 2.1.332's loader over a row whose parent is not one of its rows (NOTES.md "Leaf"): a
 * `progress` record is no row, what hangs under one is re-hung under its parent (one written before);
 * a parentUuid naming no row (never written, or a record of a type it does not keep) is bridged, as it
 * walks up from the leaf, to the row of the same `isSidechain` with the latest time at or before the
 * record's own (not a `file_snapshot`, not one already walked: here the record and the rows under it;
 * the first in Map order of equals), when that is at most 5 s older; else the chain starts there. Sets
 * each such entry's parentId so (its parentUuid stays in `raw`, so it is written back as read), with a
 * warning naming file and line; returns the ids of the rows whose parent is missing. Without `warn` (a
 * read from an offset) it only finds them.
 */
function bridgeMissingParents(
  entries: Entry[],
  firstAt: ReadonlyMap<string, number>,
  warn: { file: string; lineOf: ReadonlyMap<string, { line: number }>; warnings: ParseWarning[] } | undefined,
): Set<string> {
  const rows = new Map<string, Entry>();
  const progressParent = new Map<string, string | null>();
  /** a row's parentUuid after the progress records it names are passed (only those written before it) */
  const effectiveParent = new Map<string, string | null>();
  for (const e of entries) {
    if (e.id.includes('@') || !isRecord(e.raw)) continue;
    const type = str(e.raw.type) ?? '';
    const parent = str(e.raw.parentUuid) ?? null;
    if (type === 'progress')
      progressParent.set(e.id, parent && progressParent.has(parent) ? (progressParent.get(parent) ?? null) : parent);
    else if (ROW_TYPES.has(type)) {
      rows.set(e.id, e);
      effectiveParent.set(e.id, parent && progressParent.has(parent) ? (progressParent.get(parent) ?? null) : parent);
    }
  }
  const orphans = new Set<string>();
  for (const [id, parent] of effectiveParent) if (parent && !rows.has(parent)) orphans.add(id);
  // a read from an offset only tells which rows hang on none of its rows (their parents may be before it)
  if (!orphans.size || !warn) return orphans;
  const timeOf = (e: Entry) =>
    isRecord(e.raw) && typeof e.raw.timestamp === 'string' ? new Date(e.raw.timestamp).getTime() : Number.NaN;
  const order = (id: string) => firstAt.get(id) ?? Number.MAX_SAFE_INTEGER;
  // per isSidechain value, its timed rows (not file_snapshot) by time, the first in Map order first of equals
  const bySide = new Map<unknown, { time: number; entry: Entry }[]>();
  for (const c of rows.values()) {
    const cr = c.raw as ClaudeRecord;
    const t = timeOf(c);
    if (Number.isNaN(t) || (cr.type === 'system' && cr.subtype === 'file_snapshot')) continue;
    const side = bySide.get(cr.isSidechain) ?? [];
    side.push({ time: t, entry: c });
    bySide.set(cr.isSidechain, side);
  }
  for (const side of bySide.values()) side.sort((x, y) => x.time - y.time || order(y.entry.id) - order(x.entry.id));
  const known = new Set(entries.map((e) => e.id));
  for (const id of orphans) {
    const e = rows.get(id) as Entry;
    const raw = e.raw as ClaudeRecord;
    const own = timeOf(e);
    let bridge: Entry | undefined;
    let bridgeTime = Number.NEGATIVE_INFINITY;
    const side = Number.isNaN(own) ? [] : (bySide.get(raw.isSidechain) ?? []);
    // the last at or before its own time (binary search), then back past the rows walked
    let lo = 0;
    let hi = side.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((side[mid] as { time: number }).time <= own) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo - 1; k >= 0; k--) {
      const c = side[k] as { time: number; entry: Entry };
      // the rows the walk from the leaf has passed: the orphan and what hangs under it by the rows' own parents
      if (isAtOrUnder(effectiveParent, c.entry.id, id)) continue;
      bridge = c.entry;
      bridgeTime = c.time;
      break;
    }
    const missing = str(raw.parentUuid);
    const why = missing && known.has(missing) ? 'is a record Claude Code keeps no row of' : 'is not in this file';
    const line = warn?.lineOf.get(id)?.line;
    const at = line !== undefined ? { line } : {};
    if (bridge && own - bridgeTime <= BRIDGE_MS) {
      e.parentId = bridge.id;
      warn?.warnings.push({
        file: warn.file,
        ...at,
        id,
        message: `parent ${missing} ${why}; the entry hangs under ${bridge.id}, the latest record at most 5 s older, as Claude Code's loader bridges it`,
      });
    } else {
      e.parentId = null;
      warn?.warnings.push({
        file: warn.file,
        ...at,
        id,
        message: `parent ${missing} ${why}, and no record is at most 5 s older; the entry starts a new root`,
      });
    }
  }
  return orphans;
}

/**
 * Parallel tool calls: Claude Code writes one record per tool_use block (sharing message.id) and
 * hangs each tool result from the record of its own call (`sourceToolAssistantUUID`); every other
 * record hangs from the record written just before it. How the records of one response and its
 * results interleave depends on when each tool ended (2.1.332, fixture parallel-tools):
 * - all calls streamed first, then the results in the order the tools ended (A, B, resB, resA): each
 *   result hangs from its own call, so only the last one written is on the chain to the leaf;
 * - each result written before the next call was streamed (A, resA, B, resB): already one chain;
 * - a mix (A, resA, B, C, resB, resC): resB is off the chain.
 * Claude Code sends them all, the results in the order they were written. So the records of such a
 * response and the results hung from them (with what was written among them) are re-linked here
 * into one chain in file order, and what followed continues from the last of them; a response
 * already on one chain is left as it is, and so is one with a prompt among its records. (The
 * original parentUuid stays in `raw`.)
 */
function relinkParallelToolResults(entries: Entry[]): void {
  const responseOf = new Map<string, string>();
  for (const e of entries)
    if (e.kind === 'message' && e.message.role === 'assistant' && e.message.responseId)
      responseOf.set(e.id, e.message.responseId);
  /** per response with results hung from its records: the file positions of its first and last member */
  const spans = new Map<string, { first: number; last: number; results: boolean }>();
  entries.forEach((e, i) => {
    if (e.kind !== 'message') return;
    const rid =
      e.message.role === 'assistant'
        ? e.message.responseId
        : e.message.role === 'tool' && e.parentId
          ? responseOf.get(e.parentId)
          : undefined;
    if (!rid) return;
    const span = spans.get(rid) ?? { first: i, last: i, results: false };
    span.last = i;
    if (e.message.role === 'tool') span.results = true;
    spans.set(rid, span);
  });
  const side = (e: Entry) => e.id.includes('@');
  for (const span of spans.values()) {
    if (!span.results) continue;
    const head = entries[span.first] as Entry;
    const chain: Entry[] = [head];
    const inChain = new Set([head.id]);
    for (let i = span.first + 1; i <= span.last; i++) {
      const e = entries[i] as Entry;
      if (side(e) || e.sidechain !== head.sidechain || !e.parentId || !inChain.has(e.parentId)) continue;
      chain.push(e);
      inChain.add(e.id);
    }
    if (chain.every((e, k) => k === 0 || e.parentId === (chain[k - 1] as Entry).id)) continue;
    // a prompt or a compaction among them: more than one response's calls; left as written
    if (chain.some((e) => e.kind === 'compaction' || (e.kind === 'message' && e.message.role === 'user'))) continue;
    chain.forEach((e, k) => {
      if (k > 0) e.parentId = (chain[k - 1] as Entry).id;
    });
    const last = (chain[chain.length - 1] as Entry).id;
    for (const e of entries)
      if (e.parentId && inChain.has(e.parentId) && !inChain.has(e.id) && !side(e) && e.sidechain === head.sidechain)
        e.parentId = last;
  }
}
