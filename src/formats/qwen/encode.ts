/**
 * A session of the model as Qwen Code ChatRecords (records.ts reads them): one record per entry of
 * the current branch, chained by uuid/parentUuid. A message's content is a Gemini Content (the Gemini
 * folder's geminiPart / functionResponseParts), a thought's signature its `thoughtSignature` (Qwen
 * Code sends it back as the provider's signature). What a record has no field for goes in a
 * `threadbase` field Qwen Code leaves alone (it loads records as JSON objects), and the reader gives
 * it back: so a session converted into Qwen Code and back loses nothing.
 *
 * Qwen Code rebuilds the model's history from the `message` of every record on the chain (its
 * SessionApiHistoryAccumulator), so only what the model should get has a `message`: a system message
 * or an entry Qwen Code has no record for is a `system` record without one (not sent).
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { declinedMarkOf } from '../../convert/declined.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { mergeSplitResponses, pathToLeaf, responseEntriesAt, resultText } from '../../model/tree.js';
import type { CompactionEntry, Entry, Message, MessageEntry, Part, Session, ToolResultPart } from '../../model/types.js';
import { CallIdPairer, geminiCountsOf, isObject, type JsonObject, KEPT_MESSAGE_FIELDS } from '../gemini/content.js';
import { functionResponseParts, geminiPart } from '../gemini/parts.js';
import { openaiItemId } from '../shared/openai-reasoning.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { qwenCancelledWords, qwenDeclinedMark, qwenDeclinedResult } from './denials.js';
import { markedResults, partsOf, usageOf } from './records.js';

/** The version field of a record threadbase wrote (Qwen Code writes its own CLI version there). */
export const WRITER_VERSION = WRITTEN_BY;

export interface EncodeTarget {
  sessionId: string;
  /** the project path: Qwen Code resumes a chat only in the project its first record's `cwd` names */
  cwd: string;
}

/** A model-side part as a Gemini Part of a `model` Content. */
function modelPart(p: Part): JsonObject | undefined {
  if (p.type === 'thinking') {
    // OpenAI's encrypted reasoning as Qwen Code's openai-responses generator keeps it (its other generators drop it)
    const encrypted =
      p.signature === undefined && typeof p.meta?.encryptedContent === 'string' ? p.meta.encryptedContent : undefined;
    const signature =
      encrypted !== undefined ? JSON.stringify({ id: openaiItemId(p) ?? '', encrypted_content: encrypted }) : p.signature;
    return { text: p.thinking, thought: true, ...(signature !== undefined ? { thoughtSignature: signature } : {}) };
  }
  if (p.type === 'tool_call') return { functionCall: { id: p.id, name: p.name, args: p.input } };
  return geminiPart(p);
}

/** A message as the Content Qwen Code records and sends; call names for results from `callNames`. */
export function contentOf(message: Message, callNames: Map<string, string>): JsonObject {
  // a call the provider ran (codex's web search) is no call Qwen Code can send: its note instead
  const m = providerCallsAsNotes(message);
  const parts: JsonObject[] = [];
  for (const p of m.parts) {
    if (p.type === 'tool_result') parts.push(...functionResponseParts(p, p.name ?? callNames.get(p.callId) ?? ''));
    else {
      const q = m.role === 'assistant' ? modelPart(p) : geminiPart(p);
      if (q) parts.push(q);
    }
  }
  return { role: m.role === 'assistant' ? 'model' : 'user', parts };
}

/** Fields of a message the record has no place for, kept so the reader gives the message back whole. */
function kept(
  m: Message,
  content: JsonObject,
  usageMetadata: JsonObject | undefined,
  role: string,
  /** the tool_result record's status of each result (by call id), which marks them as the reader does */
  statuses?: ReadonlyMap<string, string>,
): JsonObject {
  const out: JsonObject = {};
  if (m.role !== role) out.role = m.role;
  if (m.provider !== undefined) out.provider = m.provider;
  for (const k of KEPT_MESSAGE_FIELDS) if (m[k] !== undefined) out[k] = m[k];
  if (m.meta && Object.keys(m.meta).length) out.meta = m.meta;
  // the parts, when the content does not read back as them (redacted thinking, part meta, names, ...)
  const read = partsOf(content, new CallIdPairer('threadbase:'));
  const back =
    statuses === undefined
      ? read
      : read.flatMap((p) => (p.type === 'tool_result' ? markedResults([p], statuses.get(p.callId)) : [p]));
  // as JSON (a file's parts have no undefined fields), in any key order: another agent's parts order their keys their way
  const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
  if (!isDeepStrictEqual(json(back), json(m.parts))) out.parts = m.parts;
  if (m.usage && JSON.stringify(usageOf(usageMetadata)) !== JSON.stringify(m.usage)) out.usage = m.usage;
  return out;
}

/**
 * A message's refused and cancelled results in Qwen Code's words for them (denials.ts), as it records
 * its own: another agent's words are not kept (Qwen Code sends its own); words already Qwen Code's stay.
 */
function qwenWorded(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'tool_result' && declinedMarkOf(p))) return m;
  const parts = m.parts.map((p): Part => {
    const mark = p.type === 'tool_result' ? declinedMarkOf(p) : undefined;
    if (p.type !== 'tool_result' || !mark) return p;
    if (qwenDeclinedMark(resultText(p.content)) === mark) return { ...p, isError: true };
    const { response: _r, ...meta } = p.meta ?? {};
    return { ...p, content: qwenDeclinedResult(mark), isError: true, meta };
  });
  return { ...m, parts };
}

/**
 * The status Qwen Code records with a call's result: `cancelled` for a call declined or aborted in its
 * `[Operation Cancelled]` words, `error` for one its permission rules refused (their own words) and any
 * other failure, else `success`.
 */
function qwenStatus(r: ToolResultPart): string {
  if (declinedMarkOf(r)) return qwenCancelledWords(resultText(r.content)) ? 'cancelled' : 'error';
  return r.isError ? 'error' : 'success';
}

/** Gemini usageMetadata of a model usage: prompt with the cached, candidates without the thoughts. */
function usageMetadataOf(m: Message): JsonObject | undefined {
  const u = m.usage;
  if (!u) return undefined;
  const c = geminiCountsOf(u);
  return {
    promptTokenCount: c.prompt,
    cachedContentTokenCount: c.cached,
    candidatesTokenCount: c.output,
    totalTokenCount: c.prompt + c.output + c.thoughts,
    thoughtsTokenCount: c.thoughts,
  };
}

export function encodeQwenRecords(
  session: Pick<Session, 'entries' | 'leafId' | 'title'>,
  target: EncodeTarget,
): { records: JsonObject[]; warnings: string[] } {
  const records: JsonObject[] = [];
  const warnings: string[] = [];
  const callNames = new Map<string, string>();
  const used = new Set<string>();
  let parentUuid: string | null = null;
  const path = pathToLeaf(session);

  const push = (e: Entry | undefined, type: string, fields: JsonObject, timestamp: string): void => {
    // the entry's own id where it is free (readable across the conversion), else a fresh one
    const uuid: string = e?.id && !used.has(e.id) ? e.id : randomUUID();
    used.add(uuid);
    records.push({
      uuid,
      parentUuid,
      sessionId: target.sessionId,
      timestamp,
      type,
      provenance:
        type === 'user'
          ? 'real_user'
          : type === 'assistant'
            ? 'assistant_output'
            : type === 'tool_result'
              ? 'tool_result'
              : 'system',
      cwd: target.cwd,
      version: WRITER_VERSION,
      ...fields,
    });
    parentUuid = uuid;
  };

  for (let i = 0; i < path.length; i++) {
    const e = path[i] as Entry;
    const own = ownRecord(e);
    if (own) {
      // a record Qwen Code wrote (a copy within Qwen Code): written back as it was, unknown fields included
      const { uuid: _u, parentUuid: _p, sessionId: _s, cwd: _c, ...rest } = own;
      for (const p of e.kind === 'message' ? e.message.parts : []) if (p.type === 'tool_call') callNames.set(p.id, p.name);
      push(e, typeof own.type === 'string' ? own.type : 'system', rest, e.timestamp);
      continue;
    }
    if (e.kind === 'message') {
      // a response split over several entries (Claude Code: one per content block) is one model turn:
      // Qwen Code expects a call's results right after the turn that made it
      const group = e.message.role === 'assistant' ? responseEntriesAt(path, i) : [e];
      if (group.length > 1) {
        i += group.length - 1;
        const merged = mergeSplitResponses(group.map((g) => g.message))[0] as Message;
        for (const p of merged.parts) if (p.type === 'tool_call') callNames.set(p.id, p.name);
        const usageMetadata = usageMetadataOf(merged);
        const last = group.at(-1) as MessageEntry;
        push(
          last,
          'assistant',
          {
            message: contentOf(merged, callNames),
            ...(merged.model ? { model: merged.model } : {}),
            ...(usageMetadata ? { usageMetadata } : {}),
            // the entries as they were, for the reader to give back (the last one is this record)
            threadbase: { split: group.map((g) => ({ ...entryFields(g), id: g.id, timestamp: g.timestamp })) },
          },
          last.timestamp,
        );
        continue;
      }
      const m = qwenWorded(e.message);
      for (const p of m.parts) if (p.type === 'tool_call') callNames.set(p.id, p.name);
      if (m.role === 'system') {
        push(e, 'system', { threadbase: { message: m } }, e.timestamp);
        continue;
      }
      const results = m.parts.filter((p): p is ToolResultPart => p.type === 'tool_result');
      const type =
        m.role === 'assistant' ? 'assistant' : results.length && results.length === m.parts.length ? 'tool_result' : 'user';
      const role = type === 'assistant' ? 'assistant' : type === 'tool_result' ? 'tool' : 'user';
      const content = contentOf(m, callNames);
      const usageMetadata = type === 'assistant' ? usageMetadataOf(m) : undefined;
      const statuses = type === 'tool_result' ? new Map(results.map((r) => [r.callId, qwenStatus(r)])) : undefined;
      const keep = kept(m, content, usageMetadata, role, statuses);
      if (statuses && results.length > 1) {
        // several results: one record each, as Qwen Code records every call's result (recordToolResults, its
        // own status, one status or several); all but the last name the last (the entry's), which the reader
        // folds them into
        const lastUuid = e.id && !used.has(e.id) ? e.id : randomUUID();
        results.forEach((r, k) => {
          const last = k === results.length - 1;
          const fields: JsonObject = {
            message: contentOf({ role: 'tool', parts: [r] }, callNames),
            toolCallResult: { callId: r.callId, status: statuses.get(r.callId) as string },
          };
          if (!last) fields.threadbase = { resultsWith: lastUuid };
          else if (Object.keys(keep).length) fields.threadbase = keep;
          push(last ? { ...e, id: lastUuid } : undefined, type, fields, e.timestamp);
        });
        continue;
      }
      const status = statuses ? (statuses.values().next().value as string) : undefined;
      const fields: JsonObject = { message: content };
      if (type === 'assistant' && m.model) fields.model = m.model;
      if (usageMetadata) fields.usageMetadata = usageMetadata;
      if (type === 'tool_result') fields.toolCallResult = { callId: (results[0] as ToolResultPart).callId, status };
      if (Object.keys(keep).length) fields.threadbase = keep;
      push(e, type, fields, e.timestamp);
      continue;
    }
    if (e.kind === 'compaction') {
      push(
        e,
        'system',
        {
          subtype: 'chat_compression',
          systemPayload: compressionPayload(e, path.slice(0, i), callNames),
          threadbase: { entry: entryFields(e) },
        },
        e.timestamp,
      );
      continue;
    }
    if (e.kind === 'branch_summary') {
      // sent as a user turn of its text, as the other writers send one
      push(
        e,
        'user',
        { message: { role: 'user', parts: [{ text: e.text ?? e.summary }] }, threadbase: { entry: entryFields(e) } },
        e.timestamp,
      );
      continue;
    }
    // model changes, labels, other agents' metadata: kept, not sent (a system record without a message)
    push(e, 'system', { threadbase: { entry: entryFields(e) } }, e.timestamp);
  }
  if (session.title) {
    const last = records.at(-1);
    push(
      undefined,
      'system',
      { subtype: 'custom_title', systemPayload: { customTitle: session.title, titleSource: 'manual' } },
      typeof last?.timestamp === 'string' ? last.timestamp : new Date().toISOString(),
    );
  }
  return { records, warnings };
}

/**
 * The Qwen Code record an entry was read from, when it can be written back as it was: one record of
 * its own (not fragments joined, not one of the entries threadbase merged into one record).
 */
function ownRecord(e: Entry): JsonObject | undefined {
  const raw = e.raw;
  if (e.rawSource !== 'qwen' || !isObject(raw) || raw.uuid !== e.id || raw.fragments !== undefined) return undefined;
  if (isObject(raw.threadbase) && raw.threadbase.split !== undefined) return undefined;
  return raw;
}

/** An entry as kept in `threadbase.entry`, without what the record itself says (id, parent, time). */
function entryFields(e: Entry): JsonObject {
  const { id: _i, parentId: _p, timestamp: _t, raw: _r, rawSource: _s, ...rest } = e;
  return rest as unknown as JsonObject;
}

/**
 * A compaction as Qwen Code's own `chat_compression` record: the history it replaces the earlier
 * turns with (compressedHistory): the summary as a user turn, then the kept messages.
 */
function compressionPayload(c: CompactionEntry, before: Entry[], callNames: Map<string, string>): JsonObject {
  const start = c.firstKeptEntryId ? before.findIndex((e) => e.id === c.firstKeptEntryId) : -1;
  const keptMessages =
    start >= 0
      ? before.slice(start).flatMap((e) => (e.kind === 'message' && e.message.role !== 'system' ? [e.message] : []))
      : [];
  const compressedHistory = [{ role: 'user', parts: [{ text: c.summary }] }, ...keptMessages.map((m) => contentOf(m, callNames))];
  return {
    info: { originalTokenCount: c.tokensBefore ?? 0, newTokenCount: 0, compressionStatus: 1 },
    compressedHistory,
  };
}

/** Whether a value is a record threadbase wrote. */
export function writtenByThreadbase(rec: unknown): boolean {
  return isObject(rec) && rec.version === WRITER_VERSION;
}
