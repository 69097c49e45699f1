/**
 * A session's current branch as GitHub Copilot CLI events (events.jsonl), which `copilot --resume`
 * loads: Copilot CLI validates each line on load (an event `id` that is not a UUID, or a
 * session.start without `copilotVersion`, makes it refuse the file as corrupted), so only the fields
 * it knows are written. What is written is the context the model saw, each message as the events
 * Copilot CLI records for it; a compaction as Copilot CLI records one, where it was, the context up to
 * it before it and what was sent after it (the entries it kept, copied) after it.
 */
import { randomUUID } from 'node:crypto';
import { type DeclinedMark, declinedMarkOf } from '../../convert/declined.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { buildContext, mergeSplitResponses, pathToLeaf } from '../../model/tree.js';
import type { CompactionEntry, Message, Meta, Session, ToolResultContent, Usage } from '../../model/types.js';
import { toJsonl } from '../shared/atomic.js';
import type { EncodedJsonl } from '../shared/encoded.js';
import { UniqueToolIds } from '../shared/unique-tool-ids.js';
import { usageExtrasOf } from '../shared/usage-extras.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { IMAGE_NAME, sentAsImage, sentAttachmentKind } from './attachments.js';
import { COPILOT_DENIED_CODE, copilotDeclinedError, copilotDeclinedMark } from './denials.js';
import { COPILOT_USAGE_RECORDS, isObject, type JsonObject, THREADBASE_SYSTEM_MESSAGE } from './events.js';
import { failedCallData } from './failed-turns.js';
import { copilotApiEndpoint, copilotFinishReason, keptFinish } from './finish.js';
import {
  type BlockKind,
  type LaidOutPart,
  needsOrderedBlocks,
  partLayoutOf,
  THINKING_SEPARATOR,
  type UnsignedThinkingAt,
} from './part-layout.js';
import { sideChainRuns, type UnplacedChain } from './side-chains.js';

/** The Copilot CLI version whose event shapes these are (its session.start names one). */
export const COPILOT_VERSION = '1.0.102';

export interface CopilotEncodeOptions {
  sessionId?: string;
  cwd?: string;
}

/** The sub-agent type written for a sub-agent of another agent (Copilot CLI's built-in one). */
const DEFAULT_AGENT = 'general-purpose';

/**
 * A result's text, and its images as Copilot CLI keeps a tool's images (`result.binaryResultsForLlm`,
 * the image's bytes inline); a file, or an image by URL, is a text note.
 */
function resultOf(content: string | readonly ToolResultContent[]): { text: string; images: JsonObject[]; dropped: number } {
  if (typeof content === 'string') return { text: content, images: [], dropped: 0 };
  let dropped = 0;
  const images: JsonObject[] = [];
  const texts: string[] = [];
  for (const c of content) {
    if (c.type === 'text') texts.push(c.text);
    else if (c.type === 'image' && c.data) images.push({ type: 'image', data: c.data, mimeType: c.mediaType });
    else if (c.type === 'file' && c.text !== undefined) texts.push(c.text);
    else {
      dropped++;
      texts.push(`[${c.type} omitted]`);
    }
  }
  return { text: texts.join('\n'), images, dropped };
}

/**
 * The meta of a response's parts that read back as its reasoning and its calls (events.ts restorePartsMeta),
 * in their order, where any has some: another agent's reasoning item (its id and encrypted content: pi's and
 * codex's OpenAI reasoning) and a call's item id, which Copilot CLI has no place for and the agent they came
 * from needs to send them back paired. Reasoning read back as blocks (`signed`) is the signed and redacted
 * thinking; else the unsigned thinking (several parts read back apart by their partLayout).
 */
function keptPartsMeta(m: Message, signed: boolean): { reasoningMeta?: (Meta | null)[]; callMeta?: (Meta | null)[] } {
  const reasoning = m.parts.filter((p) =>
    signed
      ? (p.type === 'thinking' && p.signature) || p.type === 'redacted_thinking'
      : p.type === 'thinking' && !p.signature && p.thinking.trim(),
  );
  const reasoningMeta = reasoning.map((p) => p.meta ?? null);
  const callMeta = m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.meta ?? null] : []));
  return {
    ...(reasoningMeta.some(Boolean) ? { reasoningMeta } : {}),
    ...(callMeta.some(Boolean) ? { callMeta } : {}),
  };
}

/** A sub-agent's events as Copilot CLI records them inside its parent's events.jsonl. */
export interface SubAgentScope {
  /** the parent's call that ran it (its events' `data.parentToolCallId`) */
  toolCallId: string;
  /** the id Copilot CLI gives the run (its events' top-level `agentId`) */
  agentId: string;
  /** the session whose file it is in (its prompt's `source: 'agent-<id>'`) */
  sessionId: string;
}

/** The events Copilot CLI types that carry `data.parentToolCallId` in a sub-agent (its schema's). */
const CARRIES_PARENT_CALL = new Set(['assistant.message', 'tool.execution_start', 'tool.execution_complete']);

/** A compaction on the path, written where it was, as Copilot CLI records one. */
interface Compacted {
  compaction: CompactionEntry;
}
type Written = Message | Compacted;
/** The entry a written message is of: its id and time. */
interface WrittenEntry {
  id: string;
  timestamp: string;
}
const isCompacted = (w: Written): w is Compacted => 'compaction' in w;

/** The parts of a message `keep` keeps, as the same message when all are, none when none is. */
function partsOf(m: Message, keep: (p: Message['parts'][number]) => boolean, derived: Map<Message, Message>): Message[] {
  const parts = m.parts.filter(keep);
  if (parts.length === m.parts.length) return [m];
  if (parts.length === 0) return [];
  const part = { ...m, parts };
  derived.set(part, m);
  return [part];
}

/** A message of results with its parts in call order (`rank`). */
function inCallOrder(m: Message, rank: (p: Message['parts'][number]) => number, derived: Map<Message, Message>): Message {
  const parts = m.parts.map((p, n) => ({ p, n })).sort((a, b) => rank(a.p) - rank(b.p) || a.n - b.n);
  if (parts.every((x, n) => x.n === n)) return m;
  const sorted = { ...m, parts: parts.map((x) => x.p) };
  derived.set(sorted, derived.get(m) ?? m);
  return sorted;
}

/**
 * A response split over several records (Claude Code writes one per content block, and the results of
 * its parallel calls between them as each call ends) as one message, its results after it: Copilot CLI
 * records a response as one assistant.message with all its calls, each answered after it, and a second
 * assistant.message would leave the first's calls unanswered. A user's message between its records (typed
 * while its calls ran) goes after all its results, where Copilot CLI, resumed, sends one it recorded among
 * them (test/agents/copilot-steering.test.ts). Its results go in the order of its calls (split or not), the
 * order Copilot CLI sends them in whatever order they were recorded in. `joined` keeps each merged message
 * by its first record, so one a compaction kept, written again after it, is the same message; `derived`
 * the source of a message made of part of another (its results, the rest, or its results reordered).
 */
function joinSplitResponses(
  messages: readonly Message[],
  joined: Map<Message, Message>,
  derived: Map<Message, Message>,
): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const first = messages[i] as Message;
    const id = first.role === 'assistant' ? first.responseId : undefined;
    const records = [first];
    let end = i;
    // the later records of its response, past the results and user's messages between them
    for (let j = i + 1; id && j < messages.length; j++) {
      const m = messages[j] as Message;
      if (m.role === 'assistant' && m.responseId === id) {
        records.push(m);
        end = j;
      } else if (m.role !== 'user' && m.role !== 'tool') break;
    }
    // its calls' results after its last record too, past user's messages typed meanwhile
    const calls = new Map(
      records.flatMap((r) => r.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []))).map((c, n) => [c, n] as const),
    );
    for (let j = end + 1; calls.size && (messages[j]?.role === 'tool' || messages[j]?.role === 'user'); j++)
      if (messages[j]?.parts.some((p) => p.type === 'tool_result' && calls.has(p.callId))) end = j;
    if (records.length === 1 && end === i) {
      out.push(first);
      continue;
    }
    const between = messages.slice(i + 1, end + 1).filter((m) => !records.includes(m));
    let merged = first;
    if (records.length > 1) {
      merged = joined.get(first) ?? (mergeSplitResponses(records)[0] as Message);
      joined.set(first, merged);
    }
    // the results in the order of its calls, as Copilot CLI sends them whatever order they were recorded in
    const rank = (p: Message['parts'][number]) => (p.type === 'tool_result' ? (calls.get(p.callId) ?? calls.size) : calls.size);
    const results = between
      .flatMap((m) => partsOf(m, (p) => p.type === 'tool_result', derived))
      .map((m) => inCallOrder(m, rank, derived))
      .map((m, n) => ({ m, n, rank: Math.min(...m.parts.map(rank)) }))
      .sort((a, b) => a.rank - b.rank || a.n - b.n)
      .map((x) => x.m);
    const said = between.flatMap((m) => partsOf(m, (p) => p.type !== 'tool_result', derived));
    out.push(merged, ...results, ...said);
    i = end;
  }
  return out;
}

/**
 * The path's messages, each with its entry's time: before each compaction the context the model saw
 * up to it, then the compaction, then what was sent after it (the entries it kept, copied, and the
 * later ones), as Copilot CLI keeps a compacted session whole and sends from its last compaction on.
 */
function messagesOf(session: Session): { items: Written[]; entryOf: Map<Message, WrittenEntry>; start: string } {
  const path = pathToLeaf(session).filter((e) => !e.sidechain);
  // a message's entry (buildContext hands on the entry's own message object)
  const entryOf = new Map<Message, WrittenEntry>();
  for (const e of path) if (e.kind === 'message') entryOf.set(e.message, { id: e.id, timestamp: e.timestamp });
  // a split response's records joined, written at its first record's time
  const joined = new Map<Message, Message>();
  const derived = new Map<Message, Message>();
  const contextUpTo = (end: number): Message[] => {
    if (end === 0) return [];
    const ctx = buildContext({ entries: path.slice(0, end), leafId: path[end - 1]?.id ?? null }, { mergeSplitResponses: false });
    const messages = joinSplitResponses(ctx.messages, joined, derived);
    for (const [from, to] of [...joined, ...[...derived].map(([part, m]) => [m, part] as const)]) {
      const entry = entryOf.get(from);
      if (entry) entryOf.set(to, entry);
    }
    return messages;
  };
  const cuts = path.flatMap((e, i) => (e.kind === 'compaction' ? [i] : []));
  const items: Written[] = contextUpTo(cuts[0] ?? path.length);
  cuts.forEach((at, k) => {
    items.push({ compaction: path[at] as CompactionEntry });
    // the context from this compaction on, without the summary message buildContext puts first
    items.push(...contextUpTo(cuts[k + 1] ?? path.length).filter((m) => !m.meta?.compactionSummary));
  });
  const start = session.createdAt || path[0]?.timestamp || new Date().toISOString();
  return { items, entryOf, start };
}

/**
 * The model each reply that names none (a failed turn, another agent's or one that failed before any model was
 * reported) ran on as far as the session tells: the one named last before it, else the next one named, else
 * `fallback` (the session's). Copilot CLI's usage records always name one, and its usage and cost lists (and ours)
 * group by it: a made-up name would show there as a model of its own.
 */
function modelsOfUnnamed(items: readonly Written[], fallback: string | undefined): Map<Message, string> {
  const replies = items.filter((m): m is Message => !isCompacted(m) && m.role === 'assistant');
  const next: (string | undefined)[] = [];
  for (let i = replies.length - 1, known: string | undefined; i >= 0; i--) {
    next[i] = known;
    known = replies[i]?.model ?? known;
  }
  const out = new Map<Message, string>();
  let last: string | undefined;
  replies.forEach((m, i) => {
    if (m.model) last = m.model;
    else {
      const known = last ?? next[i] ?? fallback;
      if (known) out.set(m, known);
    }
  });
  return out;
}

/** What a usage record names when nothing in the session names a model (Copilot CLI's records need one). */
const NO_MODEL = 'unknown';

/**
 * The usage records of a response, just before its message (or a failed call's session.error): one of its usage
 * (inputTokens include the cache), or, for one Copilot CLI recorded in several (a response continued after
 * max_tokens, a failed call: events.ts COPILOT_USAGE_RECORDS), those records again when they still add up to its
 * usage, so a copy's records and `stats` are the original's; the last paired with the message by `apiCallId`.
 */
function usageRecordsOf(
  m: Message,
  model: string,
  u: Usage,
  apiCallId: string,
  finishReason: string | undefined,
  apiEndpoint: string | undefined,
): JsonObject[] {
  const own: JsonObject = {
    model,
    inputTokens: u.input + u.cacheRead + u.cacheWrite,
    outputTokens: u.output,
    cacheReadTokens: u.cacheRead,
    cacheWriteTokens: u.cacheWrite,
    ...(u.reasoning ? { reasoningTokens: u.reasoning } : {}),
    ...(m.provider ? { modelProvider: m.provider } : {}),
    ...(finishReason ? { finishReason } : {}),
    ...(apiEndpoint ? { apiEndpoint } : {}),
    apiCallId,
  };
  const kept = m.meta?.[COPILOT_USAGE_RECORDS];
  const records = Array.isArray(kept) ? kept.filter(isObject) : [];
  const last = records.at(-1);
  if (!last || records.length !== (kept as unknown[]).length) return [own];
  const sum = (field: string) => records.reduce((n, r) => n + (typeof r[field] === 'number' ? (r[field] as number) : 0), 0);
  const same = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'].every(
    (f) => sum(f) === (typeof own[f] === 'number' ? own[f] : 0),
  );
  // a message's stop reason is its last record's: kept records that no longer say it are not written
  if (!same || (finishReason !== undefined && last.finishReason !== finishReason)) return [own];
  return records.map((r, i) => ({ model: own.model, ...r, ...(i === records.length - 1 ? { apiCallId } : {}) }));
}

/** A compaction as Copilot CLI records its `/compact`: session.compaction_start, then _complete with the summary. */
function compactionEvents(c: CompactionEntry): [string, JsonObject][] {
  const u = c.usage;
  const used = u
    ? {
        inputTokens: u.input + u.cacheRead + u.cacheWrite,
        outputTokens: u.output,
        cacheReadTokens: u.cacheRead,
        cacheWriteTokens: u.cacheWrite,
        ...(c.model ? { model: c.model } : {}),
      }
    : undefined;
  return [
    ['session.compaction_start', c.model ? { model: c.model } : {}],
    [
      'session.compaction_complete',
      {
        success: true,
        summaryContent: c.summary,
        ...(c.tokensBefore !== undefined ? { preCompactionTokens: Math.round(c.tokensBefore) } : {}),
        ...(used ? { compactionTokensUsed: used } : c.model ? { model: c.model } : {}),
      },
    ],
  ];
}

/**
 * The events of `messages` (after `records`, each linked to the one before it): a user message as
 * user.message, a response as session.usage_record + assistant.message + tool.execution_start per
 * call, a result as tool.execution_complete, a system message as a system.message Copilot CLI keeps
 * but does not send. In a sub-agent (`scope`) each event carries its agentId and parent call.
 */
function pushMessages(
  records: JsonObject[],
  messages: readonly Written[],
  entryOf: ReadonlyMap<Message, WrittenEntry>,
  start: string,
  warnings: string[],
  scope?: SubAgentScope,
  runs?: { byCall: ReadonlyMap<string, Session>; sessionId: string },
  sessionModel?: string,
): void {
  let time = start;
  const unnamed = modelsOfUnnamed(messages, sessionModel);
  const modelOf = (given: Message, m: Message) => m.model ?? unnamed.get(given) ?? NO_MODEL;
  const push = (type: string, data: JsonObject) => {
    const last = records.at(-1);
    const inScope = scope && CARRIES_PARENT_CALL.has(type) ? { ...data, parentToolCallId: scope.toolCallId } : data;
    records.push({
      type,
      data: inScope,
      ...(scope ? { agentId: scope.agentId } : {}),
      id: randomUUID(),
      timestamp: time,
      parentId: last ? (last.id as string) : null,
    });
  };
  const toolIds = new UniqueToolIds();
  const open = new Map<string, string>();
  // the responses written: one a compaction kept, written again after it, is not spent again
  const spent = new Set<Message>();
  let notes = 0;
  // the media types of images written that Copilot CLI does not send as images
  const unsentImages = new Set<string>();
  // the messageId of the last user.message: a failed call's session.error names it
  let lastUserMessage: string | undefined;
  const answer = (written: string, content: string | readonly ToolResultContent[], isError: boolean, mark?: DeclinedMark) => {
    open.delete(written);
    const { text, images, dropped } = resultOf(content);
    notes += dropped;
    const result = { content: text, ...(images.length ? { binaryResultsForLlm: images } : {}) };
    // a refused or cancelled call as Copilot CLI records one: its words (another agent's not kept), its code
    const error = mark && copilotDeclinedMark(text) !== mark ? copilotDeclinedError(mark) : { message: text };
    if (mark === 'refused') error.code = COPILOT_DENIED_CODE;
    push('tool.execution_complete', {
      toolCallId: written,
      success: !isError,
      // a failed result's images beside its error, in the result Copilot CLI's schema allows there too
      // (it loads it and sends the error message alone: test/agents/copilot.test.ts)
      ...(isError ? { error, ...(images.length ? { result } : {}) } : { result }),
    });
  };
  const closeOpen = () => {
    for (const written of [...open.keys()]) {
      answer(written, 'No result was recorded for this call.', true);
      warnings.push(`tool call ${written} had no result: written as an error result`);
    }
  };
  for (const given of messages) {
    if (isCompacted(given)) {
      closeOpen();
      time = given.compaction.timestamp;
      for (const [type, data] of compactionEvents(given.compaction)) push(type, data);
      continue;
    }
    const entry = entryOf.get(given);
    time = entry?.timestamp ?? time;
    // a call the provider ran itself (codex's web search) owes no result: a text note in its turn
    const m = providerCallsAsNotes(given);
    if (m.role === 'system') {
      // Copilot CLI keeps it and sends its own system prompt instead (losses.ts says so)
      const content = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      push('system.message', { role: 'system', content, name: THREADBASE_SYSTEM_MESSAGE });
      continue;
    }
    // tool results first (in whatever message they came), each answering its call
    for (const p of m.parts) {
      if (p.type !== 'tool_result') continue;
      const written = toolIds.result(p.callId);
      if (!open.has(written)) {
        warnings.push(`tool result for ${p.callId} has no call before it: left out`);
        continue;
      }
      const mark = declinedMarkOf(p);
      answer(written, p.content, Boolean(p.isError) || mark !== undefined, mark);
    }
    if (m.role === 'tool') continue;
    if (m.role === 'user') {
      const texts: string[] = [];
      const attachments: JsonObject[] = [];
      for (const p of m.parts) {
        if (p.type === 'text') texts.push(p.text);
        // an image as Copilot CLI attaches one: resumed, it is sent as an image block
        else if (p.type === 'image' && p.data) {
          const name = p.meta?.[IMAGE_NAME];
          attachments.push({
            type: 'blob',
            mimeType: p.mediaType,
            data: p.data,
            ...(typeof name === 'string' ? { displayName: name } : {}),
          });
          // kept whole; Copilot CLI sends another type as a note, or nothing (attachments.ts sentImage)
          if (!sentAsImage(p.mediaType)) unsentImages.add(p.mediaType);
        }
        // a document or a text by its bytes too: kept whole, and sent as Copilot CLI sends its own (attachments.ts)
        else if (p.type === 'file' && p.data && sentAttachmentKind(p.mediaType) !== 'none')
          attachments.push({ type: 'blob', mimeType: p.mediaType, data: p.data, ...(p.name ? { displayName: p.name } : {}) });
        else if (p.type === 'file' && p.text !== undefined) texts.push(p.text);
        else if (p.type === 'image' || p.type === 'file') {
          notes++;
          texts.push(`[${p.type} omitted]`);
        }
      }
      if (texts.length === 0 && attachments.length === 0) continue;
      closeOpen();
      lastUserMessage = randomUUID();
      push('user.message', {
        content: texts.join('\n'),
        messageId: lastUserMessage,
        ...(attachments.length ? { attachments } : {}),
        // a sub-agent's prompt names the session it runs in, as Copilot CLI's do
        ...(scope ? { source: `agent-${scope.sessionId}` } : {}),
      });
      continue;
    }
    // assistant
    closeOpen();
    // a failed call with no reply so far, as Copilot CLI records its own (failed-turns.ts): it sends nothing of it
    const failure = failedCallData(m, lastUserMessage);
    if (failure) {
      // its usage as Copilot CLI records a failed call's tokens: usage records with no assistant.message before the
      // session.error (events.ts failedCallUsage); not again for a turn a compaction kept, written again after it
      const u = spent.has(given) ? undefined : m.usage;
      spent.add(given);
      if (u && u.input + u.output + u.cacheRead + u.cacheWrite + u.reasoning > 0) {
        const apiCallId = m.responseId ?? `threadbase-${randomUUID()}`;
        for (const usage of usageRecordsOf(m, modelOf(given, m), u, apiCallId, undefined, copilotApiEndpoint(m.api)))
          push('session.usage_record', { usage });
        // in a field Copilot CLI loads and ignores: the entry's id and time (no response id), its cost, the usage
        // terms a record has no field for
        const extras = usageExtrasOf(u, { reasoning: false });
        const kept: JsonObject = {
          ...(!m.responseId && entry ? { entryId: entry.id, timestamp: entry.timestamp } : {}),
          ...(m.cost !== undefined ? { cost: m.cost } : {}),
          ...(extras ? { usage: extras } : {}),
        };
        if (Object.keys(kept).length) failure.threadbase = kept;
      }
      push('session.error', failure);
      continue;
    }
    const blocks: JsonObject[] = [];
    const unsigned: string[] = [];
    const text: string[] = [];
    const requests: JsonObject[] = [];
    const originals: string[] = [];
    // every block in order (Copilot CLI's orderedBlocks) and each part's kind, for reasoningBlocks and partLayout
    const ordered: { block: JsonObject; kind: BlockKind }[] = [];
    const layout: LaidOutPart[] = [];
    // where each unsigned thinking part stands among the parts written, for a reply with thinking blocks too
    const unsignedAt: UnsignedThinkingAt[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking') {
        // signed: an Anthropic block Copilot CLI sends back; unsigned: its reasoningText, kept, not sent
        if (p.signature) {
          const block = { type: 'thinking', thinking: p.thinking, signature: p.signature };
          blocks.push(block);
          ordered.push({ block, kind: 'reasoning' });
        } else if (p.thinking.trim()) {
          unsignedAt.push({
            at: ordered.length + unsigned.length,
            length: p.thinking.length,
            ...(p.meta ? { meta: p.meta } : {}),
          });
          unsigned.push(p.thinking);
          layout.push(['thinking', p.thinking.length]);
        }
      } else if (p.type === 'redacted_thinking') {
        const block = { type: 'redacted_thinking', data: p.data };
        blocks.push(block);
        ordered.push({ block, kind: 'reasoning' });
      } else if (p.type === 'text' || p.type === 'image' || p.type === 'file') {
        // Copilot CLI's assistant messages hold text only (losses.ts says so)
        const t = p.type === 'text' ? p.text : `[${p.type} omitted]`;
        text.push(t);
        ordered.push({ block: { type: 'text', text: t }, kind: 'text' });
        layout.push(['text', t.length]);
      } else if (p.type === 'tool_call') {
        const written = toolIds.call(p.id);
        requests.push({ toolCallId: written, name: p.name, arguments: p.input, type: 'function' });
        originals.push(p.id);
        ordered.push({ block: { type: 'tool_use', id: written }, kind: 'call' });
        layout.push(['call']);
      }
    }
    // the unsigned thinking as reasoningText, which Copilot CLI keeps and does not send (beside thinking blocks
    // it sends the blocks alone: its place among them in threadbase.unsignedThinking)
    const reasoningText = unsigned.join(THINKING_SEPARATOR) || undefined;
    const unsignedThinking = blocks.length && unsignedAt.length ? unsignedAt : undefined;
    // the blocks as Copilot CLI records them (part-layout.ts): the thinking alone, or every block in order
    const reasoningBlocks = !blocks.length
      ? undefined
      : needsOrderedBlocks(ordered.map((o) => o.kind))
        ? { provider: 'anthropic-messages', orderedBlocks: ordered.map((o) => o.block) }
        : { provider: 'anthropic-messages', blocks };
    // without blocks, the parts the fields cannot tell apart (several texts or thinking parts, another order)
    const partLayout = blocks.length ? undefined : partLayoutOf(layout);
    if (blocks.length === 0 && !reasoningText && text.length === 0 && requests.length === 0) continue;
    const apiCallId = m.responseId ?? `threadbase-${randomUUID()}`;
    // a response a compaction kept, written again after it: its usage and cost are not spent again
    const again = spent.has(given);
    const u = again ? undefined : m.usage;
    spent.add(given);
    // its stop reason and API in Copilot CLI's words (finish.ts), where a usage record carries them
    const finishReason = u ? copilotFinishReason(m.stopReason) : undefined;
    const apiEndpoint = u ? copilotApiEndpoint(m.api) : undefined;
    // its usage as Copilot CLI records a response's, just before the message (inputTokens include the cache)
    if (u)
      for (const usage of usageRecordsOf(m, modelOf(given, m), u, apiCallId, finishReason, apiEndpoint))
        push('session.usage_record', { usage });
    // in a field Copilot CLI ignores (it loads and resumes the file), read back by events.ts: a reply without a
    // response id (as Zed's): its entry's id and time, so that `stats` knows the copy by them; a stop reason or
    // API the usage record does not tell (none written, or one that reads back as another); its cost in USD
    // (Copilot CLI's usage `cost` counts premium requests)
    const extras = usageExtrasOf(u, { reasoning: false });
    const kept: JsonObject = {
      ...(!m.responseId && entry ? { entryId: entry.id, timestamp: entry.timestamp } : {}),
      ...keptFinish(m.stopReason, m.api, u !== undefined),
      // its provider, which only a usage record says (pi resumes with the last response's provider and model)
      ...(m.provider && !u ? { provider: m.provider } : {}),
      ...(m.cost !== undefined && !again ? { cost: m.cost } : {}),
      // the usage terms its usage record has no field for (1-hour cache writes, advisor requests, …: shared/usage-extras.ts)
      ...(extras ? { usage: extras } : {}),
      // a failed turn's error, of a turn with a reply so far (one without is a session.error: failed-turns.ts)
      ...(m.error !== undefined ? { error: m.error } : {}),
      ...keptPartsMeta(m, blocks.length > 0),
      ...(partLayout ? { partLayout } : {}),
      ...(unsignedThinking ? { unsignedThinking } : {}),
    };
    push('assistant.message', {
      messageId: randomUUID(),
      apiCallId,
      content: text.join(''),
      toolRequests: requests,
      ...(m.model ? { model: m.model } : {}),
      ...(reasoningText ? { reasoningText } : {}),
      ...(reasoningBlocks ? { reasoningBlocks } : {}),
      ...(Object.keys(kept).length ? { threadbase: kept } : {}),
    });
    requests.forEach((r, i) => {
      const written = r.toolCallId as string;
      open.set(written, r.name as string);
      push('tool.execution_start', { toolCallId: written, toolName: r.name, arguments: r.arguments });
      // the sub-agent the call ran, right after its start, as Copilot CLI records a run
      const run = runs?.byCall.get(originals[i] as string);
      if (!run) return;
      const scope = { toolCallId: written, agentId: randomUUID(), sessionId: runs?.sessionId as string };
      // its own sub-agents' runs inside it
      const sub = encodeSubAgentEvents(run, scope, records.at(-1) as JsonObject, runs, sessionModel);
      records.push(...sub.records);
      warnings.push(...sub.warnings);
    });
  }
  closeOpen();
  if (notes) warnings.push(`${notes} image(s) by URL or file(s) in user messages or tool results written as a text note`);
  if (unsentImages.size)
    warnings.push(
      `image(s) of ${[...unsentImages].join(', ')} kept as attachments Copilot CLI does not send as images (it reads PNG, JPEG, GIF and WebP)`,
    );
}

/** What a side chain left out is: its first entry, its size, its prompt and the call it names. */
export function unplacedWarning(chain: UnplacedChain): string {
  const what = [
    `${chain.messages} message(s)`,
    ...(chain.prompt ? [`prompt "${chain.prompt}"`] : []),
    ...(chain.namedCall ? [`run by call ${chain.namedCall}`] : []),
  ].join(', ');
  const why = chain.namedCall
    ? 'that call is neither on the written path nor in a sub-agent written'
    : 'no call on the written path or in a sub-agent written has its prompt';
  return `sub-agent side chain from entry ${chain.rootId} (${what}) left out: ${why}`;
}

export function encodeCopilotEvents(session: Session, opts: CopilotEncodeOptions = {}): EncodedJsonl {
  const id = opts.sessionId ?? randomUUID();
  const cwd = opts.cwd ?? session.project;
  const warnings: string[] = [];
  const { items, entryOf, start } = messagesOf(session);
  const messages = items.filter((m): m is Message => !isCompacted(m));
  const model = messages.findLast((m) => m.role === 'assistant' && m.model)?.model;
  const records: JsonObject[] = [
    {
      type: 'session.start',
      data: {
        sessionId: id,
        version: 1,
        producer: WRITTEN_BY,
        copilotVersion: COPILOT_VERSION,
        startTime: start,
        ...(model ? { selectedModel: model } : {}),
        context: cwd ? { cwd } : {},
        alreadyInUse: false,
        remoteSteerable: false,
      },
      id: randomUUID(),
      timestamp: start,
      parentId: null,
    },
  ];
  // the sub-agents' side chains the session holds (capabilities.sideChains), each after its call
  const runs = sideChainRuns(
    session,
    pathToLeaf(session).filter((e) => !e.sidechain),
  );
  pushMessages(
    records,
    items,
    entryOf,
    start,
    warnings,
    undefined,
    { byCall: runs.byCall, sessionId: id },
    model ?? session.models?.at(-1),
  );
  for (const chain of runs.unplaced) warnings.push(unplacedWarning(chain));
  return {
    sessionId: id,
    relativePath: `session-state/${id}/events.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings,
  };
}

/**
 * A sub-agent session's run as Copilot CLI records one in its parent's events.jsonl, to follow the
 * spawning call's tool.execution_start: subagent.started, the sub-agent's prompt (a user.message with
 * `source: 'agent-<session id>'`), its turns (their `parentToolCallId` the spawning call), then
 * subagent.completed; every event with the run's `agentId`. Linked from `after` (the start event).
 */
export function encodeSubAgentEvents(
  child: Session,
  scope: SubAgentScope,
  after: JsonObject,
  runs?: { byCall: ReadonlyMap<string, Session>; sessionId: string },
  parentModel?: string,
): { records: JsonObject[]; warnings: string[] } {
  const warnings: string[] = [];
  const { items, entryOf, start } = messagesOf(child);
  const model = items.filter((m): m is Message => !isCompacted(m)).findLast((m) => m.role === 'assistant' && m.model)?.model;
  const own = isObject(child.meta) && typeof child.meta.agentType === 'string' ? child.meta.agentType : undefined;
  const agentName = own ?? DEFAULT_AGENT;
  const described = { toolCallId: scope.toolCallId, agentName, agentDisplayName: agentName };
  const at = typeof after.timestamp === 'string' ? after.timestamp : start;
  const records: JsonObject[] = [after];
  const event = (type: string, data: JsonObject) => {
    const last = records.at(-1) as JsonObject;
    return { type, data, agentId: scope.agentId, id: randomUUID(), timestamp: last.timestamp ?? at, parentId: last.id };
  };
  records.push(
    event('subagent.started', {
      ...described,
      agentDescription: child.title ?? agentName,
      ...(model ? { model } : {}),
    }),
  );
  // a reply naming no model ran on the sub-agent's own, else on its parent's
  pushMessages(records, items, entryOf, at, warnings, scope, runs, model ?? child.models?.at(-1) ?? parentModel);
  records.push(event('subagent.completed', { ...described, ...(model ? { model } : {}) }));
  return { records: records.slice(1), warnings };
}

/** The workspace.yaml Copilot CLI keeps beside the events (its flat scalars, the name single-quoted). */
export function encodeWorkspace(
  id: string,
  cwd: string | undefined,
  name: string | undefined,
  created: string,
  updated: string,
): string {
  const quote = (s: string) => `'${s.replace(/'/g, "''").replace(/\s*\n\s*/g, ' ')}'`;
  return [
    `id: ${id}`,
    ...(cwd ? [`cwd: ${quote(cwd)}`] : []),
    ...(name ? [`name: ${quote(name)}`] : []),
    'user_named: false',
    'summary_count: 0',
    'fork_count: 0',
    `created_at: ${created}`,
    `updated_at: ${updated}`,
    '',
  ].join('\n');
}
