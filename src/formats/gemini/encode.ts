/**
 * A session of the model as a Gemini CLI JSONL chat (packages/core/src/services/chatRecordingService.ts,
 * 0.61.0): a metadata line, then one MessageRecord a line. An assistant turn is one `gemini` record
 * (Claude Code's split responses merged), its thinking as `thoughts`, its tool calls as `toolCalls`
 * with their results on them (`result`: functionResponse parts), and the results again as the `user`
 * record of functionResponse parts Gemini CLI records after it. What Gemini CLI has no field for is
 * kept in a `threadbase` field on the record (Gemini CLI loads records as JSON and leaves it alone;
 * chats.ts reads it back).
 */

import { declinedMarkOf } from '../../convert/declined.js';
import { providerCallOf, providerCallsAsNotes } from '../../convert/provider-tools.js';
import { pathToLeaf } from '../../model/tree.js';
import type { CompactionEntry, Entry, Message, ThinkingPart, ToolCallPart, ToolResultPart, Usage } from '../../model/types.js';
import { branchSummaryField } from '../shared/branch-summary.js';
import { cancelledMark, geminiCountsOf, type JsonObject, KEPT_MESSAGE_FIELDS } from './content.js';
import { functionResponseParts, geminiPart, isTextFile } from './parts.js';

/** Usage fields a Gemini `tokens` record cannot hold, kept in `threadbase.usage`. */
const USAGE_EXTRAS = ['cacheWrite', 'cacheWrite1h', 'webSearches', 'speed', 'inferenceGeo', 'advisors'] as const;

/** Gemini's `tokens` (input with the cached, output without the thoughts) and what does not fit them. */
export function geminiTokens(u: Usage, toolUsePromptTokens: unknown): { tokens: JsonObject; extra?: JsonObject } {
  const { prompt: input, output, cached, thoughts } = geminiCountsOf(u);
  const tool = typeof toolUsePromptTokens === 'number' ? toolUsePromptTokens : 0;
  const tokens = { input, output, cached, thoughts, tool, total: input + output + thoughts };
  const extra: JsonObject = {};
  for (const k of USAGE_EXTRAS) if (u[k] !== undefined && u[k] !== 0) extra[k] = u[k];
  // reasoning not counted in output (a source that gives them apart): both kept as they were
  if (u.output < u.reasoning) Object.assign(extra, { output: u.output, reasoning: u.reasoning });
  return Object.keys(extra).length ? { tokens, extra } : { tokens };
}

/**
 * A result's content as threadbase keeps it beside the call, where `output` and the parts after the
 * functionResponse do not read back as it: its texts and plain-text documents as they are, each image
 * or binary file as `{sibling: k}`, the k-th part after the functionResponse (chats.ts reads it back).
 */
function keptResultContent(content: ToolResultPart['content']): JsonObject[] | undefined {
  if (typeof content === 'string') return undefined;
  const texts = content.every((c) => c.type === 'text');
  if (!texts && !content.some(isTextFile)) return undefined;
  const binaries = content.filter((c) => c.type !== 'text' && !isTextFile(c));
  return content.map((c) =>
    c.type === 'text' || isTextFile(c) ? (c as unknown as JsonObject) : { sibling: binaries.indexOf(c) },
  );
}

/** A thinking part as Gemini's thought: `**subject** description` split back as its reader joined it. */
function thought(p: ThinkingPart, timestamp: string): JsonObject {
  const subject = typeof p.meta?.subject === 'string' ? p.meta.subject : '';
  const prefix = `**${subject}** `;
  const description = subject && p.thinking.startsWith(prefix) ? p.thinking.slice(prefix.length) : p.thinking;
  const kept: JsonObject = {};
  if (p.signature !== undefined) kept.signature = p.signature;
  if (typeof p.meta?.thoughtSignature === 'string') kept.thoughtSignature = p.meta.thoughtSignature;
  return {
    subject: description === p.thinking ? '' : subject,
    description,
    timestamp: typeof p.meta?.timestamp === 'string' ? p.meta.timestamp : timestamp,
    ...(Object.keys(kept).length ? { threadbase: kept } : {}),
  };
}

/** Fields of a message the Gemini record has no place for. */
function keptMessageFields(m: Message, skip: readonly string[] = []): JsonObject {
  const kept: JsonObject = {};
  // the reader says `google` for a reply without one; null keeps that it named none
  if (m.provider !== 'google' && (m.provider !== undefined || m.role === 'assistant')) kept.provider = m.provider ?? null;
  for (const k of KEPT_MESSAGE_FIELDS) if (m[k] !== undefined) kept[k] = m[k];
  const meta = Object.fromEntries(Object.entries(m.meta ?? {}).filter(([k]) => !skip.includes(k)));
  if (Object.keys(meta).length) kept.meta = meta;
  return kept;
}

const TOOL_CALL_FIELDS = ['status', 'displayName', 'description', 'agentId', 'renderOutputAsMarkdown'] as const;

interface Encoder {
  records: JsonObject[];
  warnings: string[];
  /** call id → the toolCalls record of the gemini record that made it */
  calls: Map<string, JsonObject>;
}

function assistantRecord(enc: Encoder, id: string, timestamp: string, msgs: Message[]): JsonObject {
  const thoughts: JsonObject[] = [];
  const content: JsonObject[] = [];
  const toolCalls: JsonObject[] = [];
  const redacted: string[] = [];
  const providerCalls: JsonObject[] = [];
  // calls the provider ran itself (codex's web searches) owe no result: Gemini gets their note as text
  for (const m of msgs.map(providerCallsAsNotes)) {
    for (const p of m.parts) {
      const ran = providerCallOf(p);
      if (ran && p.type === 'text') providerCalls.push({ text: p.text, call: ran });
      if (p.type === 'thinking') thoughts.push(thought(p, timestamp));
      else if (p.type === 'redacted_thinking') redacted.push(p.data);
      else if (p.type === 'tool_call') toolCalls.push(toolCallRecord(p, timestamp));
      else if (p.type === 'tool_result')
        enc.warnings.push(`entry ${id}: a tool result in an assistant message has no Gemini form; left out`);
      else {
        const c = geminiPart(p);
        if (c) content.push(c);
      }
    }
  }
  const last = msgs[msgs.length - 1] as Message;
  const usageOf = [...msgs].reverse().find((m) => m.usage)?.usage;
  const model = [...msgs].reverse().find((m) => m.model)?.model;
  const rec: JsonObject = {
    id,
    timestamp,
    type: 'gemini',
    // one text part is recorded as a string, as Gemini CLI records its replies
    content:
      content.length === 0
        ? ''
        : content.length === 1 && Object.keys(content[0] as JsonObject).join() === 'text'
          ? (content[0] as JsonObject).text
          : content,
    thoughts,
  };
  const kept = keptMessageFields(last, ['toolUsePromptTokens']);
  if (usageOf) {
    const { tokens, extra } = geminiTokens(usageOf, last.meta?.toolUsePromptTokens);
    rec.tokens = tokens;
    if (extra) kept.usage = extra;
  }
  if (model) rec.model = model;
  if (toolCalls.length) rec.toolCalls = toolCalls;
  if (redacted.length) kept.redactedThinking = redacted;
  if (providerCalls.length) kept.providerCalls = providerCalls;
  if (msgs.length > 1) kept.mergedFrom = msgs.length;
  if (Object.keys(kept).length) rec.threadbase = kept;
  for (const c of toolCalls) enc.calls.set(c.id as string, c);
  return rec;
}

function toolCallRecord(p: ToolCallPart, timestamp: string): JsonObject {
  const rec: JsonObject = { id: p.id, name: p.name, args: p.input, status: 'success', timestamp };
  for (const k of TOOL_CALL_FIELDS) if (p.meta?.[k] !== undefined) rec[k] = p.meta[k];
  const kept = Object.fromEntries(
    Object.entries(p.meta ?? {}).filter(([k]) => !(TOOL_CALL_FIELDS as readonly string[]).includes(k)),
  );
  if (Object.keys(kept).length) rec.threadbase = { meta: kept };
  return rec;
}

/** A user or tool message as a `user` record; its results are put on the calls they answer too. */
function userRecord(enc: Encoder, e: Entry & { kind: 'message' }): JsonObject {
  const m = e.message;
  const content: JsonObject[] = [];
  /** the text documents among the content, by their index there */
  const textFiles: JsonObject[] = [];
  for (const p of m.parts) {
    if (p.type === 'tool_result') {
      const call = enc.calls.get(p.callId);
      const name = p.name ?? (typeof call?.name === 'string' ? call.name : '');
      const parts = functionResponseParts(p, name);
      content.push(...parts);
      if (call && call.result === undefined) {
        call.result = parts;
        // the reader times the results by their call's time (when Gemini CLI finished it)
        call.timestamp = e.timestamp;
        // a call the user declined, or one cancelled: `cancelled`, as Gemini CLI records one (its error the result)
        const cancelled = declinedMarkOf(p) !== undefined;
        call.status = cancelled
          ? 'cancelled'
          : p.isError
            ? 'error'
            : call.status === 'error' || call.status === 'cancelled'
              ? 'success'
              : call.status;
        if (p.meta?.resultDisplay !== undefined) call.resultDisplay = p.meta.resultDisplay;
        // the mark the reader makes of that status and the error's text again is not kept
        const inferred = cancelled ? Object.keys(cancelledMark(p.content)) : [];
        const kept = Object.fromEntries(
          Object.entries(p.meta ?? {}).filter(
            ([k]) => k !== 'resultDisplay' && k !== 'response' && !(inferred.includes(k) && p.meta?.[k] === true),
          ),
        );
        // text given as parts (not one string), or with plain-text documents: the parts, which `output` joins
        const keptContent = keptResultContent(p.content);
        const texts = keptContent ? { content: keptContent } : {};
        if (p.name === undefined || Object.keys(kept).length || texts.content)
          call.threadbase = {
            ...(call.threadbase as JsonObject | undefined),
            result: {
              ...(p.name === undefined ? { unnamed: true } : {}),
              ...(Object.keys(kept).length ? { meta: kept } : {}),
              ...texts,
            },
          };
      } else if (!call) enc.warnings.push(`entry ${e.id}: result for call ${p.callId}, which no earlier assistant message made`);
    } else if (p.type === 'thinking' || p.type === 'redacted_thinking' || p.type === 'tool_call') {
      enc.warnings.push(`entry ${e.id}: a ${p.type} part in a ${m.role} message has no Gemini form; left out`);
    } else {
      const c = geminiPart(p);
      if (!c) continue;
      // a plain-text document is sent as its text: what made it a document kept to read it back as one
      if (p.type === 'file' && p.text !== undefined) {
        const { type: _t, text: _x, ...file } = p;
        textFiles.push({ at: content.length, ...file });
      }
      content.push(c);
    }
  }
  const rec: JsonObject = { id: e.id, timestamp: e.timestamp, type: 'user', content };
  const skip = ['displayContent', 'geminiInjected', 'geminiResent'];
  if (m.meta?.displayContent !== undefined) rec.displayContent = m.meta.displayContent;
  const kept = keptMessageFields(m, skip);
  // the role chats.ts reads a user record as, where the message had the other
  const results = m.parts.some((p) => p.type === 'tool_result');
  const readAs = results && m.parts.every((p) => ['tool_result', 'text', 'image'].includes(p.type)) ? 'tool' : 'user';
  if (m.role !== readAs) kept.role = m.role;
  if (textFiles.length) kept.textFiles = textFiles;
  if (Object.keys(kept).length) rec.threadbase = kept;
  return rec;
}

/**
 * The path split at its last compaction: what came before it, and the conversation from it on
 * (the summary, the entries it kept, what follows). Gemini CLI compresses a chat the same way: a
 * `$set.messages` that replaces the conversation, the earlier records staying in the file.
 */
function splitAtCompaction(entries: Entry[]): { before: Entry[]; from: Entry[]; kept: Entry[] } {
  const at = entries.findLastIndex((e) => e.kind === 'compaction');
  if (at < 0) return { before: [], from: entries, kept: [] };
  const c = entries[at] as CompactionEntry;
  const keptFrom = c.firstKeptEntryId ? entries.findIndex((e) => e.id === c.firstKeptEntryId) : -1;
  const kept = keptFrom >= 0 && keptFrom < at ? entries.slice(keptFrom, at) : [];
  return { before: entries.slice(0, at), from: [c, ...entries.slice(at + 1)], kept };
}

/**
 * The current branch of a session as Gemini chat records (after the metadata line): the messages in
 * order, a compaction's and a branch summary's text as a user turn (the entry kept in `threadbase`),
 * system messages as `info` records (shown, not sent), metadata and settings records left out.
 */
export function encodeChatRecords(session: { entries: Entry[]; leafId?: string | null }): {
  records: JsonObject[];
  warnings: string[];
} {
  const enc: Encoder = { records: [], warnings: [], calls: new Map() };
  const path = session.entries.length ? pathToLeaf({ entries: session.entries, leafId: session.leafId ?? null }) : [];
  const { before, from, kept } = splitAtCompaction(path);
  const skipped = new Map<string, number>();
  const ids = new Map<string, JsonObject>();
  const encode = (entries: Entry[]) => {
    const start = enc.records.length;
    encodeEntries(enc, entries, skipped);
    for (const r of enc.records.slice(start)) ids.set(r.id as string, r);
    return enc.records.slice(start);
  };
  encode(before);
  if (before.length === 0) encode(from);
  else {
    // the conversation from the compaction on replaces the one before it, as Gemini CLI's own
    // compression does; Gemini CLI loads the last `$set.messages` whole, so what follows is in it too
    const [summary, ...after] = encode(from);
    const keptRecords = kept.flatMap((e) => (ids.has(e.id) ? [ids.get(e.id) as JsonObject] : []));
    enc.records = [
      ...enc.records.slice(0, enc.records.length - after.length - 1),
      { $set: { messages: [summary, ...keptRecords, ...after] } },
    ];
  }
  answerUnanswered(enc);
  enc.warnings.push(...skippedWarnings(skipped));
  return { records: enc.records, warnings: enc.warnings };
}

/** One line per kind of entry left out; the metadata records in one line, with how many of each type. */
function skippedWarnings(skipped: Map<string, number>): string[] {
  const out: string[] = [];
  const metadata: string[] = [];
  let metadataCount = 0;
  for (const [what, n] of skipped) {
    if (what.startsWith('metadata:')) {
      metadata.push(`${n} ${what.slice('metadata:'.length)}`);
      metadataCount += n;
    } else out.push(`${n} ${what} have no Gemini record; left out`);
  }
  if (metadataCount) out.push(`${metadataCount} metadata records (${metadata.join(', ')}) have no Gemini record; left out`);
  return out;
}

/**
 * The time of the last record written: the last message of a `$set.messages` record (which has no
 * timestamp of its own) where the records end with one, as they do after a compaction.
 */
export function lastRecordTime(records: readonly JsonObject[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i] as JsonObject;
    const set = r.$set as { messages?: unknown } | undefined;
    const rs = Array.isArray(set?.messages) ? (set.messages as JsonObject[]) : [r];
    for (let j = rs.length - 1; j >= 0; j--) {
      const at = rs[j]?.timestamp;
      if (typeof at === 'string') return at;
    }
  }
  return undefined;
}

/** The result written for a call that has none: the Gemini API refuses a call without its response. */
export const NO_RESULT = 'No result was recorded for this call.';

/**
 * A call without a result (a session that ended mid-turn) gets an error result, as the Gemini API
 * needs one after every call and Gemini CLI sends only recorded ones; marked `synthetic`, read back
 * with `meta.geminiSynthetic`.
 */
function answerUnanswered(enc: Encoder): void {
  let n = 0;
  for (const call of enc.calls.values()) {
    if (call.result !== undefined) continue;
    n++;
    call.result = [{ functionResponse: { id: call.id, name: call.name, response: { error: NO_RESULT } } }];
    call.status = 'cancelled';
    const tb = (call.threadbase as JsonObject | undefined) ?? {};
    call.threadbase = { ...tb, result: { ...(tb.result as JsonObject | undefined), synthetic: true } };
  }
  if (n) enc.warnings.push(`${n} tool calls had no result; written with an error result (${NO_RESULT}) that Gemini CLI sends`);
}

function encodeEntries(enc: Encoder, path: Entry[], skipped: Map<string, number>): void {
  for (let i = 0; i < path.length; i++) {
    const e = path[i] as Entry;
    if (e.kind === 'message' && e.message.role === 'assistant') {
      // one API response split over records (same responseId) is one Gemini turn
      const msgs = [e.message];
      // dated by the record whose usage counts (countedUsage: the last with usage or a cost, else the
      // last), so the copy's response is that record's copy (copyKeyOf: response id and time), counted once
      let counted: Entry = e;
      while (true) {
        const next = path[i + 1];
        if (
          next?.kind !== 'message' ||
          next.message.role !== 'assistant' ||
          !e.message.responseId ||
          next.message.responseId !== e.message.responseId
        )
          break;
        msgs.push(next.message);
        i++;
        const c = counted.kind === 'message' ? counted.message : undefined;
        const countsHere = next.message.usage !== undefined || next.message.cost !== undefined;
        if (countsHere || (c?.usage === undefined && c?.cost === undefined)) counted = next;
      }
      enc.records.push(assistantRecord(enc, e.id, counted.timestamp, msgs));
    } else if (e.kind === 'message' && e.message.role === 'system') {
      const texts = e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
      enc.records.push({
        id: e.id,
        timestamp: e.timestamp,
        type: 'info',
        content: texts.join('\n'),
        threadbase: { role: 'system', ...(texts.length > 1 ? { texts } : {}), ...keptMessageFields(e.message) },
      });
    } else if (e.kind === 'message') {
      enc.records.push(userRecord(enc, e));
    } else if (e.kind === 'branch_summary') {
      enc.records.push({
        id: e.id,
        timestamp: e.timestamp,
        type: 'user',
        content: [{ text: e.text ?? e.summary }],
        threadbase: { branchSummary: branchSummaryField(e) },
      });
    } else if (e.kind === 'compaction') {
      const { id, timestamp, summary, tokensBefore, usage, cost, model } = e;
      enc.records.push({
        id,
        timestamp,
        type: 'user',
        content: [{ text: summary }],
        threadbase: {
          compaction: {
            summary,
            ...(tokensBefore !== undefined ? { tokensBefore } : {}),
            ...(usage ? { usage } : {}),
            ...(cost !== undefined ? { cost } : {}),
            ...(model ? { model } : {}),
          },
        },
      });
    } else if (e.kind === 'metadata' && /^gemini:(info|error|warning)$/.test(e.type)) {
      const data = e.data as { content?: unknown } | undefined;
      enc.records.push({ id: e.id, timestamp: e.timestamp, type: e.type.slice('gemini:'.length), content: data?.content ?? '' });
    } else if (!(e.kind === 'metadata' && e.type === 'gemini:repeated_tool_response')) {
      const what = e.kind === 'metadata' ? `metadata:${e.type}` : `${e.kind} entries`;
      skipped.set(what, (skipped.get(what) ?? 0) + 1);
    }
  }
}
