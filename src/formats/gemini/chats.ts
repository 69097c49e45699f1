/**
 * Gemini CLI saved chats and checkpoints, read into Sessions. Shapes from google-gemini/gemini-cli:
 * - packages/core/src/services/chatRecordingTypes.ts + chatRecordingService.ts (ConversationRecord,
 *   MessageRecord, ToolCallRecord, TokensSummary): `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.json`
 *   (one JSON document, older) or `.jsonl` (newer: a metadata line, then message records where a
 *   repeated id replaces the earlier one, `{$set: {...}}` metadata updates — `messages` replaces the
 *   whole list — and `{$rewindTo: id}` dropping that message and everything after it).
 *   Sub-agent chats sit in `chats/<main session id>/<id>.jsonl`.
 * - packages/core/src/core/logger.ts (saveCheckpoint): `/chat save <tag>` writes
 *   `~/.gemini/tmp/<project>/checkpoint-<tag>.json`, a Content[] or `{history: Content[], authType}`.
 * A rewind does not lose what was rewound: those messages stay as an abandoned branch of the tree.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname } from 'node:path';
import { prefixOf } from '../../model/text.js';
import { countMessages, firstUserLine } from '../../model/tree.js';
import type {
  Entry,
  FilePart,
  Message,
  ParseWarning,
  Part,
  Session,
  TextPart,
  ToolResultContent,
  ToolResultPart,
  Usage,
} from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { branchSummaryOf } from '../shared/branch-summary.js';
import { parseJson, readJsonl } from '../shared/jsonl.js';
import { writtenByOf } from '../shared/written-by.js';
import {
  CallIdPairer,
  cancelledMark,
  geminiParts,
  isObject,
  type JsonObject,
  str,
  toolCallResult,
  usageOfGeminiCounts,
  withKeptMessageFields,
} from './content.js';

export const SOURCE = 'gemini';
export const PROVIDER = 'google';

export interface ProjectDir {
  /** The folder under ~/.gemini/tmp (a slug, or the sha256 of the path in older versions). */
  dirName: string;
  /** The project's path, where it can be known (.project_root, projects.json). */
  project?: string;
}

/** Gemini CLI's `tokens` record in the model's terms. */
function tokens(t: unknown): Usage | undefined {
  if (!isObject(t)) return undefined;
  return usageOfGeminiCounts({ prompt: t.input, output: t.output, cached: t.cached, thoughts: t.thoughts });
}

/** User content Gemini CLI writes itself (isIgnoredUserContent in its resume): not typed by the user. */
function injectedKind(text: string): string | undefined {
  const t = text.trimStart();
  if (t.startsWith('<session_context>')) return 'session_context';
  if (t.startsWith('<hook_context>')) return 'hook_context';
  return undefined;
}

/** A message with the fields threadbase kept in a record's `threadbase` field (encode.ts keptMessageFields). */
function withKept(m: Message, kept: JsonObject | undefined): Message {
  if (!kept) return m;
  const out = withKeptMessageFields(m, kept);
  // null: the message named no provider (the reader says `google` for a reply without one)
  if (kept.provider === null) delete out.provider;
  return out;
}

/**
 * The text parts threadbase wrote for plain-text documents (encode.ts userRecord: `threadbase.textFiles`,
 * each by its index in the content) back as those documents.
 */
function withTextFiles(parts: Part[], textFiles: unknown): Part[] {
  if (!Array.isArray(textFiles)) return parts;
  const out = [...parts];
  for (const f of textFiles) {
    if (!isObject(f) || typeof f.at !== 'number' || typeof f.mediaType !== 'string') continue;
    const { at, ...file } = f;
    const p = out[at];
    if (p?.type === 'text') out[at] = { ...(file as Omit<FilePart, 'type' | 'text'>), type: 'file', text: p.text };
  }
  return out;
}

/**
 * A result's content as threadbase kept it beside its call (encode.ts keptResultContent): its texts and
 * plain-text documents, `{sibling: k}` for the k-th image or file read after its text (`read`); undefined
 * when it is not that, or names a part that is not there.
 */
function keptResultContent(kept: unknown, read: ToolResultPart['content']): ToolResultContent[] | undefined {
  if (!Array.isArray(kept)) return undefined;
  const binaries = typeof read === 'string' ? [] : read.filter((c) => c.type !== 'text');
  const out: ToolResultContent[] = [];
  for (const c of kept) {
    if (!isObject(c)) return undefined;
    if (c.type === 'text' && typeof c.text === 'string') out.push(c as unknown as TextPart);
    else if (c.type === 'file' && typeof c.text === 'string' && typeof c.mediaType === 'string')
      out.push(c as unknown as FilePart);
    else if (typeof c.sibling === 'number' && binaries[c.sibling]) out.push(binaries[c.sibling] as ToolResultContent);
    else return undefined;
  }
  return out;
}

/** A user message Gemini CLI wrote itself (marked by recordEntries). */
const geminiInjected = (m: Message): boolean => Boolean(m.meta?.geminiInjected);

/**
 * One MessageRecord as one or two entries. `answered` holds the call ids whose results are already
 * in the conversation: Gemini CLI records a tool's result both on the call (`toolCalls[].result`)
 * and, newer, as a user message of functionResponse parts (and on resume once more as `<id>_response`);
 * the model gets each result once here, the repeats stay as metadata entries.
 */
function recordEntries(rec: JsonObject, parentId: string | null, answered: Set<string>): Entry[] {
  const id = str(rec.id) as string;
  const timestamp = str(rec.timestamp) ?? new Date(0).toISOString();
  const type = str(rec.type);
  const base = { id, parentId, timestamp, raw: rec, rawSource: SOURCE } as const;
  const pairer = new CallIdPairer(`${id}:`);
  const kept = isObject(rec.threadbase) ? rec.threadbase : undefined;
  if (type === 'user' && kept && isObject(kept.compaction) && typeof kept.compaction.summary === 'string') {
    // a compaction threadbase wrote as the user turn Gemini sends for it (encode.ts)
    const c = kept.compaction;
    return [
      {
        ...base,
        kind: 'compaction',
        summary: c.summary as string,
        ...(typeof c.tokensBefore === 'number' ? { tokensBefore: c.tokensBefore } : {}),
        ...(isObject(c.usage) ? { usage: c.usage as unknown as Usage } : {}),
        ...(typeof c.cost === 'number' ? { cost: c.cost } : {}),
        ...(typeof c.model === 'string' ? { model: c.model } : {}),
      },
    ];
  }
  if (type === 'user' && kept?.branchSummary !== undefined) {
    const sent = geminiParts(rec.content, pairer)
      .flatMap((p) => (p.type === 'text' ? [p.text] : []))
      .join('\n');
    const summary = branchSummaryOf(kept.branchSummary, sent);
    if (summary) return [{ ...base, kind: 'branch_summary', ...summary }];
  }
  if (type === 'info' && kept?.role === 'system') {
    const texts = Array.isArray(kept.texts)
      ? kept.texts.filter((t): t is string => typeof t === 'string')
      : [typeof rec.content === 'string' ? rec.content : ''];
    const parts: Part[] = texts.map((text) => ({ type: 'text', text }));
    return [{ ...base, kind: 'message', message: withKept({ role: 'system', parts }, kept) }];
  }
  if (type === 'user') {
    const parts = withTextFiles(geminiParts(rec.content, pairer), kept?.textFiles);
    const onlyResults =
      parts.length > 0 && parts.every((p) => p.type === 'tool_result' || p.type === 'text' || p.type === 'image');
    const results = parts.filter((p) => p.type === 'tool_result');
    // the images and files a result returned go beside its functionResponse (convertToFunctionResponse's sibling parts)
    const resultsOnly = parts.every((p) => p.type === 'tool_result' || p.type === 'image' || p.type === 'file');
    if (results.length > 0 && resultsOnly && results.every((r) => answered.has(r.callId))) {
      return [{ ...base, kind: 'metadata', type: 'gemini:repeated_tool_response', data: { content: rec.content } }];
    }
    for (const r of results) answered.add(r.callId);
    const readRole = results.length > 0 && onlyResults ? 'tool' : 'user';
    const role = kept?.role === 'user' || kept?.role === 'tool' ? kept.role : readRole;
    const message: Message = withKept({ role, parts }, kept);
    const meta: JsonObject = {};
    if (rec.displayContent !== undefined) meta.displayContent = rec.displayContent;
    const injected = injectedKind(parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
    if (injected) meta.geminiInjected = injected;
    if (Object.keys(meta).length) message.meta = { ...message.meta, ...meta };
    return [{ ...base, kind: 'message', message }];
  }
  if (type === 'gemini') {
    const parts: Part[] = [];
    const content = geminiParts(rec.content, pairer).filter((p) => !(p.type === 'text' && p.text === '' && !p.meta));
    // A record Gemini CLI rewrote on resume ($set.messages) has its thoughts and calls in `content` too: its
    // replay (convertSessionToClientHistory) then sends content alone, neither `thoughts` nor `toolCalls`' calls.
    const inContent = content.some((p) => p.type === 'tool_call' || p.type === 'thinking');
    if (Array.isArray(rec.thoughts) && !inContent) {
      for (const t of rec.thoughts.filter(isObject)) {
        const subject = str(t.subject) ?? '';
        const description = str(t.description) ?? '';
        const tk = isObject(t.threadbase) ? t.threadbase : {};
        parts.push({
          type: 'thinking',
          // as Gemini CLI replays it on resume (convertSessionToClientHistory)
          thinking: subject ? `**${subject}** ${description}` : description,
          ...(typeof tk.signature === 'string' ? { signature: tk.signature } : {}),
          meta: {
            subject,
            timestamp: t.timestamp,
            ...(typeof tk.thoughtSignature === 'string' ? { thoughtSignature: tk.thoughtSignature } : {}),
          },
        });
      }
    }
    if (Array.isArray(kept?.redactedThinking))
      for (const data of kept.redactedThinking) if (typeof data === 'string') parts.push({ type: 'redacted_thinking', data });
    // the notes threadbase wrote for calls the provider ran itself, back as those calls (encode.ts)
    for (const pc of Array.isArray(kept?.providerCalls) ? kept.providerCalls.filter(isObject) : []) {
      const at = content.findIndex((p) => p.type === 'text' && p.text === pc.text);
      const call = pc.call;
      if (at >= 0 && isObject(call) && call.type === 'tool_call' && typeof call.id === 'string')
        content[at] = call as unknown as Part;
    }
    parts.push(...content);
    const calls = Array.isArray(rec.toolCalls) ? rec.toolCalls.filter(isObject) : [];
    const results: Part[] = [];
    for (const c of calls) {
      const name = str(c.name) ?? '';
      const callId = str(c.id) ?? pairer.call(name);
      const meta: JsonObject = {};
      const ck = isObject(c.threadbase) ? c.threadbase : {};
      // threadbase wrote a call's own status only from another agent's meta (encode.ts); else it says success
      for (const k of ['status', 'displayName', 'description', 'agentId', 'renderOutputAsMarkdown'])
        if (c[k] !== undefined) meta[k] = c[k];
      if (isObject(ck.meta)) Object.assign(meta, ck.meta);
      const sent = inContent ? parts.find((p) => p.type === 'tool_call' && p.id === callId) : undefined;
      if (sent?.type === 'tool_call') sent.meta = { ...sent.meta, ...meta };
      else parts.push({ type: 'tool_call', id: callId, name, input: isObject(c.args) ? c.args : {}, meta });
      if (c.result !== undefined && c.result !== null && !answered.has(callId)) {
        answered.add(callId);
        const r = toolCallResult(callId, name, c.result, str(c.status));
        if (c.resultDisplay !== undefined) r.meta = { ...(r.meta ?? {}), resultDisplay: c.resultDisplay };
        const rk = isObject(ck.result) ? ck.result : {};
        if (isObject(rk.meta)) r.meta = { ...(r.meta ?? {}), ...rk.meta };
        // declined, with another agent's words for it (threadbase kept the mark): not merely cancelled
        if (isObject(rk.meta) && rk.meta.refused === true && r.meta) delete r.meta.cancelled;
        if (rk.unnamed === true) delete r.name;
        // threadbase's own answer to a call left without one: no cancellation anyone made
        if (rk.synthetic === true) {
          const { cancelled: _c, refused: _r, ...rest } = r.meta ?? {};
          r.meta = { ...rest, geminiSynthetic: true };
        }
        const content = keptResultContent(rk.content, r.content);
        if (content) r.content = content;
        results.push(r);
      }
    }
    const message: Message = { role: 'assistant', parts, provider: PROVIDER };
    if (typeof rec.model === 'string') message.model = rec.model;
    const usage = tokens(rec.tokens);
    if (usage) message.usage = isObject(kept?.usage) ? { ...usage, ...(kept.usage as Partial<Usage>) } : usage;
    if (isObject(rec.tokens) && typeof rec.tokens.tool === 'number' && !(kept && rec.tokens.tool === 0))
      message.meta = { toolUsePromptTokens: rec.tokens.tool };
    const out: Entry[] = [{ ...base, kind: 'message', message: withKept(message, kept) }];
    if (results.length) {
      const last = calls[calls.length - 1];
      out.push({
        id: `${id}:results`,
        parentId: id,
        timestamp: str(last?.timestamp) ?? timestamp,
        kind: 'message',
        message: { role: 'tool', parts: results },
      });
    }
    return out;
  }
  // info / error / warning: shown to the user, never sent to the model.
  return [{ ...base, kind: 'metadata', type: `gemini:${type ?? 'unknown'}`, data: { content: rec.content } }];
}

interface ChatState {
  meta: JsonObject;
  records: Map<string, JsonObject>;
  /** message id → the message id before it when it was recorded (null at the root) */
  parents: Map<string, string | null>;
  /** the ids of the current conversation, in order */
  chain: string[];
  /**
   * call id → its ToolCallRecord in a version of a reply that a later one replaced without `toolCalls`
   * (a resume's `$set.messages` writes replies back with their calls in `content` and no status)
   */
  earlierCalls: Map<string, JsonObject>;
  /**
   * A compaction threadbase wrote (encode.ts: its summary first in a `$set.messages`) → the message it
   * follows and the messages it kept: in the model those stay before it, as in the session written.
   */
  compactions: Map<string, { parent: string | null; kept: Set<string> }>;
}

/** The user turn threadbase writes for a compaction (encode.ts), read back as one (recordEntries). */
const isCompactionRecord = (rec: JsonObject | undefined): boolean =>
  rec?.type === 'user' && isObject(rec.threadbase) && isObject(rec.threadbase.compaction);

/** The message ids from the root to `id`, by the parents recorded. */
function chainTo(state: ChatState, id: string | null): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let at = id; at !== null && !seen.has(at); at = state.parents.get(at) ?? null) {
    seen.add(at);
    out.unshift(at);
  }
  return out;
}

/** Keeps the calls of a reply recorded again without them (see ChatState.earlierCalls). */
function rememberCalls(state: ChatState, prev: JsonObject | undefined, next: JsonObject): void {
  if (!Array.isArray(prev?.toolCalls) || next.toolCalls !== undefined) return;
  for (const c of prev.toolCalls.filter(isObject)) if (typeof c.id === 'string') state.earlierCalls.set(c.id, c);
}

/**
 * A result of a call Gemini CLI recorded as `cancelled` in a version of its reply that a resume rewrote
 * without the status (the result then read from the user record alone) is marked as that version said:
 * refused or cancelled (cancelledMark; threadbase's kept mark first), threadbase's own answer neither.
 */
function markEarlierCancelled(entries: Entry[], earlierCalls: ReadonlyMap<string, JsonObject>): void {
  if (earlierCalls.size === 0) return;
  for (const e of entries) {
    if (e.kind !== 'message') continue;
    for (const p of e.message.parts) {
      if (p.type !== 'tool_result' || p.meta?.refused !== undefined || p.meta?.cancelled !== undefined) continue;
      const call = earlierCalls.get(p.callId);
      if (call?.status !== 'cancelled') continue;
      const kept = isObject(call.threadbase) && isObject(call.threadbase.result) ? call.threadbase.result : {};
      if (kept.synthetic === true) continue;
      const mark = isObject(kept.meta) && kept.meta.refused === true ? { refused: true } : cancelledMark(p.content);
      p.isError = true;
      p.meta = { ...p.meta, ...mark };
    }
  }
}

/**
 * A message recorded again without the tokens it was recorded with keeps them: a resumed chat's
 * `$set messages` writes the earlier replies back without their tokens, and those requests were made.
 */
function withRecordedTokens(prev: JsonObject | undefined, next: JsonObject): JsonObject {
  if (next.tokens != null || prev?.tokens == null) return next;
  return { ...next, tokens: prev.tokens, ...(next.model === undefined && prev.model !== undefined ? { model: prev.model } : {}) };
}

/**
 * A message a `$set.messages` writes again is the one recorded: its tokens (withRecordedTokens), and the
 * time and `threadbase` fields it was recorded with where the rewrite has none of its own. Gemini CLI 0.61
 * resuming a chat whose file it also opened for its fresh session (a name of the same minute and id)
 * writes the conversation back from its history: the times of the resume, our fields left out
 * (test/agents/roundtrip-gemini.test.ts).
 */
function asRecorded(prev: JsonObject | undefined, next: JsonObject): JsonObject {
  const out = withRecordedTokens(prev, next);
  if (!prev) return out;
  return {
    ...out,
    ...(typeof prev.timestamp === 'string' ? { timestamp: prev.timestamp } : {}),
    ...(out.threadbase == null && prev.threadbase != null ? { threadbase: prev.threadbase } : {}),
  };
}

function applyRecord(state: ChatState, rec: unknown, place: { file: string; line?: number }, warnings: ParseWarning[]): void {
  if (!isObject(rec)) {
    warnings.push({ ...place, message: 'record is not a JSON object' });
    return;
  }
  if (typeof rec.$rewindTo === 'string') {
    const at = state.chain.indexOf(rec.$rewindTo);
    state.chain = at >= 0 ? state.chain.slice(0, at) : [];
    return;
  }
  if (isObject(rec.$set)) {
    const { messages, ...rest } = rec.$set;
    Object.assign(state.meta, rest);
    if (Array.isArray(messages)) {
      const listed = messages.filter((m): m is JsonObject => isObject(m) && typeof m.id === 'string');
      // A compaction threadbase wrote (its summary first; a resume writes the list again, its own
      // `<session_context>` before it): the conversation before it stays the path to it, the messages it
      // kept where they were; what follows hangs from it.
      const at = listed.findIndex((m) => isCompactionRecord(m) || isCompactionRecord(state.records.get(m.id as string)));
      const compactionId = at >= 0 ? (listed[at]?.id as string) : undefined;
      const compaction = compactionId
        ? (state.compactions.get(compactionId) ?? {
            parent: state.chain[state.chain.length - 1] ?? null,
            kept: new Set(listed.slice(at + 1).flatMap((m) => (state.chain.includes(m.id as string) ? [m.id as string] : []))),
          })
        : undefined;
      if (compaction && compactionId) state.compactions.set(compactionId, compaction);
      // Else the whole conversation replaced (history masking, compression): re-link in the new order.
      const ids: string[] = compaction ? chainTo(state, compaction.parent) : [];
      for (const m of listed) {
        const id = m.id as string;
        rememberCalls(state, state.records.get(id), m);
        state.records.set(id, asRecorded(state.records.get(id), m));
        if (compaction?.kept.has(id) || ids.includes(id)) continue;
        state.parents.set(id, ids[ids.length - 1] ?? null);
        ids.push(id);
      }
      state.chain = ids;
    }
    return;
  }
  if (typeof rec.id === 'string') {
    if (!state.records.has(rec.id)) {
      state.parents.set(rec.id, state.chain[state.chain.length - 1] ?? null);
      state.chain.push(rec.id);
    } else if (!state.chain.includes(rec.id)) {
      state.parents.set(rec.id, state.chain[state.chain.length - 1] ?? null);
      state.chain.push(rec.id);
    }
    // A repeated id is the same message updated (tool calls, tokens added): the last one wins.
    rememberCalls(state, state.records.get(rec.id), rec);
    state.records.set(rec.id, withRecordedTokens(state.records.get(rec.id), rec));
    return;
  }
  if (typeof rec.sessionId === 'string') {
    Object.assign(state.meta, rec);
    return;
  }
  warnings.push({ ...place, message: 'unknown Gemini chat record (no id, sessionId, $set or $rewindTo)' });
}

/**
 * The results Gemini CLI sends twice on resume (from the call, then the user record of
 * functionResponse parts it recorded): that record's parts kept on the tool message that holds the
 * results, as `meta.geminiResent`, so the context's Gemini form (context.ts) sends them again.
 */
function markResent(entries: Entry[]): void {
  const byCall = new Map<string, Message>();
  for (const e of entries) {
    if (e.kind === 'message' && e.message.role === 'tool')
      for (const p of e.message.parts) if (p.type === 'tool_result') byCall.set(p.callId, e.message);
    if (e.kind !== 'metadata' || e.type !== 'gemini:repeated_tool_response' || !isObject(e.data)) continue;
    const content = e.data.content;
    const first = geminiParts(content, new CallIdPairer(`${e.id}:`)).find((p) => p.type === 'tool_result');
    const m = first?.type === 'tool_result' ? byCall.get(first.callId) : undefined;
    if (!m) continue;
    const prev = Array.isArray(m.meta?.geminiResent) ? (m.meta.geminiResent as unknown[]) : [];
    m.meta = { ...m.meta, geminiResent: [...prev, ...(Array.isArray(content) ? content : [content])] };
  }
}

/**
 * A sub-agent chat's title: its task, the first line of the prompt it was given (its first user turn,
 * shortened as every title), as Gemini CLI shows a sub-agent by what it was asked. Its `summary` is no
 * title: LocalAgentExecutor saves the complete_task result there (`{"response": …}` JSON); it stands in
 * only for a chat without a user turn, its `response` taken out and shortened alike.
 */
function subagentTitle(firstLine: string | undefined, summary: string | undefined): string | undefined {
  if (firstLine !== undefined || summary === undefined) return firstLine;
  let text = summary;
  try {
    const v: unknown = JSON.parse(summary);
    if (typeof v === 'string') text = v;
    else if (isObject(v) && typeof v.response === 'string') text = v.response;
  } catch {
    // not JSON: the summary as it is
  }
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line ? prefixOf(line, 100) : undefined;
}

/**
 * The session's own last time threadbase kept when it wrote the chat with the time of the write as `lastUpdated`
 * (driver.ts writeSession: Gemini CLI's session cleanup compares that one), while that is still the time of
 * the write; a later `lastUpdated` is Gemini CLI's, the chat carried on there.
 */
function keptLastUpdated(meta: JsonObject): string | undefined {
  const kept = isObject(meta.threadbase) ? meta.threadbase : undefined;
  const writtenAt = str(kept?.writtenAt);
  return writtenAt !== undefined && str(meta.lastUpdated) === writtenAt ? str(kept?.lastUpdated) : undefined;
}

/** A file of one JSON document (an older chat, a checkpoint); one that does not read or parse is a warning and undefined. */
async function readJsonDocument(file: string, warnings: ParseWarning[]): Promise<unknown> {
  try {
    return parseJson(await fs.readFile(file, 'utf8'));
  } catch (err) {
    warnings.push({ file, message: `malformed JSON: ${(err as Error).message}` });
    return undefined;
  }
}

export async function readChat(file: string, where: ProjectDir): Promise<Session> {
  const warnings: ParseWarning[] = [];
  const state: ChatState = {
    meta: {},
    records: new Map(),
    parents: new Map(),
    chain: [],
    earlierCalls: new Map(),
    compactions: new Map(),
  };
  if (file.endsWith('.jsonl')) {
    for await (const l of readJsonl(file)) {
      if (l.error) warnings.push({ file, line: l.line, message: l.error });
      else applyRecord(state, l.value, { file, line: l.line }, warnings);
    }
  } else {
    const doc = await readJsonDocument(file, warnings);
    if (isObject(doc)) {
      const { messages, ...meta } = doc;
      state.meta = meta;
      if (Array.isArray(messages)) for (const m of messages) applyRecord(state, m, { file }, warnings);
    }
  }

  const entries: Entry[] = [];
  const lastEntryOf = new Map<string, string>();
  const answered = new Set<string>();
  const built: { parentMsg: string | null; es: Entry[] }[] = [];
  for (const [id, rec] of state.records) {
    const es = recordEntries(rec, null, answered);
    lastEntryOf.set(id, es[es.length - 1]?.id ?? id);
    built.push({ parentMsg: state.parents.get(id) ?? null, es });
  }
  // A message hangs from the last entry of the message before it (its tool results, when it has them).
  for (const { parentMsg, es } of built) {
    const first = es[0];
    if (first) first.parentId = parentMsg === null ? null : (lastEntryOf.get(parentMsg) ?? parentMsg);
    entries.push(...es);
  }
  // a compaction's kept messages start at the first of them still on the path to it
  for (const e of entries) {
    const kept = e.kind === 'compaction' ? state.compactions.get(e.id)?.kept : undefined;
    const firstKept = kept && chainTo(state, e.id).find((id) => kept.has(id));
    if (e.kind === 'compaction' && firstKept) e.firstKeptEntryId = firstKept;
  }
  markResent(entries);
  markEarlierCancelled(entries, state.earlierCalls);
  const leafMsg = state.chain[state.chain.length - 1];
  const leafId = leafMsg ? (lastEntryOf.get(leafMsg) ?? leafMsg) : null;

  const meta = state.meta;
  const id = str(meta.sessionId) ?? basename(file).replace(/\.jsonl?$/, '');
  const createdAt = str(meta.startTime) ?? entries[0]?.timestamp ?? new Date(0).toISOString();
  const updatedAt = keptLastUpdated(meta) ?? str(meta.lastUpdated) ?? entries[entries.length - 1]?.timestamp ?? createdAt;
  const chainEntries = new Set(state.chain.flatMap((m) => [m, `${m}:results`]));
  const usage = summarizeUsage(entries);
  const parentDir = basename(dirname(file));
  const isSubagent = meta.kind === 'subagent' || parentDir !== 'chats';
  const firstLine = firstUserLine(
    entries.filter((e) => chainEntries.has(e.id)),
    geminiInjected,
  );
  return {
    id,
    source: SOURCE,
    project: where.project,
    title: isSubagent ? subagentTitle(firstLine, str(meta.summary)) : (str(meta.summary) ?? firstLine),
    createdAt,
    updatedAt,
    messageCount: countMessages(entries.filter((e) => chainEntries.has(e.id))),
    parentId: isSubagent && parentDir !== 'chats' ? parentDir : null,
    models: usage.models,
    usage: usage.usage,
    ...usageByModelOf(usage),
    path: file,
    meta: {
      projectDir: where.dirName,
      ...(meta.projectHash ? { projectHash: meta.projectHash } : {}),
      ...(meta.kind ? { kind: meta.kind } : {}),
      ...(Array.isArray(meta.directories) ? { directories: meta.directories } : {}),
    },
    ...(Array.isArray(meta.directories)
      ? { directories: meta.directories.filter((d): d is string => typeof d === 'string') }
      : {}),
    ...writtenByOf(isObject(meta.threadbase) ? meta.threadbase.writtenBy : undefined),
    entries,
    leafId,
    warnings,
    raw: meta,
  };
}

/** `checkpoint-<tag>.json` (tag URI-encoded in newer versions) → the tag. */
export function checkpointTag(file: string): string {
  const raw = basename(file)
    .replace(/^checkpoint-/, '')
    .replace(/\.json$/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function checkpointId(where: ProjectDir, file: string): string {
  return `checkpoint:${where.dirName}:${checkpointTag(file)}`;
}

/** A `/chat save` checkpoint: the Gemini API history (Content[]) as it stood. */
export async function readCheckpoint(file: string, where: ProjectDir): Promise<Session> {
  const warnings: ParseWarning[] = [];
  const st = await fs.stat(file);
  const timestamp = st.mtime.toISOString();
  const doc = await readJsonDocument(file, warnings);
  const history = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.history) ? doc.history : [];
  if (doc !== undefined && !Array.isArray(doc) && !(isObject(doc) && Array.isArray(doc.history))) {
    warnings.push({ file, message: 'unknown checkpoint shape (neither Content[] nor {history})' });
  }
  const pairer = new CallIdPairer('call:');
  const entries: Entry[] = [];
  history.forEach((c, i) => {
    if (!isObject(c)) {
      warnings.push({ file, id: `c${i}`, message: `history item ${i} is not an object` });
      return;
    }
    const parts = geminiParts(c.parts, pairer);
    const role = str(c.role) === 'model' ? 'assistant' : parts.some((p) => p.type === 'tool_result') ? 'tool' : 'user';
    const message: Message = { role, parts, ...(role === 'assistant' ? { provider: PROVIDER } : {}) };
    entries.push({
      id: `c${i}`,
      parentId: entries[entries.length - 1]?.id ?? null,
      timestamp,
      kind: 'message',
      message,
      raw: c,
      rawSource: SOURCE,
    });
  });
  const tag = checkpointTag(file);
  return {
    id: checkpointId(where, file),
    source: SOURCE,
    project: where.project,
    title: `checkpoint ${tag}: ${firstUserLine(entries, geminiInjected) ?? ''}`.trim(),
    createdAt: timestamp,
    updatedAt: timestamp,
    messageCount: countMessages(entries),
    parentId: null,
    path: file,
    meta: { projectDir: where.dirName, checkpoint: tag, ...(isObject(doc) && doc.authType ? { authType: doc.authType } : {}) },
    entries,
    warnings,
    raw: isObject(doc) ? { ...doc, history: undefined } : undefined,
  };
}
