/**
 * A Continue CLI session file (`<sessions>/<id>.json`, FORMAT.md) read into a Session. The file is one
 * JSON document (`{sessionId, title, workspaceDirectory, history: [...], usage}`) Continue rewrites
 * whole at every change; `history` holds ChatHistoryItems: a message (`user`, `assistant`, rarely
 * `thinking`, `tool`, `system`), the context items sent before a user's text, and on an assistant's
 * item the states of its tool calls, each with its output (the result). No item has a time.
 * An item threadbase wrote keeps the model entries it was written from in its `threadbase` field
 * (encode.ts); they are read back instead of the item, so a converted session comes back whole.
 */
import { promises as fs } from 'node:fs';
import { basename } from 'node:path';
import { markDeclined } from '../../convert/declined.js';
import { countMessages, firstUserLine } from '../../model/tree.js';
import type {
  CompactionEntry,
  Entry,
  ImagePart,
  Message,
  MessageEntry,
  ParseWarning,
  Part,
  Session,
  ToolCallPart,
  ToolResultPart,
  Usage,
} from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { arrayOfKey, isObject, type JsonObject, salvageArray } from '../cline/salvage.js';
import { jsonValueOf, parseJson } from '../shared/jsonl.js';
import { WRITTEN_BY, writtenByOf } from '../shared/written-by.js';
import { continueDeclinedMark, TOOL_CANCELLED } from './denials.js';

export const SOURCE = 'continue';

/** Continue's title for a session it has not named (DEFAULT_SESSION_TITLE). */
export const UNTITLED = 'Untitled Session';

export type { JsonObject };
export { isObject };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** What Continue's sessions.json says of a session (its listing). */
export interface ListedSession {
  /** milliseconds since the epoch, as a string */
  dateCreated?: string;
  title?: string;
}

/** `data:<type>;base64,<data>` as an image part; any other URL as a linked image. */
export function imageOfUrl(url: string): ImagePart {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { type: 'image', mediaType: m[1] as string, data: m[2] as string } : { type: 'image', mediaType: 'image/png', url };
}

/** A message's content (a string, or MessageParts: text and imageUrl) as model parts. */
export function partsOfContent(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.flatMap((p): Part[] => {
    if (!isObject(p)) return [];
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    if (p.type === 'imageUrl' && isObject(p.imageUrl) && typeof p.imageUrl.url === 'string') return [imageOfUrl(p.imageUrl.url)];
    return [{ type: 'text', text: '', meta: { continuePart: p } }];
  });
}

/**
 * The context items Continue sends before a user's text (convertFromUnifiedHistory): each as
 * `<context name="…">\n…\n</context>\n\n`, in one text with the user's own when that is a string.
 */
export function contextItemsText(items: unknown): string {
  if (!Array.isArray(items)) return '';
  return items
    .filter(isObject)
    .map((c) => `<context name="${str(c.name) ?? ''}">\n${str(c.content) ?? ''}\n</context>\n\n`)
    .join('');
}

/**
 * A Continue usage (openai-adapters' OpenAI-style counts): with the Anthropic adapter `prompt_tokens`
 * is the input without the cache reads and writes, which are in `prompt_tokens_details`.
 */
export function usageOf(u: unknown): { usage?: Usage; cost?: number; model?: string } {
  if (!isObject(u)) return {};
  const details = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const usage: Usage = {
    input: num(u.prompt_tokens),
    output: num(u.completion_tokens),
    cacheRead: num(details.cache_read_tokens) || num(details.cached_tokens),
    cacheWrite: num(details.cache_write_tokens),
    reasoning: isObject(u.completion_tokens_details) ? num(u.completion_tokens_details.reasoning_tokens) : 0,
  };
  const cents = num(u.cost_cents);
  return { usage, ...(cents ? { cost: cents / 100 } : {}), ...(str(u.model) ? { model: str(u.model) } : {}) };
}

function toolCallOf(tc: unknown): ToolCallPart | undefined {
  if (!isObject(tc) || typeof tc.id !== 'string') return undefined;
  const fn = isObject(tc.function) ? tc.function : {};
  const args = str(fn.arguments) ?? '';
  const parsed = args.trim() ? jsonValueOf(args) : {};
  const input = isObject(parsed) ? parsed : {};
  return {
    type: 'tool_call',
    id: tc.id,
    name: str(fn.name) ?? '',
    input,
    // arguments that are no JSON object, kept as Continue had them
    ...(isObject(parsed) ? {} : { meta: { continueArguments: args } }),
  };
}

/**
 * A tool call state's output (its result) as a result part. A state without output is a call stopped
 * before it answered: cn sends "Tool cancelled" for it, read so, marked cancelled (denials.ts); a refused
 * one (`canceled`, cn's words for a refusal) marked refused.
 */
function resultOf(state: JsonObject, callName: string | undefined): ToolResultPart | undefined {
  if (typeof state.toolCallId !== 'string') return undefined;
  const output = Array.isArray(state.output) ? state.output.filter(isObject) : [];
  // Continue sends the outputs' contents joined by newlines
  const content = output.length ? output.map((o) => str(o.content) ?? '').join('\n') : TOOL_CANCELLED;
  const part: ToolResultPart = {
    type: 'tool_result',
    callId: state.toolCallId,
    ...(callName ? { name: callName } : {}),
    content,
    ...(state.status === 'errored' ? { isError: true } : {}),
    ...(state.status !== 'done' && state.status !== 'errored' ? { meta: { continueStatus: state.status } } : {}),
  };
  if (output.length === 0) return markDeclined(part, 'cancelled');
  const mark = state.status === 'canceled' ? continueDeclinedMark(content) : undefined;
  return mark ? markDeclined(part, mark) : part;
}

/**
 * Threadbase's mark on a session's first item (encode.ts): its `threadbase.writtenBy`, or for a session
 * written before the mark any `threadbase` field, which only threadbase writes.
 */
function firstItemMark(item: unknown): unknown {
  const kept = isObject(item) && isObject(item.threadbase) ? item.threadbase : undefined;
  return kept ? (kept.writtenBy ?? WRITTEN_BY) : undefined;
}

/** Entries threadbase kept on an item it wrote (encode.ts), or undefined for an item of Continue's own. */
function keptEntries(item: JsonObject): Entry[] | undefined {
  const kept = isObject(item.threadbase) ? item.threadbase : undefined;
  if (!kept) return undefined;
  if (kept.copy === true) return [];
  if (!Array.isArray(kept.entries)) return undefined;
  return kept.entries.filter(
    (e): e is Entry => isObject(e) && typeof e.id === 'string' && typeof e.kind === 'string' && typeof e.timestamp === 'string',
  );
}

/** A tool call's meta flag: its Continue item has no state for it, so cn sends no result for it. */
export const NO_STATE = 'continueWithoutState';
/** A result's meta flag: it is a `tool` item, which cn sends as a result where it stands, its call's state or not. */
export const TOOL_ITEM = 'continueToolItem';
/** An assistant message's meta: its calls' ids in the order of their states, where that is not the calls' (cn sends results so). */
export const STATE_ORDER = 'continueStateOrder';

/** An entry before its id and link are given. */
type Unlinked = Omit<MessageEntry, 'id' | 'parentId'> | Omit<CompactionEntry, 'id' | 'parentId'>;

/** The text cn adds as the user's turn when it compacted in the middle of one (handleAutoContinuation). */
const AUTO_CONTINUE = 'continue';

/**
 * One Continue item as entries (its message, then its calls' results), without ids and links yet;
 * `autoContinued`: the item is cn's own "continue" after a compaction it made mid-turn.
 */
function entriesOfItem(item: JsonObject, time: string, autoContinued: boolean): Unlinked[] {
  const msg = item.message as JsonObject;
  const role = msg.role;
  const base = { timestamp: time, raw: item, rawSource: SOURCE };
  if (role === 'assistant' && item.conversationSummary !== undefined) {
    const summary =
      str(item.conversationSummary) ??
      partsOfContent(msg.content)
        .flatMap((p) => (p.type === 'text' ? [p.text] : []))
        .join('');
    return [{ ...base, kind: 'compaction', summary }];
  }
  if (role === 'user') {
    const parts = partsOfContent(msg.content);
    const context = contextItemsText(item.contextItems);
    const injected = autoContinued ? 'continuation after a compaction' : context && parts.length === 0 ? 'context items' : '';
    const message: Message = {
      role: 'user',
      parts: context ? [{ type: 'text', text: context, meta: { continueContextItems: true } }, ...parts] : parts,
      ...(injected ? { meta: { continueInjected: injected } } : {}),
    };
    return [{ ...base, kind: 'message', message }];
  }
  if (role === 'assistant') {
    const calls = (Array.isArray(msg.toolCalls) ? msg.toolCalls : []).flatMap((tc) => toolCallOf(tc) ?? []);
    const { usage, cost, model } = usageOf(msg.usage);
    const message: Message = {
      role: 'assistant',
      parts: [...partsOfContent(msg.content), ...calls],
      ...(model ? { model } : {}),
      ...(usage ? { usage } : {}),
      ...(cost !== undefined ? { cost } : {}),
    };
    const names = new Map(calls.map((c) => [c.id, c.name]));
    const states = (Array.isArray(item.toolCallStates) ? item.toolCallStates : []).filter(isObject);
    const stated = new Set(states.map((s) => s.toolCallId));
    // cn sends a result only for a call that has a state ('Tool cancelled' for one without output, read so):
    // a call without one goes unanswered (convertFromUnifiedHistory; seen, calls-without-states)
    for (const c of calls) if (!stated.has(c.id)) c.meta = { ...c.meta, [NO_STATE]: true };
    const results = states.flatMap((s) => resultOf(s, names.get(str(s.toolCallId) ?? '')) ?? []);
    const order = results.map((r) => r.callId);
    const callOrder = calls.flatMap((c) => (order.includes(c.id) ? [c.id] : []));
    if (order.some((id, i) => id !== callOrder[i])) message.meta = { ...message.meta, [STATE_ORDER]: order };
    const out: Unlinked[] = [{ ...base, kind: 'message', message }];
    if (results.length) out.push({ timestamp: time, kind: 'message', message: { role: 'tool', parts: results } });
    return out;
  }
  if (role === 'thinking') {
    const redacted = str(msg.redactedThinking);
    const part: Part = redacted
      ? { type: 'redacted_thinking', data: redacted }
      : {
          type: 'thinking',
          thinking: partsOfContent(msg.content)
            .flatMap((p) => (p.type === 'text' ? [p.text] : []))
            .join(''),
          ...(str(msg.signature) ? { signature: str(msg.signature) } : {}),
          // cn sends a thinking item's content as the model's text (convertFromUnifiedMessage)
          meta: { continueSentAsText: true },
        };
    return [{ ...base, kind: 'message', message: { role: 'assistant', parts: [part] } }];
  }
  if (role === 'tool') {
    const result: ToolResultPart = {
      type: 'tool_result',
      callId: str(msg.toolCallId) ?? '',
      content: partsOfContent(msg.content)
        .flatMap((p) => (p.type === 'text' ? [p.text] : []))
        .join(''),
      meta: { [TOOL_ITEM]: true },
    };
    return [{ ...base, kind: 'message', message: { role: 'tool', parts: [result] } }];
  }
  return [{ ...base, kind: 'message', message: { role: 'system', parts: partsOfContent(msg.content) } }];
}

/** The history's items with the line each starts on; a torn document gives the whole items before the tear. */
function historyItems(
  text: string,
  file: string,
  warnings: ParseWarning[],
): { doc: JsonObject; items: { value: unknown; line: number }[] } {
  const open = arrayOfKey(text, 'history');
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (err) {
    if (open < 0) {
      warnings.push({ file, line: 1, message: `malformed JSON: ${(err as Error).message}; no messages read` });
      return { doc: {}, items: [] };
    }
    const s = salvageArray(text, open);
    if (s.broken) warnings.push({ file, line: s.broken.line, message: `${s.broken.message}; the messages before it are read` });
    // the fields before the history are whole
    const head = jsonValueOf(`${text.slice(0, text.lastIndexOf('"history"', open)).replace(/,\s*$/, '')}}`);
    return { doc: isObject(head) ? head : {}, items: s.items };
  }
  if (!isObject(doc) || !Array.isArray(doc.history)) {
    warnings.push({ file, line: 1, message: 'no "history" array of messages; no messages read' });
    return { doc: isObject(doc) ? doc : {}, items: [] };
  }
  const located = open >= 0 ? salvageArray(text, open).items : [];
  return { doc, items: doc.history.map((value, i) => ({ value, line: located[i]?.line ?? 1 })) };
}

const injected = (m: Message): boolean => Boolean(m.meta?.continueInjected);

/**
 * A Continue session file read whole; `listed` is its row in sessions.json, `fileCreated` the file's own
 * creation time (cn's when sessions.json has no row for it).
 */
export async function readContinueSession(
  file: string,
  listed: ListedSession | undefined,
  fileCreated: string,
): Promise<Session> {
  const warnings: ParseWarning[] = [];
  const text = await fs.readFile(file, 'utf8');
  const { doc, items } = historyItems(text, file, warnings);
  const id = str(doc.sessionId) ?? basename(file, '.json');
  const listedTime = listed?.dateCreated && /^\d+$/.test(listed.dateCreated) ? Number(listed.dateCreated) : undefined;
  const createdAt = listedTime !== undefined ? new Date(listedTime).toISOString() : fileCreated;
  const entries: Entry[] = [];
  const ids = new Set<string>();
  let parentId: string | null = null;
  const place = (e: Entry) => {
    let eid = e.id;
    for (let n = 2; ids.has(eid); n++) eid = `${e.id}#${n}`;
    ids.add(eid);
    entries.push({ ...e, id: eid, parentId } as Entry);
    parentId = eid;
  };
  /** assistant items since cn's own summary item, undefined once anything else came after it */
  let answeredSinceSummary: number | undefined;
  items.forEach(({ value: item, line }, index) => {
    if (!isObject(item) || !isObject(item.message) || typeof item.message.role !== 'string') {
      warnings.push({
        file,
        line,
        message: `history item ${index + 1} is no Continue message (no message with a role); skipped`,
      });
      return;
    }
    const kept = keptEntries(item);
    if (kept) {
      // the item as Continue has it: the entries threadbase kept on it are these entries
      const { threadbase: _kept, ...own } = item;
      for (const e of kept) place({ ...e, raw: own, rawSource: SOURCE });
      answeredSinceSummary = undefined;
      return;
    }
    const msg = item.message;
    // cn compacted mid-turn, the model answered the summary, then cn asked it to go on with "continue"
    const autoContinued =
      msg.role === 'user' &&
      msg.content === AUTO_CONTINUE &&
      (answeredSinceSummary ?? 0) > 0 &&
      !contextItemsText(item.contextItems);
    if (msg.role === 'assistant' && item.conversationSummary !== undefined) answeredSinceSummary = 0;
    else if (msg.role === 'assistant' && answeredSinceSummary !== undefined) answeredSinceSummary++;
    else answeredSinceSummary = undefined;
    entriesOfItem(item, createdAt, autoContinued).forEach((e, k) => {
      place({ ...e, id: k === 0 ? `${id}:${index}` : `${id}:${index}:results`, parentId: null });
    });
  });
  const usage = summarizeUsage(entries);
  const st = doc.usage;
  // the file's title, else sessions.json's, unless Continue's placeholder
  const title = [str(doc.title), listed?.title].find((t) => t && t !== UNTITLED);
  // entries threadbase kept have their own times: the session began with the first of them
  const times = [createdAt, ...entries.map((e) => e.timestamp)].sort();
  const firstTime = times[0] as string;
  // the last time recorded, not the file's: cn items keep no times, and the file's time moves whenever
  // it is rewritten or copied (cn itself lists and sorts its sessions by their creation time)
  const updatedAt = times.at(-1) as string;
  return {
    id,
    source: SOURCE,
    ...(str(doc.workspaceDirectory) ? { project: str(doc.workspaceDirectory) } : {}),
    title: title ?? firstUserLine(entries, injected),
    createdAt: firstTime,
    updatedAt,
    messageCount: countMessages(entries),
    parentId: null,
    ...writtenByOf(firstItemMark(items[0]?.value)),
    models: usage.models,
    usage: usage.usage,
    ...usageByModelOf(usage),
    ...(usage.cost > 0 ? { cost: usage.cost } : {}),
    path: file,
    meta: {
      ...(isObject(st) && typeof st.totalCost === 'number' ? { recordedTotalCost: st.totalCost } : {}),
      ...(str(doc.mode) ? { mode: doc.mode } : {}),
      ...(str(doc.chatModelTitle) ? { chatModelTitle: doc.chatModelTitle } : {}),
    },
    entries,
    leafId: entries.at(-1)?.id ?? null,
    warnings,
    raw: Object.fromEntries(Object.entries(doc).filter(([k]) => k !== 'history')),
  };
}

/** The message entries of a session (for the context and the writer). */
export const isMessageEntry = (e: Entry): e is MessageEntry => e.kind === 'message';
