/**
 * A session's path as a Continue CLI session document (history.ts reads it): each message one
 * ChatHistoryItem as Continue writes them, a call's result in its call's `toolCallStates` output.
 * Continue keeps an item's fields it does not know when it rewrites the file, so each item keeps the
 * model entries it was written from in `threadbase` (read back instead of the item); entries Continue
 * has no item for (thinking, system messages, model changes, labels, metadata) go with the next item;
 * thinking read from Continue's own `thinking` items is written as such again (cn sends its text), so
 * is a call read without its state (cn sends it no result; a result of its own is a `tool` item).
 * The last compaction is Continue's own summary item (`conversationSummary`), written as cn writes its
 * own (an assistant item, which cn sends as such), the entries before it kept on it and not written as
 * items (Continue 1.5.47 sends every item of the history, a summary's index notwithstanding), the
 * messages it kept written again after it (copies the reader passes over).
 */
import { declinedMarkOf } from '../../convert/declined.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import type { CompactionEntry, Entry, Message, Part, ToolResultPart, Usage } from '../../model/types.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { continueDeclinedMark, PERMISSION_DENIED, TOOL_CANCELLED } from './denials.js';
import { type JsonObject, NO_STATE, STATE_ORDER, TOOL_ITEM } from './history.js';

export interface EncodedContinueSession {
  doc: JsonObject;
  warnings: string[];
}

/** An entry as kept in an item's `threadbase.entries`: all but the records it was read from. */
function keptEntry(e: Entry): JsonObject {
  const { raw: _r, rawSource: _s, ...rest } = e;
  return rest as unknown as JsonObject;
}

function textOf(parts: readonly Part[]): string {
  return parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** A user's parts as Continue content: a string of its one text, else MessageParts (texts and images). */
function userContent(parts: readonly Part[]): string | JsonObject[] {
  const sent = parts.filter((p) => p.type === 'text' || p.type === 'image');
  if (sent.length === 1 && sent[0]?.type === 'text') return sent[0].text;
  return parts.flatMap((p): JsonObject[] => {
    if (p.type === 'text') return [{ type: 'text', text: p.text }];
    if (p.type === 'image') {
      const url = p.data ? `data:${p.mediaType};base64,${p.data}` : p.url;
      return url ? [{ type: 'imageUrl', imageUrl: { url } }] : [];
    }
    return [];
  });
}

function continueUsage(u: Usage | undefined, model: string | undefined): JsonObject | undefined {
  if (!u) return undefined;
  return {
    completion_tokens: u.output,
    prompt_tokens: u.input,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cache_write_tokens: u.cacheWrite, cache_read_tokens: u.cacheRead, cached_tokens: u.cacheRead },
    ...(model ? { model } : {}),
  };
}

/** A tool result's content as the text Continue keeps as a call's output. */
function resultText(r: ToolResultPart): { text: string; dropped: number } {
  if (typeof r.content === 'string') return { text: r.content, dropped: 0 };
  let dropped = 0;
  const text = r.content
    .map((c) => {
      if (c.type === 'text') return c.text;
      if (c.type === 'file' && c.text !== undefined) return c.text;
      dropped++;
      return `[${c.type} omitted]`;
    })
    .join('\n');
  return { text, dropped };
}

interface Item extends JsonObject {
  message: JsonObject;
  contextItems: unknown[];
}

export function encodeContinueSession(
  path: readonly Entry[],
  head: { sessionId: string; title: string; workspaceDirectory: string },
): EncodedContinueSession {
  const warnings: string[] = [];
  const items: Item[] = [];
  /** entries waiting for the next item to be kept on */
  let pending: Entry[] = [];
  /** each call's state object, by call id, for its result to land in */
  const states = new Map<string, JsonObject>();
  /** calls written without a state (as read from Continue): a result of theirs is a `tool` item */
  const stateless = new Set<string>();
  let droppedMedia = 0;
  let orphans = 0;
  let lastAssistant: { item: Item; responseId?: string } | undefined;
  const lastCompaction = path.reduce((at, e, i) => (e.kind === 'compaction' ? i : at), -1);

  /** An item written for `e`, or (no entry) a copy of a kept message the reader passes over. */
  const push = (item: Item, e: Entry | undefined) => {
    if (e) {
      item.threadbase = { entries: [...pending, e].map(keptEntry) };
      pending = [];
    } else item.threadbase = { copy: true };
    items.push(item);
  };
  /** `e` (and what waits) kept on the last item written for entries; on the next one after a copy. */
  const keptOnLast = (e: Entry) => {
    const kept = (items.at(-1)?.threadbase as JsonObject | undefined)?.entries;
    if (!Array.isArray(kept)) {
      pending.push(e);
      return;
    }
    kept.push(...pending.map(keptEntry), keptEntry(e));
    pending = [];
  };

  const writeAssistant = (m: Message, e: Entry | undefined) => {
    const sent = providerCallsAsNotes(m);
    const calls = sent.parts.flatMap((p) => (p.type === 'tool_call' ? [p] : []));
    const text = textOf(sent.parts);
    const merge = e && lastAssistant && m.responseId !== undefined && lastAssistant.responseId === m.responseId;
    const item: Item = merge ? (lastAssistant?.item as Item) : { message: { role: 'assistant', content: '' }, contextItems: [] };
    const msg = item.message;
    if (text) msg.content = msg.content ? `${msg.content}\n${text}` : text;
    if (calls.length) {
      const toolCalls = (msg.toolCalls as JsonObject[] | undefined) ?? [];
      const toolStates = (item.toolCallStates as JsonObject[] | undefined) ?? [];
      for (const c of calls) {
        const call = { id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } };
        toolCalls.push(call);
        // a call read from a Continue item without its state: written so again (cn sends it no result)
        if (c.meta?.[NO_STATE]) {
          stateless.add(c.id);
          continue;
        }
        const state: JsonObject = { toolCallId: c.id, toolCall: call, status: 'generated', parsedArgs: c.input };
        toolStates.push(state);
        states.set(c.id, state);
      }
      msg.toolCalls = toolCalls;
      // in the order of the states as read (cn sends the results so)
      const order = m.meta?.[STATE_ORDER];
      if (Array.isArray(order)) toolStates.sort((a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId));
      if (toolStates.length) item.toolCallStates = toolStates;
    }
    const usage = continueUsage(m.usage, m.model);
    if (usage && !msg.usage) msg.usage = usage;
    if (merge && e) keptOnLast(e);
    else push(item, e);
    lastAssistant = e ? { item, ...(m.responseId !== undefined ? { responseId: m.responseId } : {}) } : undefined;
  };

  /** Results land in their calls' states; what is left (no call written) is returned. */
  const placeResults = (m: Message): Part[] => {
    const rest: Part[] = [];
    for (const p of m.parts) {
      // a `tool` item read from Continue stays one (cn sends it where it stands, besides its call's state)
      const state = p.type === 'tool_result' && !p.meta?.[TOOL_ITEM] ? states.get(p.callId) : undefined;
      if (p.type !== 'tool_result' || !state) {
        rest.push(p);
        continue;
      }
      const { text, dropped } = resultText(p);
      const mark = declinedMarkOf(p);
      if (mark === 'cancelled') {
        // as cn keeps a call stopped before it answered: a state without output (it sends "Tool cancelled")
        state.status = typeof p.meta?.continueStatus === 'string' ? p.meta.continueStatus : 'canceled';
        continue;
      }
      droppedMedia += dropped;
      state.status = mark === 'refused' ? 'canceled' : p.isError ? 'errored' : 'done';
      // a refused call in cn's words for it, unless already (denials.ts)
      const content = mark === 'refused' && continueDeclinedMark(text) !== 'refused' ? PERMISSION_DENIED : text;
      state.output = [{ content, name: 'Tool Result', description: 'Tool execution result' }];
    }
    return rest;
  };

  const writeUser = (parts: readonly Part[], e: Entry | undefined) => {
    const content = userContent(parts);
    push({ message: { role: 'user', content }, contextItems: [], editorState: content }, e);
  };

  /** The messages a compaction kept (before it on the path), written again after its summary: copies the reader passes over. */
  const writeKept = (c: CompactionEntry, before: readonly Entry[]) => {
    const from = c.firstKeptEntryId === undefined ? -1 : before.findIndex((x) => x.id === c.firstKeptEntryId);
    if (from < 0) return;
    for (const k of before.slice(from)) {
      if (k.kind !== 'message' || k.message.role === 'system') continue;
      if (k.message.role === 'assistant') {
        if (k.message.parts.some((p) => p.type === 'text' || p.type === 'tool_call')) writeAssistant(k.message, undefined);
        continue;
      }
      const rest = placeResults(k.message).filter((p) => p.type === 'text' || p.type === 'image');
      if (rest.length) writeUser(rest, undefined);
    }
  };

  path.forEach((e, i) => {
    // before the last compaction: not sent (Continue 1.5.47 sends every item, its summary's index
    // aside), kept on the summary's item
    if (i < lastCompaction) {
      pending.push(e);
      return;
    }
    if (e.kind === 'message') {
      const m = e.message;
      if (m.role === 'assistant') {
        const sendable = m.parts.some((p) => p.type === 'text' || p.type === 'tool_call');
        // thinking read from Continue's own thinking items: written as such again (cn sends their text)
        const own = m.parts.flatMap((p) => (p.type === 'thinking' && p.meta?.continueSentAsText && p.thinking ? [p] : []));
        own.forEach((p, k) => {
          const owner = !sendable && k === own.length - 1 ? e : undefined;
          push(
            {
              message: { role: 'thinking', content: p.thinking, ...(p.signature ? { signature: p.signature } : {}) },
              contextItems: [],
            },
            owner,
          );
          lastAssistant = undefined;
        });
        if (sendable) writeAssistant(m, e);
        else if (own.length === 0) pending.push(e); // other thinking alone: cn would not send it, kept
        return;
      }
      if (m.role === 'system') {
        pending.push(e);
        return;
      }
      lastAssistant = undefined;
      const all = placeResults(m);
      // results of calls without a state: `tool` items, as Continue's own were read (cn sends them where they stand)
      const own = (p: Part) => p.type === 'tool_result' && (stateless.has(p.callId) || p.meta?.[TOOL_ITEM] === true);
      const ownResults = all.flatMap((p) => (p.type === 'tool_result' && own(p) ? [p] : []));
      const rest = all.filter((p) => !own(p));
      const texts = rest.filter((p) => p.type === 'text' || p.type === 'image');
      orphans += rest.filter((p) => p.type === 'tool_result').length;
      const orphanText = rest.flatMap((p) =>
        p.type === 'tool_result' ? [`[tool result for ${p.callId}]\n${resultText(p).text}`] : [],
      );
      const userTurn = texts.length > 0 || orphanText.length > 0;
      ownResults.forEach((p, k) => {
        const { text: recorded, dropped } = resultText(p);
        droppedMedia += dropped;
        // a refused or cancelled call's result in cn's words for it, unless already (cn sends a tool item's content)
        const mark = declinedMarkOf(p);
        const text =
          mark && continueDeclinedMark(recorded) !== mark ? (mark === 'refused' ? PERMISSION_DENIED : TOOL_CANCELLED) : recorded;
        // the entry is kept on the last item written for it
        const owner = !userTurn && k === ownResults.length - 1 ? e : undefined;
        push({ message: { role: 'tool', content: text, toolCallId: p.callId }, contextItems: [] }, owner);
      });
      if (userTurn) writeUser([...texts, ...orphanText.map((text): Part => ({ type: 'text', text }))], e);
      // results only: kept on the item of their call (on their last tool item, if any, above)
      else if (ownResults.length === 0) keptOnLast(e);
      return;
    }
    lastAssistant = undefined;
    if (e.kind === 'compaction' && i === lastCompaction) {
      // as cn writes its own summary (compaction.ts): an assistant item, so cn sends it as its own
      push({ message: { role: 'assistant', content: e.summary }, contextItems: [], conversationSummary: e.summary }, e);
      writeKept(e, path.slice(0, i));
      return;
    }
    if (e.kind === 'branch_summary') {
      writeUser([{ type: 'text', text: e.text ?? e.summary }], e);
      return;
    }
    // model changes, labels, metadata, earlier compactions: no Continue item; kept with the next
    pending.push(e);
  });
  const trailing = pending.splice(0);
  const lastKept = items.findLast((item) => Array.isArray((item.threadbase as JsonObject | undefined)?.entries));
  if (lastKept) ((lastKept.threadbase as JsonObject).entries as JsonObject[]).push(...trailing.map(keptEntry));
  else if (trailing.length)
    warnings.push(`${trailing.length} entries with nothing Continue keeps (no message it sends): not written`);
  if (droppedMedia)
    warnings.push(
      `${droppedMedia} image(s) or file(s) in tool results: Continue keeps a call's output as text; a note stands for each`,
    );
  if (orphans)
    warnings.push(
      `${orphans} tool result(s) without their call written as user text (Continue keeps a result only with its call)`,
    );
  // the first item says threadbase wrote the session (Continue keeps an item's `threadbase` when it
  // rewrites the file, not a field of the document's own): history.ts reads it back
  const first = items[0];
  if (first) first.threadbase = { ...((first.threadbase as JsonObject | undefined) ?? {}), writtenBy: WRITTEN_BY };
  const doc: JsonObject = {
    sessionId: head.sessionId,
    title: head.title,
    workspaceDirectory: head.workspaceDirectory,
    history: items,
  };
  return { doc, warnings };
}
