/**
 * threadbase entries → pi records. An entry read from pi (rawSource 'pi') is written back as its
 * original record; any other entry is encoded from the model fields, so sessions converted from
 * other agents resume in pi. One entry may become several records (a tool message with several
 * results: pi keeps one toolResult message per result), and consecutive records of one API
 * response (same responseId) become one pi assistant message, as pi records a response.
 */
import { declinedMarkOf } from '../../convert/declined.js';
import { isProviderExecuted, providerCallNote } from '../../convert/provider-tools.js';
import { currentLeaf, indexEntries, resultText } from '../../model/tree.js';
import type { Entry, Message, Part, Session, ToolCallPart, ToolResultContent, ToolResultPart } from '../../model/types.js';
import { assistantImageNote } from '../shared/assistant-images.js';
import { toJsonl } from '../shared/atomic.js';
import type { EncodedJsonl, JsonlEncodeOptions } from '../shared/encoded.js';
import { joinOpenAIReasoning } from '../shared/openai-reasoning.js';
import { UniqueToolIds } from '../shared/unique-tool-ids.js';
import { usageExtrasOf } from '../shared/usage-extras.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { ABORTED_TOOL_RESULT, BLOCKED_BY_USER, piDeclinedMark } from './denials.js';
import { FAILED_TURN_RESULT_CUSTOM_TYPE, SOURCE, SYSTEM_CUSTOM_TYPE } from './parse.js';
import {
  isRecord,
  joinToolCallId,
  newEntryId,
  newPiHeader,
  newSessionId,
  type PiBlock,
  type PiImageBlock,
  type PiRecord,
  type PiTextBlock,
  type PiUsage,
  sessionDirName,
  splitToolCallId,
  thinkingSignatureKind,
} from './records.js';
import { piThinkingSignature } from './thinking-signature.js';

export interface EncodeResult {
  records: PiRecord[];
  /** entry id → id of the record that now stands for it (its last record) */
  idMap: Map<string, string>;
  warnings: string[];
}

export interface EncodeOptions {
  /** ids already in the target file (when appending) */
  takenIds?: Iterable<string>;
  /** tool call id → tool name, for results of calls made before these entries (pi records the name on the result) */
  toolNames?: ReadonlyMap<string, string>;
}

/** The api an assistant message from another agent is written with when it names none. */
const DEFAULT_API = 'anthropic-messages';

/** pi-ai's wire APIs (KnownApi), the names pi compares with its model's to replay a message as its own. */
const PI_APIS = new Set([
  'openai-completions',
  'openai-responses',
  'azure-openai-responses',
  'openai-codex-responses',
  'anthropic-messages',
  'bedrock-converse-stream',
  'google-generative-ai',
  'google-gemini-cli',
  'google-vertex',
  'mistral-conversations',
]);

/**
 * The api an assistant message is written with. A message of an api pi does not know (OpenCode's) whose
 * reasoning is OpenAI's (encrypted content) came from the Responses API: written as `openai-responses`,
 * its reasoning items as pi keeps them, so pi replays them when it resumes with that provider and model.
 */
function piApiOf(m: Message): string {
  if (m.api !== undefined && PI_APIS.has(m.api)) return m.api;
  const openai = m.parts.some(
    (p) => p.type === 'thinking' && p.signature === undefined && typeof p.meta?.encryptedContent === 'string',
  );
  return openai ? 'openai-responses' : (m.api ?? DEFAULT_API);
}

const STOP_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  tool_use: 'toolUse',
  tool_calls: 'toolUse',
  max_tokens: 'length',
  refusal: 'stop',
  stop: 'stop',
  length: 'length',
  toolUse: 'toolUse',
  error: 'error',
  aborted: 'aborted',
};

function ms(iso: string): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? Date.now() : t;
}

function piUsage(m: Message): PiUsage {
  const u = m.usage;
  const input = u?.input ?? 0;
  const output = u?.output ?? 0;
  const cacheRead = u?.cacheRead ?? 0;
  const cacheWrite = u?.cacheWrite ?? 0;
  const extras = usageExtrasOf(u, { reasoning: true });
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: m.cost ?? 0 },
    // what pi has no field for, in one it ignores (read back by parse.ts)
    ...(extras ? { threadbase: extras } : {}),
  };
}

function userBlocks(parts: readonly (Part | ToolResultContent)[], warn: (m: string) => void): (PiTextBlock | PiImageBlock)[] {
  const out: (PiTextBlock | PiImageBlock)[] = [];
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        out.push({ type: 'text', text: p.text });
        break;
      case 'image':
        // codex's image `detail` beside pi's fields (pi builds its requests from data and mimeType only), read back as meta
        if (p.data !== undefined)
          out.push({
            type: 'image',
            data: p.data,
            mimeType: p.mediaType,
            ...(typeof p.meta?.detail === 'string' ? { detail: p.meta.detail } : {}),
          });
        else {
          warn(`image by URL (${p.url ?? '?'}) has no pi form; written as text`);
          out.push({ type: 'text', text: `[image: ${p.url ?? p.mediaType}]` });
        }
        break;
      case 'file':
        if (p.text !== undefined) out.push({ type: 'text', text: p.text });
        else {
          warn(`file ${p.name ?? p.mediaType} has no pi form; written as a text note`);
          out.push({ type: 'text', text: `[file: ${p.name ?? 'attachment'} (${p.mediaType})]` });
        }
        break;
      case 'thinking':
        out.push({ type: 'text', text: p.thinking });
        break;
      default:
        warn(`${p.type} part in a user message has no pi form; dropped`);
    }
  }
  return out;
}

/**
 * The Responses item id a call is written with (pi keeps it after a `|` in the call's id and sends it as
 * the function_call's `id`): pi's own, or, in a message pi sends to the Responses API, the function_call
 * item id codex recorded. The API pairs a reasoning item with the item that followed it by that id and
 * refuses a reasoning item sent without it ("provided without its required following item").
 */
function responsesItemIdOf(p: ToolCallPart, api: string | undefined): string | undefined {
  if (typeof p.meta?.piItemId === 'string') return p.meta.piItemId;
  const codex = p.meta?.codexItemId;
  return thinkingSignatureKind(api) === 'responses' && typeof codex === 'string' && codex.startsWith('fc') ? codex : undefined;
}

function assistantBlocks(
  parts: readonly Part[],
  api: string | undefined,
  ids: UniqueToolIds,
  itemIds: Map<string, string>,
  warn: (m: string) => void,
): PiBlock[] {
  const out: PiBlock[] = [];
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        out.push({ type: 'text', text: p.text });
        break;
      case 'thinking': {
        const sig = piThinkingSignature(p, api);
        out.push({ type: 'thinking', thinking: p.thinking, ...(sig !== undefined ? { thinkingSignature: sig } : {}) });
        break;
      }
      case 'redacted_thinking':
        out.push({ type: 'thinking', thinking: '', thinkingSignature: p.data, redacted: true });
        break;
      case 'tool_call':
        // a call the provider ran (codex's web search) has no result: pi-ai would answer it with an error;
        // its note is sent instead, the call kept beside it for reading back
        if (isProviderExecuted(p)) out.push({ type: 'text', text: providerCallNote(p), threadbase: { providerCall: p } });
        else {
          // an id an earlier call has gets a new one (pi sends the ids as recorded), the call's own kept beside it
          const id = ids.call(p.id);
          const itemId = responsesItemIdOf(p, api);
          if (itemId !== undefined) itemIds.set(p.id, itemId);
          else itemIds.delete(p.id);
          out.push({
            type: 'toolCall',
            id: joinToolCallId(id, itemId !== undefined ? { piItemId: itemId } : undefined),
            name: p.name,
            arguments: p.input,
            ...(id !== p.id ? { threadbase: { id: p.id } } : {}),
          });
        }
        break;
      case 'image':
        // pi's assistant messages hold no images (codex's generated ones): a note pi sends, the image
        // kept beside it for reading back (parse.ts)
        out.push({ type: 'text', text: assistantImageNote(p), threadbase: { image: p } });
        break;
      case 'file':
        out.push(...userBlocks([p], warn).filter((b): b is PiTextBlock => b.type === 'text'));
        break;
      case 'tool_result':
        warn('tool result inside an assistant message has no pi form; dropped');
        break;
    }
  }
  return out;
}

function toolResultContent(c: string | ToolResultContent[], warn: (m: string) => void): (PiTextBlock | PiImageBlock)[] {
  return typeof c === 'string' ? [{ type: 'text', text: c }] : userBlocks(c, warn);
}

/** Encodes entries (parents before children) into pi records. */
export function encodeEntries(entries: readonly Entry[], opts: EncodeOptions = {}): EncodeResult {
  const taken = new Set<string>(opts.takenIds ?? []);
  for (const e of entries) taken.add(e.id);
  const idMap = new Map<string, string>();
  const firstIdMap = new Map<string, string>();
  const warnings: string[] = [];
  const records: PiRecord[] = [];
  const byRecordId = new Map<string, PiRecord>();
  const toolNames = new Map<string, string>(opts.toolNames ?? []);
  // tool-call ids unique in the file: the calls it holds already, pi's own records, then ours
  const toolIds = new UniqueToolIds();
  /** a call's id → the Responses item id it was written with (its results carry it too, as pi's own do) */
  const itemIds = new Map<string, string>();
  /**
   * the calls of assistant messages pi leaves out when it resumes (stopReason error or aborted: pi-ai's
   * transformMessages) by the model's id: pi would still send their results, answering no call
   */
  const failedCalls = new Set<string>();
  const noteFailedCalls = (message: unknown) => {
    if (!isRecord(message) || (message.stopReason !== 'error' && message.stopReason !== 'aborted')) return;
    if (!Array.isArray(message.content)) return;
    for (const b of message.content)
      if (isRecord(b) && b.type === 'toolCall')
        failedCalls.add(
          isRecord(b.threadbase) && typeof b.threadbase.id === 'string' ? b.threadbase.id : splitToolCallId(String(b.id)).callId,
        );
  };
  for (const id of toolNames.keys()) toolIds.seen(splitToolCallId(id).callId);
  /** record id → responseId, for assistant records we built (may be continued) */
  const responseOf = new Map<string, string>();
  const childCount = new Map<string, number>();

  const mapParent = (p: string | null): string | null => (p === null ? null : (idMap.get(p) ?? p));
  const push = (r: PiRecord) => {
    records.push(r);
    byRecordId.set(String(r.id), r);
    const parent = r.parentId;
    if (typeof parent === 'string') childCount.set(parent, (childCount.get(parent) ?? 0) + 1);
  };

  for (const e of entries) {
    const warn = (m: string) => warnings.push(`${e.id}: ${m}`);
    const parentId = mapParent(e.parentId);
    const timestamp = e.timestamp;
    const base = { id: e.id, parentId, timestamp };

    if (e.rawSource === SOURCE && isRecord(e.raw)) {
      const r: PiRecord = { ...e.raw, id: e.id, parentId };
      // A foreign label or compaction may point at an entry that got a new id.
      if (typeof r.targetId === 'string') r.targetId = firstIdMap.get(r.targetId) ?? r.targetId;
      if (typeof r.firstKeptEntryId === 'string') r.firstKeptEntryId = firstIdMap.get(r.firstKeptEntryId) ?? r.firstKeptEntryId;
      push(r);
      idMap.set(e.id, e.id);
      firstIdMap.set(e.id, e.id);
      if (isRecord(r.message) && r.message.role === 'assistant') noteFailedCalls(r.message);
      if (isRecord(r.message) && Array.isArray(r.message.content)) {
        for (const b of r.message.content) {
          if (!isRecord(b) || b.type !== 'toolCall') continue;
          // by pi's id and by the model's (a result written from model fields asks by that)
          toolNames.set(String(b.id), String(b.name));
          toolNames.set(splitToolCallId(String(b.id)).callId, String(b.name));
          toolIds.seen(splitToolCallId(String(b.id)).callId);
        }
      }
      continue;
    }

    switch (e.kind) {
      case 'message': {
        const m = e.message;
        const at = ms(timestamp);
        if (m.role === 'assistant') {
          const api = piApiOf(m);
          // one thinking block per reasoning item, as pi-ai keeps a Responses item (OpenCode gives a part per summary part)
          const parts = thinkingSignatureKind(api) === 'responses' ? joinOpenAIReasoning(m.parts) : m.parts;
          const content = assistantBlocks(parts, api, toolIds, itemIds, warn);
          for (const p of m.parts) if (p.type === 'tool_call') toolNames.set(p.id, p.name);
          // The next record of a response pi would have recorded as one message.
          const prev = parentId ? byRecordId.get(parentId) : undefined;
          if (
            prev &&
            m.responseId &&
            responseOf.get(parentId as string) === m.responseId &&
            (childCount.get(parentId as string) ?? 0) === 0
          ) {
            const pm = prev.message as Record<string, unknown>;
            pm.content = [...(pm.content as PiBlock[]), ...content];
            if (m.usage) {
              pm.usage = piUsage(m);
              // the time of the record the usage came from, which `stats` knows a copy by (CopyKey)
              prev.timestamp = timestamp;
              pm.timestamp = at;
            }
            if (m.stopReason) pm.stopReason = STOP_REASONS[m.stopReason] ?? 'stop';
            else if (content.some((b) => b.type === 'toolCall')) pm.stopReason = 'toolUse';
            noteFailedCalls(pm);
            idMap.set(e.id, parentId as string);
            firstIdMap.set(e.id, parentId as string);
            break;
          }
          const hasCalls = content.some((b) => b.type === 'toolCall');
          const stopReason = m.stopReason ? (STOP_REASONS[m.stopReason] ?? 'stop') : hasCalls ? 'toolUse' : 'stop';
          const message: Record<string, unknown> = {
            role: 'assistant',
            content,
            api,
            provider: m.provider ?? 'anthropic',
            model: m.model ?? 'unknown',
            usage: piUsage(m),
            stopReason,
            timestamp: at,
          };
          if (m.error) message.errorMessage = m.error;
          if (m.responseId) message.responseId = m.responseId;
          noteFailedCalls(message);
          push({ type: 'message', ...base, message });
          if (m.responseId) responseOf.set(e.id, m.responseId);
          idMap.set(e.id, e.id);
          firstIdMap.set(e.id, e.id);
          break;
        }
        if (m.role === 'system') {
          // Another agent's instructions (codex's developer messages, a stored system prompt): pi sends
          // its own system prompt, and as a user turn they would reach the model as the user's words
          // (codex's sandbox rules, its skills). Kept as an extension entry pi does not send, as Claude
          // Code and OpenCode leave them out.
          warn('pi has no system messages; kept as a custom entry pi does not send');
          push({
            type: 'custom',
            ...base,
            customType: SYSTEM_CUSTOM_TYPE,
            data: { parts: m.parts, ...(m.meta ? { meta: m.meta } : {}) },
          });
          idMap.set(e.id, e.id);
          firstIdMap.set(e.id, e.id);
          break;
        }
        // user and tool messages: tool results first (one pi message each), then the rest.
        const results = m.parts.filter((p) => p.type === 'tool_result');
        const others = m.parts.filter((p) => p.type !== 'tool_result');
        let parent = parentId;
        let first: string | undefined;
        const mint = () => {
          if (!first) return e.id;
          const id = newEntryId(taken);
          taken.add(id);
          return id;
        };
        for (const p of results) {
          if (p.type !== 'tool_result') continue;
          const id = mint();
          if (failedCalls.has(p.callId)) {
            // pi leaves the failed turn out but would send this result, answering no call (the API refuses
            // that): kept as an extension entry pi does not send, read back as the result (parse.ts)
            warn(
              `the result of call ${p.callId} answers a turn that failed, which pi leaves out; kept as a custom entry pi does not send`,
            );
            push({
              type: 'custom',
              id,
              parentId: parent,
              timestamp,
              customType: FAILED_TURN_RESULT_CUSTOM_TYPE,
              data: { parts: [p], ...(m.meta ? { meta: m.meta } : {}) },
            });
            first ??= id;
            parent = id;
            continue;
          }
          const callId = toolIds.result(p.callId);
          const itemId = typeof p.meta?.piItemId === 'string' ? p.meta.piItemId : itemIds.get(p.callId);
          push({
            type: 'message',
            id,
            parentId: parent,
            timestamp,
            message: {
              role: 'toolResult',
              toolCallId: joinToolCallId(callId, itemId !== undefined ? { piItemId: itemId } : undefined),
              // the id of the call it answers, where that call got a new one (assistantBlocks)
              ...(callId !== p.callId ? { threadbase: { toolCallId: p.callId } } : {}),
              toolName: p.name ?? toolNames.get(p.callId) ?? 'unknown',
              // a refused or cancelled call in pi's words, unless already (denials.ts)
              content: toolResultContent(piWorded(p), warn),
              isError: p.isError === true || declinedMarkOf(p) !== undefined,
              timestamp: at,
            },
          });
          first ??= id;
          parent = id;
        }
        if (others.length || !results.length) {
          const id = mint();
          push({
            type: 'message',
            id,
            parentId: parent,
            timestamp,
            message: { role: 'user', content: userBlocks(others, warn), timestamp: at },
          });
          first ??= id;
          parent = id;
        }
        idMap.set(e.id, parent as string);
        firstIdMap.set(e.id, first as string);
        break;
      }
      case 'compaction':
        push({
          type: 'compaction',
          ...base,
          summary: e.summary,
          ...(e.firstKeptEntryId !== undefined
            ? { firstKeptEntryId: firstIdMap.get(e.firstKeptEntryId) ?? e.firstKeptEntryId }
            : {}),
          tokensBefore: e.tokensBefore ?? 0,
        });
        idMap.set(e.id, e.id);
        firstIdMap.set(e.id, e.id);
        break;
      case 'branch_summary': {
        // pi's fromId is the entry branched from, the summary's parent (branchWithSummary), not the
        // abandoned leaf the model's fromId names: that one is kept in a field pi ignores (parse.ts reads it back)
        const fromId = parentId ?? 'root';
        const abandonedLeaf = e.fromId === undefined ? undefined : (idMap.get(e.fromId) ?? e.fromId);
        push({
          type: 'branch_summary',
          ...base,
          fromId,
          summary: e.summary,
          ...(e.details !== undefined ? { details: e.details } : {}),
          ...(e.fromHook !== undefined ? { fromHook: e.fromHook } : {}),
          ...(abandonedLeaf !== undefined && abandonedLeaf !== fromId ? { threadbase: { fromId: abandonedLeaf } } : {}),
        });
        idMap.set(e.id, e.id);
        firstIdMap.set(e.id, e.id);
        break;
      }
      case 'model_change': {
        let parent = parentId;
        let first: string | undefined;
        if (e.model) {
          push({
            type: 'model_change',
            id: e.id,
            parentId: parent,
            timestamp,
            provider: e.provider ?? 'unknown',
            modelId: e.model,
          });
          first = e.id;
          parent = e.id;
        }
        if (e.thinkingLevel || !e.model) {
          const id = first ? newEntryId(taken) : e.id;
          taken.add(id);
          push({ type: 'thinking_level_change', id, parentId: parent, timestamp, thinkingLevel: e.thinkingLevel ?? 'off' });
          first ??= id;
          parent = id;
        }
        idMap.set(e.id, parent as string);
        firstIdMap.set(e.id, first as string);
        break;
      }
      case 'label':
        push({ type: 'label', ...base, targetId: firstIdMap.get(e.targetId) ?? e.targetId, label: e.label });
        idMap.set(e.id, e.id);
        firstIdMap.set(e.id, e.id);
        break;
      case 'metadata':
        // Another agent's metadata (snapshots, titles, ...): kept as an extension entry pi ignores.
        push({ type: 'custom', ...base, customType: `threadbase:${e.rawSource ?? 'unknown'}:${e.type}`, data: e.data ?? null });
        idMap.set(e.id, e.id);
        firstIdMap.set(e.id, e.id);
        break;
    }
  }
  return { records, idMap, warnings };
}

/** Why a file we write may end in an assistant message the session did not have (see flushable). */
export const NO_ANSWER_TEXT = 'No answer was recorded (added by threadbase so that pi can resume this file)';

/**
 * pi (SessionManager._persist) writes a session file only once it holds an assistant message: on
 * resuming a file without one, pi's first answer appends the header and every entry again. So a
 * new file with no assistant message gets one after its last record, in the form pi itself
 * records a turn aborted before any answer; pi leaves aborted turns out of what it sends, so the
 * model sees the same context. Returns the records unchanged when they already hold an answer.
 */
export function flushable(records: readonly PiRecord[]): { records: PiRecord[]; warning?: string } {
  const isAnswer = (r: PiRecord) => r.type === 'message' && isRecord(r.message) && r.message.role === 'assistant';
  if (records.some(isAnswer)) return { records: [...records] };
  const last = records.at(-1);
  const model = records.findLast((r) => r.type === 'model_change');
  const timestamp = typeof last?.timestamp === 'string' ? last.timestamp : new Date().toISOString();
  const taken = new Set(records.map((r) => String(r.id)));
  const answer: PiRecord = {
    type: 'message',
    id: newEntryId(taken),
    parentId: typeof last?.id === 'string' ? last.id : null,
    timestamp,
    message: {
      role: 'assistant',
      content: [],
      api: 'unknown',
      provider: typeof model?.provider === 'string' ? model.provider : 'unknown',
      model: typeof model?.modelId === 'string' ? model.modelId : 'unknown',
      usage: piUsage({ role: 'assistant', parts: [] }),
      stopReason: 'aborted',
      errorMessage: NO_ANSWER_TEXT,
      timestamp: ms(timestamp),
    },
  };
  return {
    records: [...records, answer],
    warning:
      'the session has no assistant message, which pi needs in a file it resumes: an aborted, empty one was added at its end',
  };
}

/**
 * A whole session's entries in the order a new pi file holds them: pi resumes at the last entry of
 * a file, so the current leaf goes last (when it has children it cannot, and a warning says so).
 */
export function currentLeafLast(session: Session): { ordered: Entry[]; warnings: string[] } {
  const ordered = [...session.entries];
  const leaf = currentLeaf(session);
  const warnings: string[] = [];
  if (leaf && ordered.at(-1)?.id !== leaf.id) {
    if (indexEntries(session.entries).children.get(leaf.id)?.length)
      warnings.push(`the current leaf ${leaf.id} has children; pi will resume at the last entry written`);
    else ordered.push(...ordered.splice(ordered.indexOf(leaf), 1));
  }
  return { ordered, warnings };
}

/** A pi session file (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`): header, then the whole tree, current leaf last. */
export function encodePiSessionFile(session: Session, opts: JsonlEncodeOptions & { now?: Date } = {}): EncodedJsonl {
  const sessionId = opts.sessionId ?? newSessionId();
  const cwd = opts.cwd ?? session.project ?? '/';
  const timestamp = (opts.now ?? new Date()).toISOString();
  const { ordered, warnings } = currentLeafLast(session);
  const enc = encodeEntries(ordered);
  const safe = flushable(enc.records);
  const header = newPiHeader(sessionId, cwd, timestamp, { threadbase: { writtenBy: WRITTEN_BY } });
  const records = [header, ...safe.records];
  return {
    sessionId,
    relativePath: `sessions/${sessionDirName(cwd)}/${timestamp.replace(/[:.]/g, '-')}_${sessionId}.jsonl`,
    records,
    jsonl: toJsonl(records),
    warnings: [...warnings, ...enc.warnings, ...(safe.warning ? [safe.warning] : [])],
  };
}

/** A refused or cancelled result's content as pi records one (its permission gate's words, its abort's). */
function piWorded(p: ToolResultPart): ToolResultPart['content'] {
  const mark = declinedMarkOf(p);
  if (!mark || piDeclinedMark(resultText(p.content)) === mark) return p.content;
  return mark === 'refused' ? BLOCKED_BY_USER : ABORTED_TOOL_RESULT;
}
