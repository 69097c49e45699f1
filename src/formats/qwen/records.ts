/**
 * Qwen Code chats, read into Sessions. Shapes from QwenLM/qwen-code 0.24 (bundled in
 * @qwen-code/qwen-code: chatRecordingService, transcript-record preparation):
 * `<runtime dir>/projects/<sanitized cwd>/chats/<session id>.jsonl`, one ChatRecord a line:
 * `{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, subtype?,
 * cwd, version, message?: Content (Gemini API: role + parts), usageMetadata?, model?,
 * toolCallResult?, systemPayload?}`. Records make a tree by uuid/parentUuid; Qwen Code resumes the
 * chain ending at the last record; records repeating a uuid are fragments of one record (their
 * parts joined). Content parts are Gemini's, read by the Gemini folder's geminiParts.
 */
import { basename } from 'node:path';
import { markDeclined } from '../../convert/declined.js';
import { countMessages, firstUserLine, pathToLeaf, resultText } from '../../model/tree.js';
import type { Entry, Message, ParseWarning, Part, Session, Usage } from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import {
  CallIdPairer,
  geminiParts,
  isObject,
  type JsonObject,
  str,
  usageOfGeminiCounts,
  withKeptMessageFields,
} from '../gemini/content.js';
import { type JsonlLine, readJsonl } from '../shared/jsonl.js';
import { cutParentCycles } from '../shared/parent-cycles.js';
import { writtenByOf } from '../shared/written-by.js';
import { qwenDeclinedMark } from './denials.js';

export const SOURCE = 'qwen';

/** User-record subtypes Qwen Code writes itself (background notices, scheduled prompts), not the user. */
const INJECTED_USER_SUBTYPES = new Set(['notification', 'cron', 'goal_runtime', 'background_task_completed']);

/** System subtypes that are not part of the conversation chain (Qwen Code never takes one as the leaf). */
const NOT_CONVERSATION = new Set(['session_artifact_event', 'session_artifact_snapshot', 'session_sources_snapshot']);

const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);

/** Qwen's usageMetadata (Gemini's) in the model's terms. */
export function usageOf(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  return usageOfGeminiCounts({
    prompt: u.promptTokenCount,
    output: u.candidatesTokenCount,
    cached: u.cachedContentTokenCount,
    thoughts: u.thoughtsTokenCount,
  });
}

/**
 * Content parts as model parts. A thought's `thoughtSignature` is the provider's signature (Qwen Code
 * sends it back as Anthropic's `signature`), so it becomes the thinking part's signature.
 */
export function partsOf(content: unknown, pairer: CallIdPairer): Part[] {
  const raw = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
  // a thought part without text (OpenAI Responses reasoning: only its signature) is still a thought
  const parts = raw.map((p) => (isObject(p) && p.thought === true && typeof p.text !== 'string' ? { ...p, text: '' } : p));
  return geminiParts(parts, pairer).map((p) => {
    if (p.type !== 'thinking' || typeof p.meta?.thoughtSignature !== 'string') return p;
    const { thoughtSignature, ...meta } = p.meta;
    const reasoning = responsesReasoning(thoughtSignature as string);
    // OpenAI's encrypted reasoning replays only to the Responses API: kept as the other readers keep it, not as a signature
    if (reasoning)
      return {
        type: 'thinking',
        thinking: p.thinking,
        meta: { ...meta, codexItemId: reasoning.id, encryptedContent: reasoning.encrypted_content },
      };
    return {
      type: 'thinking',
      thinking: p.thinking,
      signature: thoughtSignature as string,
      ...(Object.keys(meta).length ? { meta } : {}),
    };
  });
}

/**
 * OpenAI Responses reasoning as Qwen Code keeps it in a thoughtSignature (its openai-responses
 * generator: the JSON of `{id, encrypted_content}`), else undefined.
 */
export function responsesReasoning(signature: string): { id: string; encrypted_content: string } | undefined {
  if (!signature.trimStart().startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(signature);
    return isObject(v) && typeof v.id === 'string' && typeof v.encrypted_content === 'string'
      ? { id: v.id, encrypted_content: v.encrypted_content }
      : undefined;
  } catch {
    return undefined;
  }
}

/** A message with what threadbase kept in a record's `threadbase` field (encode.ts). */
function withKept(m: Message, kept: JsonObject | undefined): Message {
  if (!kept) return m;
  const out = withKeptMessageFields(m, kept);
  if (kept.role === 'system' || kept.role === 'user' || kept.role === 'assistant' || kept.role === 'tool') out.role = kept.role;
  if (isObject(kept.usage) && out.usage) out.usage = { ...out.usage, ...(kept.usage as Partial<Usage>) };
  if (Array.isArray(kept.parts)) out.parts = kept.parts as Part[];
  if (isObject(kept.partMeta)) {
    // per-part fields Qwen Code's parts have no place for, by index
    out.parts = out.parts.map((p, i) => {
      const extra = (kept.partMeta as JsonObject)[String(i)];
      return isObject(extra) ? ({ ...p, ...extra } as Part) : p;
    });
  }
  return out;
}

/** Text of Contents, for a compression's summary. */
function contentsText(contents: readonly unknown[]): string {
  return contents
    .flatMap((c) => (isObject(c) && Array.isArray(c.parts) ? c.parts : []))
    .flatMap((p) => (isObject(p) && typeof p.text === 'string' && p.thought !== true ? [p.text] : []))
    .join('\n\n');
}

/**
 * A compression's history (`systemPayload.compressedHistory`) as Qwen Code writes it
 * (composePostCompactHistory): the summary as a user turn, then its own acknowledgement as a model
 * turn, and what it restores after it (recent files and images as a user turn, a call still
 * waiting for its result). Qwen Code resumes from the whole list; the first turn is the summary.
 */
function compressedHistoryOf(rec: JsonObject): unknown[] {
  const payload = isObject(rec.systemPayload) ? rec.systemPayload : undefined;
  return Array.isArray(payload?.compressedHistory) ? payload.compressedHistory : [];
}

/** The compression's summary: its history's first turn when that is the user's (as Qwen Code writes it), else all of it. */
function compressionSummary(history: readonly unknown[]): string {
  const [first] = history;
  return contentsText(isObject(first) && first.role === 'user' ? [first] : history);
}

/**
 * What a compaction read from a `chat_compression` record Qwen Code wrote sends after its summary:
 * the rest of its history (the acknowledgement, restored files, a pending call) as messages; none for
 * one threadbase wrote (its kept entries are the entry's own, encode.ts) or another agent's.
 */
export function compressionFollowUps(entry: Entry): Message[] {
  const rec = entry.kind === 'compaction' && entry.rawSource === SOURCE && isObject(entry.raw) ? entry.raw : undefined;
  if (!rec || isObject(rec.threadbase) || rec.subtype !== 'chat_compression') return [];
  const history = compressedHistoryOf(rec);
  const first = history[0];
  const rest = isObject(first) && first.role === 'user' ? history.slice(1) : [];
  const pairer = new CallIdPairer(`${entry.id}:`);
  return rest.flatMap((content): Message[] => {
    const parts = partsOf(content, pairer);
    if (!parts.length) return [];
    const model = isObject(content) && content.role === 'model';
    const role = model ? 'assistant' : parts.every((p) => p.type === 'tool_result') ? 'tool' : 'user';
    return [{ role, parts }];
  });
}

/**
 * A `tool_result` record's results as Qwen Code's status says (`toolCallResult.status`: error or
 * cancelled, an error), a refused or cancelled call's marked by its words (denials.ts); one of status
 * `cancelled` in other words is cancelled. A sub-agent's records carry no status: its words alone.
 */
export function markedResults(parts: Part[], status: string | undefined): Part[] {
  const failed = status === 'error' || status === 'cancelled';
  return parts.map((p) => {
    if (p.type !== 'tool_result' || !(failed || p.isError)) return p;
    const mark = qwenDeclinedMark(resultText(p.content)) ?? (status === 'cancelled' ? 'cancelled' : undefined);
    return mark ? markDeclined(p, mark) : { ...p, isError: true };
  });
}

/** One record (its fragments joined) as one entry; `before`: the records of results folded into it (resultsWith). */
function entryOf(rec: JsonObject, parentId: string | null, before: JsonObject[] = []): Entry {
  const id = rec.uuid as string;
  const timestamp = str(rec.timestamp) ?? new Date(0).toISOString();
  const base = { id, parentId, timestamp, raw: rec, rawSource: SOURCE } as const;
  const type = rec.type as string;
  const subtype = str(rec.subtype);
  const kept = isObject(rec.threadbase) ? rec.threadbase : undefined;
  const pairer = new CallIdPairer(`${id}:`);
  // an entry threadbase wrote as a record of another kind (encode.ts): given back as it was
  if (kept && isObject(kept.entry)) return { ...(kept.entry as unknown as Entry), ...base };
  if (type === 'system' && kept && isObject(kept.message))
    return { ...base, kind: 'message', message: kept.message as unknown as Message };
  if (type === 'system') {
    const payload = isObject(rec.systemPayload) ? rec.systemPayload : undefined;
    if (subtype === 'chat_compression' && payload) {
      const info = isObject(payload.info) ? payload.info : {};
      return {
        ...base,
        kind: 'compaction',
        summary: compressionSummary(compressedHistoryOf(rec)),
        ...(typeof info.originalTokenCount === 'number' ? { tokensBefore: info.originalTokenCount } : {}),
      };
    }
    return { ...base, kind: 'metadata', type: `qwen:${subtype ?? 'system'}`, data: payload };
  }
  const role = type === 'assistant' ? 'assistant' : type === 'tool_result' ? 'tool' : 'user';
  let message: Message = { role, parts: partsOf(rec.message, pairer) };
  if (type === 'assistant') {
    const usage = usageOf(rec.usageMetadata);
    if (typeof rec.model === 'string') message.model = rec.model;
    if (usage) message.usage = usage;
  }
  const statusOf = (r: JsonObject) => (isObject(r.toolCallResult) ? str(r.toolCallResult.status) : undefined);
  if (type === 'tool_result')
    message.parts = [
      ...before.flatMap((b) => markedResults(partsOf(b.message, pairer), statusOf(b))),
      ...markedResults(message.parts, statusOf(rec)),
    ];
  if (type === 'user' && subtype) message.meta = { qwenSubtype: subtype };
  if (type === 'user' && subtype && INJECTED_USER_SUBTYPES.has(subtype))
    message.meta = { ...message.meta, qwenInjected: subtype };
  message = withKept(message, kept);
  return { ...base, kind: 'message', message };
}

/** A user message Qwen Code wrote itself (marked by entryOf). */
const qwenInjected = (m: Message): boolean => Boolean(m.meta?.qwenInjected);

interface Gathered {
  /** uuid → the record's fragments, in file order */
  fragments: Map<string, JsonObject[]>;
  lineOf: Map<string, number>;
  leaf: string | undefined;
  first: JsonObject | undefined;
  title: string | undefined;
}

function gather(file: string, l: JsonlLine, g: Gathered, warnings: ParseWarning[]): void {
  if (l.error) {
    warnings.push({ file, line: l.line, message: l.partial ? `torn last line: ${l.error}` : l.error });
    return;
  }
  const rec = l.value;
  if (
    !isObject(rec) ||
    typeof rec.uuid !== 'string' ||
    !rec.uuid ||
    (rec.parentUuid !== null && typeof rec.parentUuid !== 'string')
  ) {
    warnings.push({ file, line: l.line, message: 'malformed record: no uuid/parentUuid; skipped' });
    return;
  }
  if (typeof rec.type !== 'string' || !RECORD_TYPES.has(rec.type)) {
    warnings.push({ file, line: l.line, id: rec.uuid, message: `unknown record type ${JSON.stringify(rec.type)}; skipped` });
    return;
  }
  g.first ??= rec;
  if (rec.type === 'system' && rec.subtype === 'custom_title' && isObject(rec.systemPayload)) {
    g.title = str(rec.systemPayload.customTitle) ?? g.title;
  }
  const frags = g.fragments.get(rec.uuid);
  if (frags) frags.push(rec);
  else {
    g.fragments.set(rec.uuid, [rec]);
    g.lineOf.set(rec.uuid, l.line);
  }
  if (!(rec.type === 'system' && typeof rec.subtype === 'string' && NOT_CONVERSATION.has(rec.subtype))) g.leaf = rec.uuid;
}

/** A record's fragments as one record, as Qwen Code joins them (aggregateTranscriptRecordFragments). */
function joined(frags: JsonObject[]): JsonObject {
  const [first, ...rest] = frags as [JsonObject, ...JsonObject[]];
  if (!rest.length) return first;
  const out: JsonObject = { ...first };
  let message = isObject(first.message) ? { ...first.message } : undefined;
  for (const r of rest) {
    if (isObject(r.message)) {
      const parts = [
        ...(Array.isArray(message?.parts) ? message.parts : []),
        ...(Array.isArray(r.message.parts) ? r.message.parts : []),
      ];
      message = { ...(message ?? r.message), parts };
    }
    if (r.usageMetadata) out.usageMetadata = r.usageMetadata;
    if (r.toolCallResult && !out.toolCallResult) out.toolCallResult = r.toolCallResult;
    if (r.model && !out.model) out.model = r.model;
    if (typeof r.timestamp === 'string' && (typeof out.timestamp !== 'string' || r.timestamp > out.timestamp))
      out.timestamp = r.timestamp;
  }
  if (message) out.message = message;
  out.fragments = frags;
  return out;
}

/** A sub-agent's transcript (`subagents/<parent session>/agent-<agent id>.jsonl`) and what its meta file says. */
export interface SubAgentOf {
  /** the agent id (the file name's), its session id here: its records carry the parent's session id */
  agentId: string;
  parentSessionId: string;
  /** the `agent` call that spawned it (meta `toolUseId`) */
  toolUseId?: string;
  agentType?: string;
  /**
   * the model it ran on (meta `model`): Qwen Code writes none on a sub-agent's assistant records, so
   * its replies take this one
   */
  model?: string;
}

/**
 * Where a later read of a grown chat resumes (a unit's state in the index): at the last record, re-read
 * with whatever was appended (a record's fragments may follow it), and what the whole read found
 * before it, so the appended part alone gives the session's listing fields.
 */
export interface QwenReadState {
  /** the last record's first fragment: its byte offset and line, uuid, parentUuid and how many entries it made */
  safe: { offset: number; line: number; id: string; parentId: string | null; count: number };
  /** the custom title so far */
  customTitle?: string;
  /** the first user line on the path to the last record's parent */
  titleBefore?: string;
  /** title without a custom title, and leaf, of the read that left this state */
  chainTitle?: string;
  leafId: string | null;
  /** listing fields that the first record fixes (id, project, meta…) and the creation time */
  fields: Pick<Session, 'id' | 'project' | 'createdAt' | 'updatedAt' | 'parentId' | 'parentToolCallId' | 'writtenBy' | 'meta'>;
}

/** A chat read whole or, with `from`, only from its last record on. */
export interface QwenRead {
  session: Session;
  /** byte offset after the last whole line read (a torn last line is read again next time) */
  offset: number;
  /** for the next read from `offset`; absent when the chat cannot be resumed from there */
  state?: QwenReadState;
  /** the read was from `from`: session.entries are the re-read record's and the new ones */
  appended?: { replaces: number; fromLine: number };
}

/** The lines of a chat from `start`, gathered; offset after the last whole line. */
async function gatherFrom(
  file: string,
  start: { offset: number; line: number } | undefined,
): Promise<{ g: Gathered; warnings: ParseWarning[]; offset: number; firstLine: Map<string, { offset: number; line: number }> }> {
  const warnings: ParseWarning[] = [];
  const g: Gathered = { fragments: new Map(), lineOf: new Map(), leaf: undefined, first: undefined, title: undefined };
  const firstLine = new Map<string, { offset: number; line: number }>();
  let offset = start?.offset ?? 0;
  for await (const l of readJsonl(file, start ? { start: start.offset, startLine: start.line } : {})) {
    // a torn last line (Qwen Code may still be writing it) is not passed: the next read tries it again
    if (!(l.partial && l.value === undefined)) offset = l.end;
    const known = g.fragments.size;
    gather(file, l, g, warnings);
    if (g.fragments.size > known && isObject(l.value)) firstLine.set(l.value.uuid as string, { offset: l.offset, line: l.line });
  }
  return { g, warnings, offset, firstLine };
}

/**
 * Usage-only records of a sub-agent's transcript merged into the call record that follows. Qwen Code
 * records a sub-agent's round as its text record (thoughts, text, usageMetadata) then one record per
 * call (attachJsonlTranscriptWriter: onRoundText, onToolCall); a round with calls and no text leaves a
 * text record of no parts, only the round's usage. Such a record (no `threadbase` of ours) whose one
 * child is an assistant record without usage is that child's response: the child takes its usage
 * (and model) and its place in the chain, so no empty reply shows and the tokens are counted once as
 * before. Returns the merged records by the child's uuid and the uuids merged away.
 */
function usageOnlyMerges(g: Gathered): { into: Map<string, JsonObject>; dropped: Set<string> } {
  const into = new Map<string, JsonObject>();
  const dropped = new Set<string>();
  const children = new Map<string, string[]>();
  for (const [uuid, frags] of g.fragments) {
    const parent = frags[0]?.parentUuid;
    if (typeof parent === 'string' && parent !== uuid) children.set(parent, [...(children.get(parent) ?? []), uuid]);
  }
  for (const [uuid, frags] of g.fragments) {
    const u = joined(frags);
    const parts = isObject(u.message) && Array.isArray(u.message.parts) ? u.message.parts : [];
    if (u.type !== 'assistant' || parts.length || !isObject(u.usageMetadata) || u.threadbase !== undefined) continue;
    const kids = children.get(uuid) ?? [];
    const childFrags = kids.length === 1 ? g.fragments.get(kids[0] as string) : undefined;
    if (!childFrags) continue;
    const c = joined(childFrags);
    if (c.type !== 'assistant' || c.usageMetadata !== undefined || c.threadbase !== undefined) continue;
    into.set(kids[0] as string, {
      ...c,
      parentUuid: u.parentUuid,
      usageMetadata: u.usageMetadata,
      ...(c.model === undefined && u.model !== undefined ? { model: u.model } : {}),
      // several records as one: a copy within Qwen Code writes the entry, not one record as it was (encode.ts ownRecord)
      fragments: [...frags, ...childFrags],
    });
    dropped.add(uuid);
  }
  return { into, dropped };
}

/**
 * The `tool_result` records threadbase wrote one per result of an entry (their statuses differing,
 * encode.ts): each but the last names the last (`threadbase.resultsWith`), which holds the entry. By the
 * last one's uuid, the records before it, in file order.
 */
function foldedResults(g: Gathered): Map<string, JsonObject[]> {
  const out = new Map<string, JsonObject[]>();
  for (const frags of g.fragments.values()) {
    const rec = joined(frags);
    const into = rec.type === 'tool_result' && isObject(rec.threadbase) ? str(rec.threadbase.resultsWith) : undefined;
    if (into === undefined || g.fragments.get(into)?.[0]?.type !== 'tool_result') continue;
    out.set(into, [...(out.get(into) ?? []), rec]);
  }
  return out;
}

/** The gathered records as entries, in the order of their first fragments; how many each made. */
function entriesOf(
  g: Gathered,
  file: string,
  warnings: ParseWarning[],
  resolveParent: (p: string) => string | null,
  /** the model of replies whose record names none (a sub-agent's: SubAgentOf.model) */
  replyModel?: string,
) {
  const entries: Entry[] = [];
  const counts = new Map<string, number>();
  const merges = usageOnlyMerges(g);
  const folded = foldedResults(g);
  const foldedAway = new Set([...folded.values()].flat().map((r) => r.uuid as string));
  for (const [uuid, frags] of g.fragments) {
    if (merges.dropped.has(uuid) || foldedAway.has(uuid)) {
      counts.set(uuid, 0);
      continue;
    }
    const before = folded.get(uuid) ?? [];
    const first = before[0];
    const rec: JsonObject = first
      ? // several records as one entry, its parent the first one's (a copy writes the entry, not the records: ownRecord)
        {
          ...joined(frags),
          parentUuid: first.parentUuid,
          fragments: [...before.flatMap((b) => (b.fragments as JsonObject[] | undefined) ?? [b]), ...frags],
        }
      : (merges.into.get(uuid) ?? joined(frags));
    let parentId = (rec.parentUuid as string | null) ?? null;
    if (parentId !== null && !g.fragments.has(parentId)) {
      const resolved = resolveParent(parentId);
      if (resolved === null)
        warnings.push({
          file,
          line: g.lineOf.get(uuid),
          id: uuid,
          message: `parent ${parentId} not found; record treated as a root`,
        });
      parentId = resolved;
    }
    if (parentId === uuid) parentId = null;
    const count = entries.length;
    const split = isObject(rec.threadbase) && Array.isArray(rec.threadbase.split) ? (rec.threadbase.split as Entry[]) : undefined;
    if (split?.length) {
      // a response threadbase merged from several entries (encode.ts): the entries given back, the last one this record's
      for (const [i, e] of split.entries()) {
        const last = i === split.length - 1;
        entries.push({ ...e, ...(last ? { id: uuid } : {}), parentId, raw: rec, rawSource: SOURCE } as Entry);
        parentId = last ? parentId : e.id;
      }
    } else entries.push(entryOf(rec, parentId, before));
    if (replyModel !== undefined)
      for (const e of entries.slice(count))
        if (e.kind === 'message' && e.message.role === 'assistant' && e.message.model === undefined) e.message.model = replyModel;
    counts.set(uuid, entries.length - count);
  }
  return { entries, counts };
}

/** Reads one chat file. Damaged lines and records with a missing parent are warnings naming file and line. */
export async function readQwenChat(file: string, subAgent?: SubAgentOf): Promise<Session> {
  return (await readQwenChatFrom(file, subAgent)).session;
}

/**
 * Reads one chat whole or, with `from` (the state a read left), from its last record on: the records
 * appended since must all descend from that record, else (a new root, a branch off an earlier record,
 * a fragment of an earlier record, a cycle) the chat is read whole.
 */
export async function readQwenChatFrom(file: string, subAgent?: SubAgentOf, from?: QwenReadState): Promise<QwenRead> {
  if (from) {
    const appended = await readAppended(file, from, subAgent?.model);
    if (appended) return appended;
  }
  const { g, warnings, offset, firstLine } = await gatherFrom(file, undefined);
  const { entries, counts } = entriesOf(g, file, warnings, () => null, subAgent?.model);
  cutParentCycles(entries, { file, lineOf: g.lineOf, warnings, link: 'parentUuid' });
  const leafId = g.leaf ?? null;
  const chain = leafId ? pathToLeaf({ entries, leafId }) : [];
  const first = g.first;
  const id = subAgent?.agentId ?? str(first?.sessionId) ?? basename(file).replace(/\.jsonl$/, '');
  const createdAt = entries[0]?.timestamp ?? new Date(0).toISOString();
  let updatedAt = createdAt;
  for (const e of entries) if (e.timestamp > updatedAt) updatedAt = e.timestamp;
  const usage = summarizeUsage(entries);
  const chainTitle = firstUserLine(chain, qwenInjected);
  const fields: QwenReadState['fields'] = {
    id,
    ...(str(first?.cwd) ? { project: str(first?.cwd) } : {}),
    createdAt,
    updatedAt,
    parentId: subAgent?.parentSessionId ?? null,
    ...(subAgent?.toolUseId ? { parentToolCallId: subAgent.toolUseId } : {}),
    // a chat threadbase wrote: its first record's version is threadbase's (encode.ts WRITER_VERSION)
    ...writtenByOf(first?.version),
    meta: {
      ...(subAgent ? { kind: 'subagent', ...(subAgent.agentType ? { agentType: subAgent.agentType } : {}) } : {}),
      ...(str(first?.version) ? { qwenVersion: str(first?.version) } : {}),
      ...(str(first?.gitBranch) ? { gitBranch: str(first?.gitBranch) } : {}),
    },
  };
  const session: Session = {
    id,
    source: SOURCE,
    ...(fields.project ? { project: fields.project } : {}),
    title: g.title ?? chainTitle,
    createdAt,
    updatedAt,
    messageCount: countMessages(chain),
    parentId: fields.parentId ?? null,
    ...(fields.parentToolCallId ? { parentToolCallId: fields.parentToolCallId } : {}),
    ...(fields.writtenBy ? { writtenBy: fields.writtenBy } : {}),
    models: usage.models,
    usage: usage.usage,
    ...usageByModelOf(usage),
    path: file,
    meta: fields.meta,
    entries,
    leafId,
    warnings,
  };
  return { session, offset, ...safeState(g, entries, counts, firstLine, leafId, chainTitle, fields) };
}

/** The state to resume from the last record, unless its parent was not found (a whole read warns of it). */
function safeState(
  g: Gathered,
  entries: Entry[],
  counts: Map<string, number>,
  firstLine: Map<string, { offset: number; line: number }>,
  leafId: string | null,
  chainTitle: string | undefined,
  fields: QwenReadState['fields'],
  /** the first user line on the path before what `entries` hold (an appended read's) */
  titleEarlier?: string,
): { state?: QwenReadState } {
  const lastId = [...g.fragments.keys()].at(-1);
  const at = lastId ? firstLine.get(lastId) : undefined;
  const count = lastId ? counts.get(lastId) : undefined;
  if (!lastId || !at || !count) return {};
  const head = entries[entries.length - count];
  const rawParent = (g.fragments.get(lastId)?.[0]?.parentUuid as string | null | undefined) ?? null;
  if (!head || head.parentId !== (rawParent === lastId ? null : rawParent)) return {};
  const inRead = head.parentId !== null && entries.some((e) => e.id === head.parentId);
  const titleBefore =
    titleEarlier ??
    (inRead && head.parentId ? firstUserLine(pathToLeaf({ entries, leafId: head.parentId }), qwenInjected) : undefined);
  return {
    state: {
      safe: { ...at, id: lastId, parentId: head.parentId, count },
      ...(g.title !== undefined ? { customTitle: g.title } : {}),
      ...(titleBefore !== undefined ? { titleBefore } : {}),
      ...(chainTitle !== undefined ? { chainTitle } : {}),
      leafId,
      fields,
    },
  };
}

/** The records from the state's last record on, when they hang under it; undefined: read whole. */
async function readAppended(file: string, from: QwenReadState, replyModel?: string): Promise<QwenRead | undefined> {
  const { safe } = from;
  const { g, warnings, offset, firstLine } = await gatherFrom(file, safe);
  const ids = [...g.fragments.keys()];
  if (ids[0] !== safe.id) return undefined;
  // every record but the first hangs under one read here: the tree before is unchanged
  for (const [uuid, frags] of g.fragments) {
    const parent = (frags[0]?.parentUuid as string | null | undefined) ?? null;
    if (uuid === safe.id ? parent !== safe.parentId : parent === null || parent === uuid || !g.fragments.has(parent))
      return undefined;
  }
  const { entries, counts } = entriesOf(g, file, warnings, (p) => p, replyModel);
  const cycles: ParseWarning[] = [];
  cutParentCycles(entries, { file, lineOf: g.lineOf, warnings: cycles, link: 'parentUuid' });
  if (cycles.length) return undefined;
  const customTitle = g.title ?? from.customTitle;
  const leafId = g.leaf ?? from.leafId;
  const chainTitle = g.leaf
    ? (from.titleBefore ?? firstUserLine(pathToLeaf({ entries, leafId: g.leaf }), qwenInjected))
    : from.chainTitle;
  let updatedAt = from.fields.updatedAt;
  for (const e of entries) if (e.timestamp > updatedAt) updatedAt = e.timestamp;
  const fields = { ...from.fields, updatedAt };
  const usage = summarizeUsage(entries);
  const session: Session = {
    ...fields,
    source: SOURCE,
    title: customTitle ?? chainTitle,
    messageCount: countMessages(entries),
    models: usage.models,
    usage: usage.usage,
    path: file,
    entries,
    leafId,
    warnings,
  };
  const next = safeState(g, entries, counts, firstLine, leafId, chainTitle, fields, from.titleBefore).state;
  if (next && customTitle !== undefined) next.customTitle = customTitle;
  return { session, offset, ...(next ? { state: next } : {}), appended: { replaces: safe.count, fromLine: safe.line } };
}
