/**
 * GitHub Copilot CLI sessions, read into Sessions. Copilot CLI (@github/copilot 1.0.102) keeps each
 * session in `$COPILOT_HOME/session-state/<id>/` (default `~/.copilot`): `events.jsonl`, one event a
 * line (`{type, data, id, timestamp, parentId}`, the shapes of its schemas/session-events.schema.json),
 * and `workspace.yaml` (cwd, name). See FORMAT.md.
 *
 * The events are appended and each links to the one before it, so entries are chained in file order;
 * a sub-agent's events (`data.parentToolCallId`) form a side chain per spawning call. A
 * `session.snapshot_rewind` leaves the events it removed as an abandoned branch.
 */
import { basename, dirname } from 'node:path';
import { markDeclined } from '../../convert/declined.js';
import { SPAWNED_BY } from '../../model/side-chains.js';
import { countMessages, titleLine } from '../../model/tree.js';
import type {
  Entry,
  ImagePart,
  Message,
  ParseWarning,
  Part,
  Session,
  ToolCallPart,
  ToolResultPart,
  Usage,
} from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { readJsonl } from '../shared/jsonl.js';
import { readUsageExtras } from '../shared/usage-extras.js';
import { WRITTEN_BY, writtenByOf } from '../shared/written-by.js';
import { ATTACHMENT_PLACE, IMAGE_NAME } from './attachments.js';
import { COPILOT_INTERRUPTED, copilotDeclinedMark } from './denials.js';
import { failedCallMessage, isFailedCallData } from './failed-turns.js';
import { apiOf, stopReasonOf } from './finish.js';
import { laidOutParts, withUnsignedThinking } from './part-layout.js';
import { ResultsOrder, type ResultsSpan, spanRoleOf } from './results-order.js';

export const SOURCE = 'copilot';

/**
 * The `name` of the system.message events threadbase writes for a session's system messages (read
 * back as those); Copilot CLI's own (its system prompt, each turn) are metadata.
 */
export const THREADBASE_SYSTEM_MESSAGE = 'threadbase';

/**
 * Where a message read from several usage records (a response continued after max_tokens, a failed call) keeps
 * each record (their fields of the schema, usageRecordOf), so a copy writes them again as they were (encode.ts):
 * the message's usage is their sum.
 */
export const COPILOT_USAGE_RECORDS = 'copilotUsageRecords';

/** The fields of a usage record a message keeps in COPILOT_USAGE_RECORDS. */
const KEPT_RECORD_FIELDS = [
  'model',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'modelProvider',
  'initiator',
  'apiEndpoint',
  'apiCallId',
  'finishReason',
] as const;

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** What a read carries across an offset, so the lines appended later are read as the whole file would be. */
export interface CopilotReadState {
  id: string;
  /** line number of the next line */
  line: number;
  createdAt: string;
  updatedAt: string;
  /** session.start's producer: `threadbase` for a session threadbase wrote (encode.ts) */
  producer?: string;
  /** an event had a timestamp: updatedAt is the latest one, no longer the file's time it started as */
  timed?: boolean;
  project?: string;
  /** `session.title_changed`, else the first user message's first line */
  title?: string;
  /** the title is a `session.title_changed`'s, not the first line */
  titleChanged?: boolean;
  /** the last entry of the main chain, and of each sub-agent's side chain (by spawning call) */
  lastMain: string | null;
  lastSide: Record<string, string>;
  /** usage records not yet matched to their assistant.message, by apiCallId */
  pendingUsage: Record<string, JsonObject>;
  /**
   * the apiCallIds of usage records of responses cut short (`finishReason: "length"`) not yet followed by their
   * chain's assistant.message, by chain (the records' agentId, '' for the main one): continuedUsage
   */
  cutShort?: Record<string, string[]>;
  /** the apiCallIds of each chain's usage records since its last assistant.message (a failed call's: failedCallUsage) */
  sinceReply?: Record<string, string[]>;
  /** the usage of the session.error read now (failedCallUsage), for messageOf; gone after that event */
  failedCallUsage?: JsonObject;
  /** tool names by call id (tool.execution_complete does not repeat it) */
  toolNames: Record<string, string>;
  /** the calls whose sub-agents run now (subagent.started, not yet completed), innermost last */
  openSubAgents?: string[];
  /** each sub-agent run's spawning call, by the run's `agentId` (subagent.started) */
  agentCalls?: Record<string, string>;
  /**
   * the main chain's calls with no tool.execution_complete yet, in call order (an `abort` or the next
   * user.message answers them); `beforeResume`: made before a session.resume, so a completion after it is not theirs
   */
  unanswered?: { id: string; name: string; beforeResume?: boolean }[];
  /**
   * the main chain's calls answered in the interrupted words (interruptedResults), by call id: the entry that
   * answers each (a result recorded for it later takes its place: lateResult); `beforeResume`: answered before a
   * session.resume, so a completion after it is not theirs
   */
  interrupted?: Record<string, { entry: string; beforeResume?: boolean }>;
  /** each sub-agent run's own calls with no tool.execution_complete yet, by the run's spawning call */
  runCalls?: Record<string, { id: string; name: string }[]>;
  /** the main chain's last response with calls, while its results may still come (results-order.ts) */
  resultsSpan?: ResultsSpan;
}

export function initialState(id: string, fallbackTime: string): CopilotReadState {
  return {
    id,
    line: 1,
    createdAt: fallbackTime,
    updatedAt: fallbackTime,
    lastMain: null,
    lastSide: {},
    pendingUsage: {},
    toolNames: {},
  };
}

/**
 * Copilot CLI's usage record in the model's terms: its `inputTokens` include the cache reads and
 * writes (an Anthropic response of 183 input, 1000 cache-read and 200 cache-write tokens is recorded
 * as inputTokens 1383), so input is what is left.
 */
export function usageOf(u: JsonObject): Usage {
  const cacheRead = num(u.cacheReadTokens);
  const cacheWrite = num(u.cacheWriteTokens);
  return {
    input: Math.max(0, num(u.inputTokens) - cacheRead - cacheWrite),
    output: num(u.outputTokens),
    cacheRead,
    cacheWrite,
    reasoning: num(u.reasoningTokens),
  };
}

/** A user attachment with its bytes (`{type: 'blob', data, mimeType}`) as an image or file part. */
function attachmentPart(a: unknown, place: number): Part | undefined {
  if (!isObject(a) || typeof a.data !== 'string' || typeof a.mimeType !== 'string') return undefined;
  const name = str(a.displayName);
  // an image's name is sent before it (attachments.ts sentImage)
  if (a.mimeType.startsWith('image/'))
    return { type: 'image', mediaType: a.mimeType, data: a.data, ...(name ? { meta: { [IMAGE_NAME]: name } } : {}) };
  // a nameless one's place, which names it when sent (attachments.ts)
  return { type: 'file', mediaType: a.mimeType, data: a.data, ...(name ? { name } : { meta: { [ATTACHMENT_PLACE]: place } }) };
}

function toolInput(args: unknown): Record<string, unknown> {
  if (isObject(args)) return args;
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      if (isObject(parsed)) return parsed;
    } catch {
      // not JSON: kept as given
    }
    return { input: args };
  }
  return {};
}

/** The thinking of an assistant.message: its provider's blocks (Anthropic, with signatures), else its reasoning text. */
function reasoningParts(d: JsonObject): Part[] {
  const blocks = isObject(d.reasoningBlocks) && Array.isArray(d.reasoningBlocks.blocks) ? d.reasoningBlocks.blocks : [];
  const parts: Part[] = [];
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (b.type === 'thinking' && typeof b.thinking === 'string')
      parts.push({ type: 'thinking', thinking: b.thinking, ...(str(b.signature) ? { signature: b.signature as string } : {}) });
    else if (b.type === 'redacted_thinking' && typeof b.data === 'string')
      parts.push({ type: 'redacted_thinking', data: b.data });
  }
  if (parts.length === 0 && typeof d.reasoningText === 'string' && d.reasoningText)
    parts.push({
      type: 'thinking',
      thinking: d.reasoningText,
      ...(str(d.reasoningOpaque) ? { signature: d.reasoningOpaque as string } : {}),
    });
  return parts;
}

/** The meta threadbase kept of a response's reasoning and calls (encode.ts keptPartsMeta), back on them where they line up. */
function restorePartsMeta(parts: Part[], kept: JsonObject | undefined): void {
  const put = (of: Part[], metas: unknown) => {
    if (!Array.isArray(metas) || metas.length !== of.length) return;
    of.forEach((p, i) => {
      const meta = metas[i];
      if (isObject(meta)) p.meta = { ...p.meta, ...meta };
    });
  };
  put(
    parts.filter((p) => p.type === 'thinking' || p.type === 'redacted_thinking'),
    kept?.reasoningMeta,
  );
  put(
    parts.filter((p) => p.type === 'tool_call'),
    kept?.callMeta,
  );
}

/**
 * `reasoningBlocks.orderedBlocks` (part-layout.ts): every block of the reply in order, a call as its id;
 * each call from `toolRequests`, any not named there after them. Undefined without such blocks.
 */
function orderedParts(d: JsonObject, calls: readonly ToolCallPart[]): Part[] | undefined {
  const blocks =
    isObject(d.reasoningBlocks) && Array.isArray(d.reasoningBlocks.orderedBlocks) ? d.reasoningBlocks.orderedBlocks : undefined;
  if (!blocks) return undefined;
  const byId = new Map(calls.map((c) => [c.id, c]));
  const parts: Part[] = [];
  for (const b of blocks) {
    if (!isObject(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string') parts.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use' && typeof b.id === 'string' && byId.has(b.id)) {
      parts.push(byId.get(b.id) as ToolCallPart);
      byId.delete(b.id);
    } else if (b.type === 'thinking' && typeof b.thinking === 'string')
      parts.push({ type: 'thinking', thinking: b.thinking, ...(str(b.signature) ? { signature: b.signature as string } : {}) });
    else if (b.type === 'redacted_thinking' && typeof b.data === 'string')
      parts.push({ type: 'redacted_thinking', data: b.data });
  }
  return [...parts, ...byId.values()];
}

function assistantMessage(d: JsonObject, usage: JsonObject | undefined): Message {
  const calls: ToolCallPart[] = [];
  for (const r of Array.isArray(d.toolRequests) ? d.toolRequests : []) {
    if (!isObject(r) || typeof r.toolCallId !== 'string') continue;
    calls.push({ type: 'tool_call', id: r.toolCallId, name: str(r.name) ?? 'unknown', input: toolInput(r.arguments) });
  }
  // in the model's words, or as threadbase kept them beside what it wrote (finish.ts)
  const kept = isObject(d.threadbase) ? d.threadbase : undefined;
  const content = typeof d.content === 'string' ? d.content : '';
  const parts: Part[] = orderedParts(d, calls) ??
    laidOutParts(kept?.partLayout, content, str(d.reasoningText) ?? '', calls) ?? [
      ...reasoningParts(d),
      ...(content ? [{ type: 'text' as const, text: content }] : []),
      ...calls,
    ];
  const model = str(d.model) ?? str(usage?.model);
  const provider = str(usage?.modelProvider) ?? str(usage?.providerType) ?? str(kept?.provider);
  const stop = stopReasonOf(str(usage?.finishReason), str(kept?.stopReason));
  const api = apiOf(str(usage?.apiEndpoint), str(kept?.api));
  // USD as threadbase kept it (the usage record's `cost` is Copilot CLI's premium requests, not read)
  const cost = typeof kept?.cost === 'number' && Number.isFinite(kept.cost) ? kept.cost : undefined;
  restorePartsMeta(parts, kept);
  // unsigned thinking threadbase kept beside thinking blocks, back in its place (part-layout.ts)
  const all = kept?.unsignedThinking ? withUnsignedThinking(parts, kept.unsignedThinking, str(d.reasoningText) ?? '') : parts;
  const error = str(kept?.error);
  const records = usage?.[COPILOT_USAGE_RECORDS];
  return {
    role: 'assistant',
    parts: all,
    ...(Array.isArray(records) ? { meta: { [COPILOT_USAGE_RECORDS]: records } } : {}),
    ...(model ? { model } : {}),
    ...(provider ? { provider } : {}),
    ...(api ? { api } : {}),
    ...(usage ? { usage: { ...usageOf(usage), ...readUsageExtras(kept?.usage, { reasoning: false }) } } : {}),
    ...(cost !== undefined ? { cost } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(str(d.apiCallId) ? { responseId: d.apiCallId as string } : {}),
    ...(stop ? { stopReason: stop } : {}),
  };
}

/**
 * The images of a result (`result.binaryResultsForLlm`): their bytes inline, or (as Copilot CLI's
 * `view` keeps an image) in the session.binary_asset event its `assetId` names.
 */
function resultImages(result: JsonObject, assets: ReadonlyMap<string, string>): ImagePart[] {
  const out: ImagePart[] = [];
  for (const b of Array.isArray(result.binaryResultsForLlm) ? result.binaryResultsForLlm : []) {
    if (!isObject(b) || b.type !== 'image' || typeof b.mimeType !== 'string') continue;
    const data = str(b.data) ?? assets.get(str(b.assetId) ?? '');
    if (data) out.push({ type: 'image', mediaType: b.mimeType, data });
  }
  return out;
}

function toolResultMessage(d: JsonObject, name: string | undefined, assets: ReadonlyMap<string, string>): Message {
  const result = isObject(d.result) ? d.result : {};
  const error = isObject(d.error) ? str(d.error.message) : str(d.error);
  const text = str(result.content) ?? error ?? '';
  const images = resultImages(result, assets);
  const content: ToolResultPart['content'] = images.length
    ? [...(text ? [{ type: 'text' as const, text }] : []), ...images]
    : text;
  const failed = d.success === false;
  const part: ToolResultPart = {
    type: 'tool_result',
    callId: str(d.toolCallId) ?? '',
    ...(name ? { name } : {}),
    content,
    ...(failed ? { isError: true } : {}),
  };
  // a call refused or interrupted, by Copilot CLI's error code and words for it (denials.ts)
  const mark = failed ? copilotDeclinedMark(text, isObject(d.error) ? str(d.error.code) : undefined) : undefined;
  return { role: 'tool', parts: [mark ? markDeclined(part, mark) : part] };
}

/**
 * The results Copilot CLI makes up, on resume, for the calls an `abort` (the user's Esc Esc while a call
 * ran, or at its permission prompt), the user's next message or the next response left without a tool.execution_complete: each
 * in its interrupted words, no is_error, in call order (seen with the real 1.0.102: every call still
 * unanswered, one finished before it keeps its result; test/agents/copilot-interrupted.test.ts). Cancelled,
 * but not made an error (markDeclined's): Copilot CLI sends none. Undefined when no call is open.
 */
function interruptedResults(state: CopilotReadState): Message | undefined {
  const open = state.unanswered ?? [];
  state.unanswered = [];
  return cancelledAnswers(open);
}

/** The calls answered in Copilot CLI's interrupted words, cancelled, no error; undefined when there are none. */
function cancelledAnswers(open: readonly { id: string; name: string }[]): Message | undefined {
  if (open.length === 0) return undefined;
  return {
    role: 'tool',
    parts: open.map(
      (c): ToolResultPart => ({
        type: 'tool_result',
        callId: c.id,
        name: c.name,
        content: COPILOT_INTERRUPTED,
        meta: { cancelled: true },
      }),
    ),
  };
}

/** What one event is in the model; undefined: an event of Copilot CLI's own bookkeeping (kept as metadata). */
function messageOf(
  type: string,
  d: JsonObject,
  state: CopilotReadState,
  assets: ReadonlyMap<string, string>,
): Message | undefined {
  switch (type) {
    case 'user.message': {
      const parts: Part[] = [];
      if (typeof d.content === 'string') parts.push({ type: 'text', text: d.content });
      (Array.isArray(d.attachments) ? d.attachments : []).forEach((a, n) => {
        const p = attachmentPart(a, n + 1);
        if (p) parts.push(p);
      });
      const transformed = str(d.transformedContent);
      // what the model was sent: the typed text with Copilot CLI's <current_datetime> (and other) prefixes
      return {
        role: 'user',
        parts,
        ...(transformed && transformed !== d.content ? { meta: { copilotTransformedContent: transformed } } : {}),
      };
    }
    case 'assistant.message': {
      const callId = str(d.apiCallId);
      const usage = callId ? state.pendingUsage[callId] : undefined;
      if (callId) delete state.pendingUsage[callId];
      return assistantMessage(d, usage);
    }
    case 'session.error': {
      // a failed model call (failed-turns.ts), not a session-wide error; with the usage recorded for it
      const failed = failedCallMessage(d);
      return failed && state.failedCallUsage ? withCallUsage(failed, state.failedCallUsage, d) : failed;
    }
    case 'tool.execution_complete':
      return toolResultMessage(d, state.toolNames[str(d.toolCallId) ?? ''], assets);
    case 'system.message':
      // a system message of a session threadbase wrote (Copilot CLI keeps it, and sends its own prompt)
      return d.name === THREADBASE_SYSTEM_MESSAGE && typeof d.content === 'string'
        ? { role: 'system', parts: [{ type: 'text', text: d.content }] }
        : undefined;
    case 'system.notification':
      // a note Copilot CLI adds to the conversation itself (e.g. a background task finished)
      return typeof d.content === 'string'
        ? { role: 'user', parts: [{ type: 'text', text: d.content }], meta: { copilotInjected: 'notification' } }
        : undefined;
    default:
      return undefined;
  }
}

/** The entry of one event (its parentId set by the caller). */
function entryOf(
  type: string,
  d: JsonObject,
  id: string,
  timestamp: string,
  raw: unknown,
  state: CopilotReadState,
  assets: ReadonlyMap<string, string>,
): Entry {
  const base = { id, parentId: null, timestamp, raw, rawSource: SOURCE } as const;
  if (type === 'session.compaction_complete' && d.success !== false && typeof d.summaryContent === 'string') {
    const used = isObject(d.compactionTokensUsed) ? d.compactionTokensUsed : undefined;
    return {
      ...base,
      kind: 'compaction',
      summary: d.summaryContent,
      ...(typeof d.preCompactionTokens === 'number' ? { tokensBefore: d.preCompactionTokens } : {}),
      ...(used ? { usage: usageOf(used) } : {}),
      // the model that wrote the summary: in its usage (1.0.102 writes no `model` when the usage names one)
      ...((str(used?.model) ?? str(d.model)) ? { model: (str(used?.model) ?? str(d.model)) as string } : {}),
    };
  }
  if (type === 'session.model_change' && typeof d.newModel === 'string') {
    const effort = str(d.reasoningEffort);
    return {
      ...base,
      kind: 'model_change',
      model: d.newModel,
      ...(str(d.providerId) ? { provider: d.providerId as string } : {}),
      ...(effort ? { thinkingLevel: effort } : {}),
    };
  }
  const message = messageOf(type, d, state, assets);
  if (message) return { ...base, kind: 'message', message };
  return { ...base, kind: 'metadata', type, data: d };
}

/**
 * Keeps the main chain's calls not yet answered (an `abort` or the next user.message answers them): an
 * assistant.message adds its calls, a tool.execution_complete answers its own (not a stale one), a
 * session.resume makes those open stale.
 */
function trackUnanswered(state: CopilotReadState, type: string, d: JsonObject): void {
  if (type === 'session.resume') {
    if (state.unanswered?.length) state.unanswered = state.unanswered.map((c) => ({ ...c, beforeResume: true }));
    for (const c of Object.values(state.interrupted ?? {})) c.beforeResume = true;
  } else if (type === 'assistant.message') {
    const calls = (Array.isArray(d.toolRequests) ? d.toolRequests : []).flatMap((r) =>
      isObject(r) && typeof r.toolCallId === 'string' ? [{ id: r.toolCallId, name: str(r.name) ?? 'unknown' }] : [],
    );
    if (calls.length) state.unanswered = [...(state.unanswered ?? []), ...calls];
  } else if (type === 'tool.execution_complete' && state.unanswered?.length && !staleCompletion(state, type, d))
    state.unanswered = state.unanswered.filter((c) => c.id !== d.toolCallId);
}

/** Keeps the calls entry `entryId` answers in the interrupted words (a result recorded for one later takes its place). */
function noteInterrupted(state: CopilotReadState, entryId: string, answers: Message | undefined): void {
  if (!answers) return;
  state.interrupted ??= {};
  for (const p of answers.parts) if (p.type === 'tool_result') state.interrupted[p.callId] = { entry: entryId };
}

/**
 * A main-chain tool.execution_complete for a call already answered in the interrupted words (a user's message
 * or the next response found it open, whatever the message's `delivery`, or none; or an abort): Copilot CLI
 * 1.0.102, resumed, sends this result in the call's place, not those words (a user's message among the results
 * after them all; test/agents/copilot-plain-user.test.ts), so it replaces them; one recorded after a
 * session.resume is none (staleCompletion). Undefined for any other event.
 */
function lateResult(
  state: CopilotReadState,
  type: string,
  d: JsonObject,
): { callId: string; entry: string; beforeResume?: boolean } | undefined {
  const callId = type === 'tool.execution_complete' ? str(d.toolCallId) : undefined;
  const answered = callId ? state.interrupted?.[callId] : undefined;
  if (!callId || !answered) return undefined;
  delete state.interrupted?.[callId];
  return { callId, ...answered };
}

/** A user.message typed while the agent was busy (`delivery`: `steering` into the running turn, or `queued` for after it). */
const typedWhileBusy = (d: JsonObject): boolean => d.delivery === 'steering' || d.delivery === 'queued';

/** Keeps a sub-agent run's own calls not yet answered (by its spawning call): its assistant.message adds them, a result answers one. */
function trackRunCalls(state: CopilotReadState, run: string, type: string, d: JsonObject): void {
  state.runCalls ??= {};
  if (type === 'assistant.message') {
    const calls = (Array.isArray(d.toolRequests) ? d.toolRequests : []).flatMap((r) =>
      isObject(r) && typeof r.toolCallId === 'string' ? [{ id: r.toolCallId, name: str(r.name) ?? 'unknown' }] : [],
    );
    if (calls.length) state.runCalls[run] = [...(state.runCalls[run] ?? []), ...calls];
  } else if (type === 'tool.execution_complete' && state.runCalls[run]) {
    state.runCalls[run] = state.runCalls[run].filter((c) => c.id !== d.toolCallId);
    if (state.runCalls[run].length === 0) delete state.runCalls[run];
  }
}

/**
 * A tool.execution_complete recorded after a session.resume for a call made before it (Copilot CLI 1.0.102
 * writes one, "Tool execution was interrupted before a result was recorded. …", when it resumes a session
 * that ended mid-call): resumed later, Copilot CLI does not send it but the call as interrupted (whatever
 * the completion says; test/agents/copilot-interrupted.test.ts), so it is no result here.
 */
function staleCompletion(state: CopilotReadState, type: string, d: JsonObject): boolean {
  return type === 'tool.execution_complete' && !!state.unanswered?.some((c) => c.beforeResume && c.id === d.toolCallId);
}

/**
 * The entry id and time threadbase kept of a reply it copied that had no response id (an
 * assistant.message's `threadbase`, encode.ts), when that id is free in the session: `stats` knows the
 * copy by them, as the original has them.
 */
function keptEntry(
  type: string,
  d: JsonObject,
  byId: ReadonlyMap<string, Entry>,
): { id: string; timestamp: string | undefined } | undefined {
  const kept = (type === 'assistant.message' || type === 'session.error') && isObject(d.threadbase) ? d.threadbase : undefined;
  const id = str(kept?.entryId);
  if (!id || byId.has(id)) return undefined;
  return { id, timestamp: str(kept?.timestamp) || undefined };
}

/**
 * The spawning call of an event a running sub-agent wrote without `parentToolCallId` (seen with
 * 1.0.102: its prompt, a user.message with `source: 'agent-<session id>'`, its
 * `session.model_change` with `source: 'agent'` and `subagent.configured`), else undefined.
 */
function subAgentOf(type: string, d: JsonObject, open: readonly string[]): string | undefined {
  const inner = open.at(-1);
  if (!inner) return undefined;
  const own =
    (type === 'user.message' && str(d.source)?.startsWith('agent-')) ||
    (type === 'session.model_change' && d.source === 'agent') ||
    type === 'subagent.configured';
  return own ? inner : undefined;
}

/**
 * The usage of an assistant.message (`apiCallId`) with that of the responses cut short before it in its chain
 * that have no message of their own: Copilot CLI 1.0.102 answers a response that stopped at max_tokens by asking
 * "Please continue from where you left off." (not recorded) and records a usage record for each such response
 * (initiator `agent`), but one assistant.message, the last response's (seen with the real binary against the
 * stand-in: three responses, three records, one message; its session.shutdown counts all three). Their tokens
 * were spent on this message, so they are its usage too, and `stats` counts what Copilot CLI does.
 */
function continuedUsage(state: CopilotReadState, chain: string, apiCallId: string | undefined): void {
  const earlier = (state.cutShort?.[chain] ?? []).filter((k) => k !== apiCallId && state.pendingUsage[k]);
  if (state.cutShort) delete state.cutShort[chain];
  if (!apiCallId || earlier.length === 0) return;
  const records = [...earlier.map((k) => state.pendingUsage[k] as JsonObject), state.pendingUsage[apiCallId]].filter(isObject);
  for (const k of earlier) delete state.pendingUsage[k];
  state.pendingUsage[apiCallId] = { ...joinedUsage(records), apiCallId };
}

/**
 * Several usage records as one message's: their tokens summed, the last one's other fields, each record kept
 * (COPILOT_USAGE_RECORDS) so that a copy writes them as they were, `stats` counting the same per record.
 */
function joinedUsage(records: readonly JsonObject[]): JsonObject {
  const sum = (field: string) => records.reduce((n, u) => n + num(u[field]), 0);
  return {
    ...records.at(-1),
    inputTokens: sum('inputTokens'),
    outputTokens: sum('outputTokens'),
    cacheReadTokens: sum('cacheReadTokens'),
    cacheWriteTokens: sum('cacheWriteTokens'),
    ...(records.some((u) => u.reasoningTokens !== undefined) ? { reasoningTokens: sum('reasoningTokens') } : {}),
    [COPILOT_USAGE_RECORDS]: records.map(keptRecordOf),
  };
}

const keptRecordOf = (u: JsonObject): JsonObject =>
  Object.fromEntries(KEPT_RECORD_FIELDS.flatMap((k) => (u[k] === undefined ? [] : [[k, u[k]]])));

/**
 * The usage of a failed call (a session.error naming its user's message): the usage records of its chain
 * since its last assistant.message, which no message took. Copilot CLI 1.0.102 records a failed call so
 * when a response was cut short (max_tokens) and asking it to go on failed (seen with the real binary, the
 * stand-in answering max_tokens, then 400: a usage record with `finishReason: "length"`, no
 * assistant.message, the session.error; its session.shutdown counts the record); a call that failed outright,
 * even mid-stream, it records no usage for. threadbase writes another agent's failed turn's usage so (encode.ts).
 */
function failedCallUsage(state: CopilotReadState, chain: string): JsonObject | undefined {
  const keys = (state.sinceReply?.[chain] ?? []).filter((k) => state.pendingUsage[k]);
  if (state.sinceReply) delete state.sinceReply[chain];
  if (state.cutShort) delete state.cutShort[chain];
  const records = keys.map((k) => state.pendingUsage[k]).filter(isObject);
  for (const k of keys) delete state.pendingUsage[k];
  return records.length ? joinedUsage(records) : undefined;
}

/**
 * A failed call's message with the usage recorded for it (failedCallUsage): its model, provider and API as
 * the records say, its cost and the usage terms the record has no field for as threadbase kept them
 * (`threadbase.cost`, `threadbase.usage`), its response id the last record's (not threadbase's made-up one).
 */
function withCallUsage(m: Message, usage: JsonObject, d: JsonObject): Message {
  const kept = isObject(d.threadbase) ? d.threadbase : undefined;
  const model = str(usage.model);
  const provider = str(usage.modelProvider) ?? str(usage.providerType);
  const api = apiOf(str(usage.apiEndpoint), undefined);
  const cost = typeof kept?.cost === 'number' && Number.isFinite(kept.cost) ? kept.cost : undefined;
  const responseId = str(usage.apiCallId);
  return {
    ...m,
    ...(model ? { model } : {}),
    ...(provider ? { provider } : {}),
    ...(api ? { api } : {}),
    usage: { ...usageOf(usage), ...readUsageExtras(kept?.usage, { reasoning: false }) },
    ...(cost !== undefined ? { cost } : {}),
    ...(responseId ? { responseId } : {}),
    meta: { ...m.meta, [COPILOT_USAGE_RECORDS]: usage[COPILOT_USAGE_RECORDS] },
  };
}

export interface ParsedEvents {
  entries: Entry[];
  warnings: ParseWarning[];
  state: CopilotReadState;
  /** byte offset after the last whole line read */
  offset: number;
  /** a snapshot rewind was met: links it changes may lie before the offset read from */
  rewound: boolean;
}

/**
 * Reads events.jsonl (from `start`, with the state the read up to there left). Bad lines are
 * reported with file and line and skipped; the rest still loads.
 */
export async function parseEvents(file: string, state: CopilotReadState, opts: { start?: number } = {}): Promise<ParsedEvents> {
  const entries: Entry[] = [];
  const warnings: ParseWarning[] = [];
  const byId = new Map<string, Entry>();
  // the event of each entry whose id is not its event's (a reply threadbase copied: keptEntry); a rewind names events
  const eventOf = new Map<string, string>();
  const removed = new Set<string>();
  let offset = opts.start ?? 0;
  let rewound = false;
  // the images of this read's session.binary_asset events, by assetId (a result names its image's)
  const assets = new Map<string, string>();
  // a response's results placed in call order, a user's message among them after them (results-order.ts)
  const order = new ResultsOrder(state, entries);
  for await (const l of readJsonl(file, { start: opts.start, startLine: state.line })) {
    if (l.partial && l.value === undefined) {
      // a line Copilot CLI may still be writing: read again next time
      warnings.push({ file, line: l.line, message: l.error ?? 'torn last line' });
      break;
    }
    // a whole last line without its newline is read (and not again: the offset passes it)
    offset = l.end;
    state.line = l.line + 1;
    if (l.error !== undefined) {
      warnings.push({ file, line: l.line, message: l.error });
      continue;
    }
    const ev = l.value;
    if (!isObject(ev) || typeof ev.type !== 'string') {
      warnings.push({ file, line: l.line, message: 'not a Copilot CLI event (no type)' });
      continue;
    }
    const d = isObject(ev.data) ? ev.data : {};
    const eventId = str(ev.id) ?? `${basename(dirname(file))}:line-${l.line}`;
    const kept = keptEntry(ev.type, d, byId);
    const id = kept?.id ?? eventId;
    if (kept) eventOf.set(id, eventId);
    const timestamp = kept?.timestamp ?? str(ev.timestamp) ?? state.updatedAt;
    if (ev.type === 'session.start') {
      if (typeof d.startTime === 'string') state.createdAt = d.startTime;
      if (typeof d.producer === 'string') state.producer = d.producer;
      const cwd = isObject(d.context) ? str(d.context.cwd) : undefined;
      if (cwd) state.project ??= cwd;
    } else if (ev.type === 'session.usage_record' && isObject(d.usage)) {
      const key = str(d.usage.apiCallId);
      if (key) {
        state.pendingUsage[key] = d.usage;
        const chain = str(ev.agentId) ?? '';
        state.sinceReply ??= {};
        state.sinceReply[chain] = [...(state.sinceReply[chain] ?? []), key];
      }
      if (key && d.usage.finishReason === 'length') {
        const chain = str(ev.agentId) ?? '';
        state.cutShort ??= {};
        state.cutShort[chain] = [...(state.cutShort[chain] ?? []), key];
      }
    } else if (ev.type === 'assistant.message') {
      continuedUsage(state, str(ev.agentId) ?? '', str(d.apiCallId));
      if (state.sinceReply) delete state.sinceReply[str(ev.agentId) ?? ''];
    } else if (ev.type === 'session.error' && isFailedCallData(d)) {
      state.failedCallUsage = failedCallUsage(state, str(ev.agentId) ?? '');
    } else if (ev.type === 'tool.execution_start' && typeof d.toolCallId === 'string' && typeof d.toolName === 'string') {
      state.toolNames[d.toolCallId] = d.toolName;
    } else if (ev.type === 'session.title_changed' && typeof d.title === 'string' && d.title.trim()) {
      state.title = d.title.trim();
      state.titleChanged = true;
    } else if (ev.type === 'session.binary_asset' && typeof d.assetId === 'string' && typeof d.data === 'string') {
      assets.set(d.assetId, d.data);
    }
    state.openSubAgents ??= [];
    const open = state.openSubAgents;
    if (ev.type === 'subagent.completed' || ev.type === 'subagent.failed') {
      const at = open.lastIndexOf(str(d.toolCallId) ?? '');
      if (at >= 0) open.splice(at, 1);
    }
    state.agentCalls ??= {};
    // a run's start and end are the parent's; between them its events name the run by agentId
    const ownRun = ev.type.startsWith('subagent.') && ev.type !== 'subagent.configured';
    const byAgent = !ownRun && typeof ev.agentId === 'string' ? state.agentCalls[ev.agentId] : undefined;
    const spawnedBy = str(d.parentToolCallId) ?? byAgent ?? subAgentOf(ev.type, d, open);
    const late = spawnedBy ? undefined : lateResult(state, ev.type, d);
    const stale = (!spawnedBy && staleCompletion(state, ev.type, d)) || late !== undefined;
    if (late && !late.beforeResume) {
      // the words answering it give way to this result, in their place; read before: the file is read whole
      const answers = byId.get(late.entry);
      const real = toolResultMessage(d, state.toolNames[late.callId], assets).parts[0] as Part;
      if (answers?.kind === 'message')
        answers.message.parts = answers.message.parts.map((p) =>
          p.type === 'tool_result' && p.callId === late.callId ? real : p,
        );
      else rewound = true;
    }
    // calls the user's next turn or the next response finds open: answered before it as Copilot CLI sends
    // them (not a message typed while they ran, steering or queued: their results may still come after it,
    // and Copilot CLI sends those; test/agents/copilot-steering.test.ts)
    const leftOpen =
      !spawnedBy && ((ev.type === 'user.message' && !typedWhileBusy(d)) || ev.type === 'assistant.message')
        ? interruptedResults(state)
        : undefined;
    if (!spawnedBy) trackUnanswered(state, ev.type, d);
    // the main chain's abort: the results Copilot CLI makes up for the calls it left open
    const interrupted = ev.type === 'abort' && !spawnedBy ? interruptedResults(state) : undefined;
    const entry: Entry = interrupted
      ? { id, parentId: null, timestamp, raw: ev, rawSource: SOURCE, kind: 'message', message: interrupted }
      : stale
        ? { id, parentId: null, timestamp, raw: ev, rawSource: SOURCE, kind: 'metadata', type: ev.type, data: d }
        : entryOf(ev.type, d, id, timestamp, ev, state, assets);
    delete state.failedCallUsage;
    // the copy gets no response id: threadbase's made-up apiCallId only pairs it with its usage record
    if (kept && entry.kind === 'message') delete entry.message.responseId;
    noteInterrupted(state, id, interrupted);
    if (leftOpen) {
      const answers: Entry = { id: `${id}:interrupted`, parentId: state.lastMain, timestamp, kind: 'message', message: leftOpen };
      noteInterrupted(state, answers.id, leftOpen);
      byId.set(answers.id, answers);
      order.after(answers, entries.length, 'result');
      entries.push(answers);
      state.lastMain = answers.id;
    }
    // a run cancelled (the user's abort while it ran) or failed: its own calls still open never finished.
    // Copilot CLI writes no result for them and sends nothing of the run; answered as its main chain's are
    const endedRun =
      (ev.type === 'subagent.completed' && d.cancelled === true) || ev.type === 'subagent.failed' ? str(d.toolCallId) : undefined;
    const runAnswers = endedRun ? cancelledAnswers(state.runCalls?.[endedRun] ?? []) : undefined;
    if (endedRun && runAnswers) {
      delete state.runCalls?.[endedRun];
      runAnswers.meta = { [SPAWNED_BY]: endedRun };
      const answers: Entry = {
        id: `${id}:interrupted`,
        parentId: state.lastSide[endedRun] ?? null,
        timestamp,
        kind: 'message',
        message: runAnswers,
        sidechain: true,
      };
      byId.set(answers.id, answers);
      entries.push(answers);
      state.lastSide[endedRun] = answers.id;
    }
    if (ev.type === 'subagent.started' && typeof d.toolCallId === 'string') {
      open.push(d.toolCallId);
      if (typeof ev.agentId === 'string') state.agentCalls[ev.agentId] = d.toolCallId;
    }
    if (spawnedBy) {
      entry.sidechain = true;
      // the run's call, where every target finds the call a side chain's message names (model/side-chains.ts)
      if (entry.kind === 'message') entry.message.meta = { ...entry.message.meta, [SPAWNED_BY]: spawnedBy };
      entry.parentId = state.lastSide[spawnedBy] ?? null;
      state.lastSide[spawnedBy] = id;
      trackRunCalls(state, spawnedBy, ev.type, d);
    } else {
      const role = spanRoleOf(entry, typedWhileBusy(d));
      order.before(role);
      if (ev.type === 'session.snapshot_rewind') {
        rewound = true;
        for (const r of Array.isArray(d.eventIds) ? d.eventIds : []) if (typeof r === 'string') removed.add(r);
        // the rewind hangs from the last event it kept: what it removed is an abandoned branch
        let back = state.lastMain ? byId.get(state.lastMain) : undefined;
        while (back && removed.has(eventOf.get(back.id) ?? back.id)) back = back.parentId ? byId.get(back.parentId) : undefined;
        if (back) state.lastMain = back.id;
        else if (removed.size > 0 && !opts.start) state.lastMain = null;
      }
      entry.parentId = state.lastMain;
      state.lastMain = id;
      order.after(entry, entries.length, role);
    }
    if (entry.kind === 'message' && entry.message.role === 'user' && !entry.message.meta?.copilotInjected && !state.title) {
      const text = entry.message.parts.find((p) => p.type === 'text');
      const first = text?.type === 'text' ? titleLine(text.text.trim()) : undefined;
      if (first) state.title = first;
    }
    // the file's time stands in only until an event has a time (a copied file is newer than its events)
    if (str(ev.timestamp) && (!state.timed || timestamp > state.updatedAt)) {
      state.updatedAt = timestamp;
      state.timed = true;
    }
    byId.set(id, entry);
    entries.push(entry);
  }
  order.finish();
  rewound ||= order.wholeRead;
  // usage records of responses with no message (kept few: a sub-agent's or a compaction's)
  const pending = Object.keys(state.pendingUsage);
  for (const k of pending.slice(0, Math.max(0, pending.length - 16))) delete state.pendingUsage[k];
  return { entries, warnings, state, offset, rewound };
}

export function sessionOf(file: string, parsed: ParsedEvents, workspace: Workspace): Session {
  const { state } = parsed;
  const leaf = state.lastMain;
  const usage = summarizeUsage(parsed.entries);
  const project = workspace.cwd ?? state.project;
  // a session threadbase wrote has its source's title as its name: before a first line (which may be
  // another agent's injected text, as Claude Code's local-command caveat), after a title Copilot CLI gave it
  const written = state.producer === WRITTEN_BY ? workspace.name : undefined;
  const title =
    (workspace.userNamed && workspace.name) || (state.titleChanged && state.title) || written || state.title || workspace.name;
  return {
    id: state.id,
    source: SOURCE,
    ...(project ? { project } : {}),
    ...(title ? { title } : {}),
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    ...writtenByOf(state.producer),
    messageCount: countMessages(parsed.entries),
    ...(usage.models.length ? { models: usage.models } : {}),
    usage: usage.usage,
    ...usageByModelOf(usage),
    path: file,
    entries: parsed.entries,
    leafId: leaf,
    ...(parsed.warnings.length ? { warnings: parsed.warnings } : {}),
  };
}

/** The fields of workspace.yaml the listing uses. */
export interface Workspace {
  cwd?: string;
  name?: string;
  userNamed?: boolean;
}
