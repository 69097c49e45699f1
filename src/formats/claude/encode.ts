/**
 * Model → Claude Code transcript records. A record read from Claude Code (rawSource 'claude') is
 * written back as it was, with the new session id and the entry's (possibly re-linked) parent;
 * anything else is encoded from the model fields as Claude Code would have recorded it.
 */
import { randomUUID } from 'node:crypto';
import {
  AnthropicToolIds,
  advisorIterations,
  messageToAnthropic,
  partToAnthropicBlock,
  type ToAnthropicOptions,
  tokensToAnthropic,
} from '../../convert/anthropic.js';
import { providerCallOf, providerCallsAsNotes } from '../../convert/provider-tools.js';
import type { Entry, ImagePart, Message, Meta, Part, Session, ToolCallPart, Usage } from '../../model/types.js';
import { withAssistantImageNotes } from '../shared/assistant-images.js';
import { toJsonl } from '../shared/atomic.js';
import { branchSummaryField } from '../shared/branch-summary.js';
import type { EncodedJsonl, JsonlEncodeOptions } from '../shared/encoded.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { denialKindOf, inClaudeWords } from './denials.js';
import { TASK_NOTIFICATION_ORIGIN, unwrappedTaskNotification } from './notifications.js';
import { CLAUDE_API_ERROR, isRecord, KEPT_COPY_OF, madeUpResponseId, SYNTHETIC_MODEL } from './parse.js';
import { encodeProjectPath } from './paths.js';
import { claudeReminderRecord } from './reminders.js';
import { isReplyBlock } from './reply.js';

/** The Claude Code version our records claim; resume checks nothing beyond the shape. */
export const WRITER_VERSION = '2.1.330';

export interface EncodeContext {
  sessionId: string;
  cwd: string;
  /** Set on every record of a fork: where it came from. */
  forkedFrom?: { sessionId: string; messageUuid: string };
  /** The tool ids the transcript already holds, when records are appended to it. */
  toolIds?: AnthropicToolIds;
}

/**
 * The calls of a message the transcript already holds, so the ids written after them stay apart
 * (read back, a call we renamed has the id Claude Code sends as `claudeId`).
 */
export function holdToolIds(ids: AnthropicToolIds, m: Message): void {
  for (const p of m.parts)
    if (p.type === 'tool_call') ids.seen(p.id, typeof p.meta?.claudeId === 'string' ? p.meta.claudeId : p.id);
}

function base(ctx: EncodeContext, e: Pick<Entry, 'id' | 'parentId' | 'timestamp' | 'sidechain'>) {
  return {
    parentUuid: e.parentId,
    isSidechain: e.sidechain === true,
    userType: 'external',
    cwd: ctx.cwd,
    sessionId: ctx.sessionId,
    version: WRITER_VERSION,
    ...(ctx.forkedFrom ? { forkedFrom: ctx.forkedFrom } : {}),
    type: 'user' as string,
    uuid: e.id,
    timestamp: e.timestamp,
  };
}

const CONTENT_OPTIONS: ToAnthropicOptions = { unsignedThinking: 'text', dropEmptyText: true };

/** A content block that holds a part only as Claude Code can take it (see keptParts). */
export interface KeptPart {
  /** the block's index in the record's content */
  block: number;
  /** the text block is thinking without a signature */
  thinking?: true;
  /** the part's fields an Anthropic block has no slot for */
  meta?: Meta;
  /** the tool call's (or its result's) own id, where the block's is another (AnthropicToolIds) */
  id?: string;
  /** the text block is the note for a call the provider ran itself (convert/provider-tools.ts): the call */
  call?: ToolCallPart;
  /** the text block is the note for an image the assistant made (shared/assistant-images.ts): the image */
  image?: ImagePart;
}

/**
 * What a record's content holds of a message only as Claude Code can take it, for the record's
 * `threadbase.parts` (a field Claude Code leaves alone), so that reading it gives the message back:
 * thinking without a signature, written as text since Claude Code replays only signed thinking (with
 * its meta: OpenAI's encrypted reasoning from codex, pi or OpenCode goes back to them), and the meta
 * of images and files beyond the block's own fields (codex's image `detail`), and a call the provider
 * ran itself (codex's web search), written as the text note Claude Code sends since it has no result,
 * and an image the assistant made (codex's image generation), written as its note since the Messages
 * API takes images only in user turns. Kept here at the record level: a field inside a content block
 * Claude Code would send to the API, which refuses it.
 */
function keptParts(m: Message, originals?: ReadonlyMap<Part, string>): KeptPart[] {
  const out: KeptPart[] = [];
  let block = 0;
  const sent = sentParts(m);
  m.parts.forEach((p, i) => {
    if (!partToAnthropicBlock(sent[i] as Part, CONTENT_OPTIONS)) return;
    if (p !== sent[i] && p.type === 'image') {
      out.push({ block, image: p });
      block++;
      return;
    }
    const original = originals?.get(p);
    if (original !== undefined) out.push({ block, id: original });
    const call = providerCallOf(p);
    if (call) {
      out.push({ block, call });
      block++;
      return;
    }
    const { anthropic: _a, anthropicBlock: _b, ...meta } = p.meta ?? {};
    const hasMeta = Object.keys(meta).length > 0;
    if (p.type === 'thinking' && p.signature === undefined) out.push({ block, thinking: true, ...(hasMeta ? { meta } : {}) });
    else if ((p.type === 'image' || p.type === 'file') && hasMeta) out.push({ block, meta });
    block++;
  });
  return out;
}

/**
 * A message's parts as its record's content holds them: an image the assistant made as its note
 * (the Messages API refuses an image block in an assistant turn), one part for each part.
 */
function sentParts(m: Message): readonly Part[] {
  return withAssistantImageNotes(m).parts;
}

/** `{ parts }` for the record's `threadbase` field, when the message has kept parts. */
function keptPartsField(m: Message, originals?: ReadonlyMap<Part, string>): { parts?: KeptPart[] } {
  const parts = keptParts(m, originals);
  return parts.length ? { parts } : {};
}

/** The record's `threadbase` field, when the message has kept parts. */
function withKeptParts(m: Message, originals?: ReadonlyMap<Part, string>): { threadbase?: { parts?: KeptPart[] } } {
  const field = keptPartsField(m, originals);
  return field.parts ? { threadbase: field } : {};
}

/**
 * Anthropic content for a message: a lone text part is a plain string, as Claude Code records
 * prompts, unless it was read from a list of blocks (a lone blank one: `blockContent`).
 */
function content(m: Message): unknown {
  const am = messageToAnthropic(withAssistantImageNotes(m), CONTENT_OPTIONS);
  const blocks = am.content as unknown[];
  if (
    m.role === 'user' &&
    !(isRecord(m.meta?.claude) && m.meta.claude.blockContent === true) &&
    blocks.length === 1 &&
    isRecord(blocks[0]) &&
    blocks[0].type === 'text' &&
    Object.keys(blocks[0]).length === 2
  )
    return blocks[0].text;
  return blocks;
}

function usageOut(m: Message) {
  return usageRecordOf(m.usage);
}

function usageRecordOf(u: Usage | undefined) {
  return {
    // the cache writes by how long they live, and the part of output that was thinking, as Claude Code records them
    ...tokensToAnthropic(u ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
    ...(u?.reasoning ? { output_tokens_details: { thinking_tokens: u.reasoning } } : {}),
    // what the request's price depends on beside its tokens
    ...(u?.webSearches ? { server_tool_use: { web_search_requests: u.webSearches, web_fetch_requests: 0 } } : {}),
    ...(u?.speed ? { speed: u.speed } : {}),
    ...(u?.inferenceGeo ? { inference_geo: u.inferenceGeo } : {}),
    // requests to an advisor model, which Claude Code counts and prices under that model
    ...(u?.advisors?.length ? { iterations: advisorIterations(u) } : {}),
  };
}

/**
 * A turn its own agent leaves out of the context it resumes with: pi-ai drops assistant messages
 * that ended in an error or were aborted; OpenCode's reader marks the failed ones it skips
 * (`excludedFromContext`).
 */
function failedTurn(m: Message): boolean {
  return (
    m.role === 'assistant' && (m.stopReason === 'error' || m.stopReason === 'aborted' || m.meta?.excludedFromContext === true)
  );
}

/** What threadbase keeps of a failed turn beside Claude Code's API-error record (see failedTurnRecord). */
interface FailedTurnFields {
  model?: string;
  responseId?: string;
  stopReason?: string;
  /** in the Messages API's shape, as `message.usage` */
  usage?: Record<string, unknown>;
}

/**
 * Another agent's failed turn as Claude Code records a failed request: an API-error record (model
 * "<synthetic>", `isApiErrorMessage`), which Claude Code 2.1.332 leaves out when it resumes, with
 * any tool result that answers a call in it, as the agent it came from did. Its content is the
 * reply so far (Claude Code shows it); the error is `errorDetails`, Claude Code's field for the
 * error's own message; the model, response id, stop reason and usage, for which such a record has
 * no slot (Claude Code writes "<synthetic>" and zero usage), ride in `threadbase`, which Claude Code
 * leaves alone and our reader restores them from.
 */
function failedTurnRecord(
  rec: ReturnType<typeof base>,
  m: Message,
  c: unknown[],
  originals: ReadonlyMap<Part, string>,
): Record<string, unknown> {
  const kept: FailedTurnFields = {
    ...(m.model ? { model: m.model } : {}),
    ...(m.responseId ? { responseId: m.responseId } : {}),
    ...(m.stopReason ? { stopReason: m.stopReason } : {}),
    ...(m.usage ? { usage: usageOut(m) } : {}),
  };
  return {
    ...rec,
    type: 'assistant',
    message: {
      id: randomUUID(),
      type: 'message',
      role: 'assistant',
      model: SYNTHETIC_MODEL,
      content: c,
      stop_reason: 'stop_sequence',
      stop_sequence: '',
      usage: tokensToAnthropic({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
    },
    error: 'unknown',
    isApiErrorMessage: true,
    ...(m.error ? { errorDetails: m.error } : {}),
    ...(m.parts.some((p) => p.type === 'tool_call') ? {} : { failedResponseHadNoToolCall: true }),
    threadbase: { ...kept, ...keptPartsField(m, originals) },
  };
}

/**
 * `replied`: the responses (responseId) another record of which has reply content. A record with
 * no content is written only into one of those: Claude Code merges it into its response and sends
 * nothing for it. Alone, Claude Code would send it as a "(no content)" reply; with no record the
 * turns around it join, as in our context.
 * `responseUsage`: each response's usage as counted (its last record with usage). A record without
 * usage of a response another record has it for carries that usage, as every record Claude Code
 * writes of a response does: zero usage there would replace the response's real one when read back.
 * `keptCopy`: the message copies a reply a compaction kept (keptCopies): written as a response of its
 * own with no usage (it was spent before the compaction), its response id kept in `threadbase`.
 */
function messageRecord(
  ctx: EncodeContext,
  e: Entry & { kind: 'message' },
  replied: ReadonlySet<string>,
  responseUsage: ReadonlyMap<string, Usage>,
  keptCopy: boolean,
  toolIds: AnthropicToolIds,
): Record<string, unknown> | undefined {
  // a call the provider ran has no result to send: Claude Code would send it with an error result
  const { message: m, originals } = toolIds.rename(providerCallsAsNotes(e.message));
  const rec = base(ctx, e);
  if (failedTurn(m)) return failedTurnRecord(rec, m, content(m) as unknown[], originals);
  if (m.role === 'assistant') {
    const c = content(m);
    if (Array.isArray(c) && c.length === 0 && !(m.responseId && replied.has(m.responseId))) return undefined;
    const requestId = isRecord(m.meta?.claude) ? m.meta.claude.requestId : undefined;
    const copyOf = keptCopy ? m.responseId : undefined;
    const kept = { ...keptPartsField(m, originals), ...(copyOf ? { [KEPT_COPY_OF]: copyOf } : {}) };
    return {
      ...rec,
      type: 'assistant',
      ...(typeof requestId === 'string' ? { requestId } : {}),
      message: {
        id: copyOf || !m.responseId ? madeUpResponseId(e.id) : m.responseId,
        type: 'message',
        role: 'assistant',
        model: m.model ?? 'claude-sonnet-4-5',
        content: c,
        stop_reason: stopReasonOf(m),
        stop_sequence: null,
        usage: usageRecordOf(copyOf ? undefined : (m.usage ?? (m.responseId ? responseUsage.get(m.responseId) : undefined))),
      },
      ...(Object.keys(kept).length ? { threadbase: kept } : {}),
    };
  }
  if (m.role === 'system') return undefined;
  // a task notification in the words Claude Code sends it (another agent's copy): its record, which Claude Code wraps
  const notice = unwrappedTaskNotification(m);
  // hook output or a plan-mode reminder as Claude Code sent it (another agent's copy): its record again (reminders.ts)
  const addition = notice ? undefined : claudeReminderRecord(m);
  if (addition) return { ...rec, ...addition };
  // a refused or cancelled call's result in Claude Code's words, its record saying how (denials.ts)
  const worded = inClaudeWords(notice ?? m);
  const c = content(worded);
  if (Array.isArray(c) && c.length === 0) return undefined;
  const toolDenialKind = denialKindOf(m);
  return {
    ...rec,
    type: 'user',
    message: { role: 'user', content: c },
    ...(notice ? { origin: TASK_NOTIFICATION_ORIGIN } : {}),
    ...(toolDenialKind ? { toolDenialKind } : {}),
    ...(Array.isArray(c) ? withKeptParts(m, originals) : {}),
  };
}

/** The Messages API's stop reasons; another agent's words for them (pi's `toolUse`, OpenAI's `length`) become these. */
const STOP_REASONS: Record<string, string> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  pause_turn: 'pause_turn',
  refusal: 'refusal',
  model_context_window_exceeded: 'model_context_window_exceeded',
  length: 'max_tokens',
  max_output_tokens: 'max_tokens',
};

function stopReasonOf(m: Message): string {
  const known = m.stopReason ? STOP_REASONS[m.stopReason] : undefined;
  return known ?? (m.parts.some((p) => p.type === 'tool_call') ? 'tool_use' : 'end_turn');
}

export interface EncodeResult {
  records: Record<string, unknown>[];
  warnings: string[];
}

/**
 * A copied record's `cwd` in the transcript's project: where the session is written under another
 * project (`convert --project`) than its records' (the first record's cwd, the project the reader
 * tells), a cwd in the old project moves to the same place in the new one and any other to the new
 * project itself; else each record keeps its own (a `cd` during the session included).
 */
function cwdMover(session: Session, cwd: string): (recordCwd: string) => string {
  const first = session.entries.find((e) => e.rawSource === 'claude' && isRecord(e.raw) && typeof e.raw.cwd === 'string');
  const old = first && isRecord(first.raw) ? (first.raw.cwd as string) : undefined;
  if (old === undefined || old === cwd) return (c) => c;
  return (c) => (c === old ? cwd : c.startsWith(`${old}/`) ? `${cwd}${c.slice(old.length)}` : cwd);
}

/**
 * The records of a session. Entries are written in order; an entry we cannot represent is left out
 * and its children are re-linked to its parent so the chain stays whole.
 */
/**
 * A new transcript's first record says threadbase wrote it (`threadbase.writtenBy`, a field Claude
 * Code leaves alone; parse.ts reads it from the first record only, so records appended to a
 * transcript Claude Code wrote never mark it): SessionInfo.writtenBy.
 */
export function markWritten(records: Record<string, unknown>[]): void {
  const first = records[0];
  if (!first) return;
  // An API-error record with a `threadbase` field reads as another agent's failed turn
  // (failedTurnRecord); Claude Code's own one says it is Claude Code's (parse.ts reads it so).
  const own = first.isApiErrorMessage === true && !isRecord(first.threadbase) ? { [CLAUDE_API_ERROR]: true } : {};
  const kept = isRecord(first.threadbase) ? first.threadbase : {};
  first.threadbase = { ...kept, ...own, writtenBy: WRITTEN_BY };
}

/**
 * The messages (entry ids) that copy a reply a compaction on their path kept: their response id is
 * that of a message before the compaction (another agent's layout: Copilot CLI's copy writes the kept
 * replies again after its compaction). Claude Code joins a record into the records of its
 * `message.id` from before a compact boundary (2.1.332, seen resuming such a copy), so the reply
 * would be sent twice.
 */
function keptCopies(entries: readonly Entry[]): Set<string> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  /** entry id → the response ids before a compaction on its path (shared along a path, made anew at each compaction) */
  const behind = new Map<string, ReadonlySet<string>>();
  const none: ReadonlySet<string> = new Set();
  const responsesAbove = (e: Entry): Set<string> => {
    const out = new Set<string>();
    const seen = new Set<string>();
    for (
      let a = e.parentId ? byId.get(e.parentId) : undefined;
      a && !seen.has(a.id);
      a = a.parentId ? byId.get(a.parentId) : undefined
    ) {
      seen.add(a.id);
      if (a.kind === 'message' && a.message.responseId) out.add(a.message.responseId);
    }
    return out;
  };
  const behindOf = (e: Entry): ReadonlySet<string> => {
    // up to the nearest entry known (or the root), then down again: no recursion on long paths
    const chain: Entry[] = [];
    const onChain = new Set<string>();
    let a: Entry | undefined = e;
    while (a && !behind.has(a.id) && !onChain.has(a.id)) {
      chain.push(a);
      onChain.add(a.id);
      a = a.parentId ? byId.get(a.parentId) : undefined;
    }
    let set = a ? (behind.get(a.id) ?? none) : none;
    for (const c of chain.reverse()) {
      if (c.kind === 'compaction') set = new Set([...set, ...responsesAbove(c)]);
      behind.set(c.id, set);
    }
    return set;
  };
  const out = new Set<string>();
  for (const e of entries)
    if (e.kind === 'message' && e.message.role === 'assistant' && e.message.responseId && behindOf(e).has(e.message.responseId))
      out.add(e.id);
  return out;
}

export function encodeSession(session: Session, ctx: EncodeContext): EncodeResult {
  const records: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  /** id → the uuid its children should point at (itself, or the nearest written ancestor) */
  const written = new Map<string, string | null>();
  const parentOf = (e: Entry): string | null => {
    if (e.parentId === null) return null;
    return written.has(e.parentId) ? (written.get(e.parentId) ?? null) : e.parentId;
  };
  const skip = (e: Entry, why?: string) => {
    written.set(e.id, parentOf(e));
    if (why) warnings.push(`${session.source}:${session.id} entry ${e.id}: ${why}`);
  };

  const toolIds = ctx.toolIds ?? new AnthropicToolIds();
  const movedCwd = cwdMover(session, ctx.cwd);
  // the responses a record written from the model has reply content in, as Claude Code counts it
  const replied = new Set<string>();
  const copies = keptCopies(session.entries);
  const responseUsage = new Map<string, Usage>();
  for (const e of session.entries) {
    if (e.kind === 'message' && e.message.responseId && e.message.usage) responseUsage.set(e.message.responseId, e.message.usage);
    if (e.kind !== 'message' || e.rawSource === 'claude' || e.message.role !== 'assistant') continue;
    const m = e.message;
    if (m.responseId && !failedTurn(m) && (content(m) as unknown[]).some(isReplyBlock)) replied.add(m.responseId);
  }
  for (const e of session.entries) {
    const parentId = parentOf(e);
    if (e.rawSource === 'claude' && isRecord(e.raw)) {
      if (e.kind === 'message') holdToolIds(toolIds, e.message);
      const raw = e.raw as Record<string, unknown>;
      const rec: Record<string, unknown> = { ...raw };
      if ('sessionId' in rec) rec.sessionId = ctx.sessionId;
      if (typeof rec.cwd === 'string') rec.cwd = movedCwd(rec.cwd);
      if (ctx.forkedFrom && typeof rec.uuid === 'string') rec.forkedFrom = ctx.forkedFrom;
      if (typeof raw.uuid === 'string') {
        if (e.kind === 'compaction') {
          // A boundary starts a new chain; its link to the summarised history is logicalParentUuid.
          rec.parentUuid = null;
          rec.logicalParentUuid = parentId;
        } else rec.parentUuid = parentId;
        written.set(e.id, e.id);
      }
      records.push(rec);
      continue;
    }
    switch (e.kind) {
      case 'message': {
        const rec = messageRecord(ctx, { ...e, parentId }, replied, responseUsage, copies.has(e.id), toolIds);
        if (!rec) {
          skip(
            e,
            e.message.role === 'assistant'
              ? 'assistant message with no content left out (Claude Code would send it as a "(no content)" reply)'
              : `${e.message.role} message has no place in a Claude Code transcript; left out`,
          );
          break;
        }
        records.push(rec);
        written.set(e.id, e.id);
        break;
      }
      case 'compaction': {
        const boundaryId = e.id;
        const summaryId = randomUUID();
        // Kept entries: Claude Code's preserved segment (head..tail re-linked after the summary on load).
        const preserved =
          e.firstKeptEntryId && parentId
            ? {
                preservedSegment: {
                  headUuid: written.get(e.firstKeptEntryId) ?? e.firstKeptEntryId,
                  anchorUuid: summaryId,
                  tailUuid: parentId,
                },
              }
            : {};
        records.push({
          ...base(ctx, { ...e, parentId: null }),
          type: 'system',
          subtype: 'compact_boundary',
          content: 'Conversation compacted',
          isMeta: false,
          level: 'info',
          logicalParentUuid: parentId,
          compactMetadata: { trigger: 'manual', preTokens: e.tokensBefore ?? 0, ...preserved },
        });
        records.push({
          ...base(ctx, { id: summaryId, parentId: boundaryId, timestamp: e.timestamp }),
          type: 'user',
          message: { role: 'user', content: e.summary },
          isVisibleInTranscriptOnly: true,
          isCompactSummary: true,
        });
        written.set(e.id, summaryId);
        break;
      }
      case 'branch_summary': {
        // a user turn of what the agent it came from sends for it (convert/session.ts), the entry kept
        // beside it in `threadbase.branchSummary` (parse.ts reads it back; Claude Code leaves it alone)
        const rec = base(ctx, { ...e, parentId });
        records.push({
          ...rec,
          type: 'user',
          message: { role: 'user', content: e.text ?? e.summary },
          threadbase: { branchSummary: branchSummaryField(e) },
        });
        written.set(e.id, e.id);
        break;
      }
      default:
        skip(e);
    }
  }
  // Another agent's title, as Claude Code records a title the user set, so the session keeps its name.
  if (session.title && session.source !== 'claude' && !records.some((r) => r.type === 'custom-title'))
    records.push({ type: 'custom-title', customTitle: session.title, sessionId: ctx.sessionId });
  return { records, warnings };
}

/** A Claude Code transcript (`~/.claude/projects/<cwd>/<id>.jsonl`): the session's records, entry by entry. */
export function encodeClaudeTranscript(session: Session, opts: JsonlEncodeOptions = {}): EncodedJsonl {
  const sessionId = opts.sessionId ?? randomUUID();
  const cwd = opts.cwd ?? session.project ?? '/';
  const { records, warnings } = encodeSession(session, { sessionId, cwd });
  return {
    sessionId,
    relativePath: `projects/${encodeProjectPath(cwd)}/${sessionId}.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings,
  };
}
