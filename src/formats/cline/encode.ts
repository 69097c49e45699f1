/**
 * A session of the model as Cline CLI messages (ClineStorageMessage, @cline/core 0.0.86): Anthropic
 * messages with `id`, `ts`, `modelInfo` and `metrics`, one per model entry (Cline's provider layer
 * merges consecutive messages of one role into one API turn, as it does with the tool messages it
 * splits a user message into). Every tool call is answered before the next turn (the Messages API
 * wants it so), and a result names its tool (Cline turns it into an AI SDK tool result, which needs
 * the name). What Cline has no field for goes into the message's `metadata.threadbase`: Cline 3.0.65
 * keeps a message's `metadata` when it rewrites the file on resume (other unknown fields it drops),
 * copying it onto each piece of a message it splits. It holds the entry's id, time and fields, its
 * parts' meta, tool ids renamed for the API, and the entries of other kinds before it. sessions.ts
 * reads it back.
 */
import { AnthropicToolIds, partToAnthropicBlock } from '../../convert/anthropic.js';
import { declinedMarkOf } from '../../convert/declined.js';
import { missingResult } from '../../convert/pairing.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { notAppliedOnResume } from '../../model/tree.js';
import type { Entry, Message, Part, ThinkingPart, ToolCallPart, ToolResultContent, ToolResultPart } from '../../model/types.js';
import { clineDeclinedContent, clineDeclinedMark, clineMissingResultBlock } from './denials.js';
import { isObject, type JsonObject } from './salvage.js';

type Wire = 'user' | 'assistant';

/**
 * A compaction or branch summary is sent as a user turn of its text; the entry itself kept beside it.
 * A compaction of Cline's own that Cline does not apply on resume (compaction.ts) has none: Cline sends
 * every message, and so the copy.
 */
function summaryMessage(e: Entry): Message | undefined {
  if (e.kind === 'compaction')
    return notAppliedOnResume(e) ? undefined : { role: 'user', parts: [{ type: 'text', text: e.summary }] };
  if (e.kind === 'branch_summary') return { role: 'user', parts: [{ type: 'text', text: e.text ?? e.summary }] };
  return undefined;
}

function wireRole(m: Message): Wire | undefined {
  if (m.role === 'assistant') return 'assistant';
  if (m.role === 'user' || m.role === 'tool') return 'user';
  return undefined;
}

const MESSAGE_FIELDS = [
  'role',
  'model',
  'provider',
  'api',
  'usage',
  'cost',
  'stopReason',
  'error',
  'responseId',
  'meta',
] as const;

function keptFields(m: Message): JsonObject {
  const out: JsonObject = {};
  for (const k of MESSAGE_FIELDS) if (m[k] !== undefined) out[k] = m[k];
  return out;
}

/**
 * Cline's own form of an image with its data (`{type: 'image', data, mediaType}`: an Anthropic image
 * block it drops) and of a file with its text (`{type: 'file', path, content}`); undefined for others.
 */
function clineMediaBlock(p: Part | ToolResultContent): JsonObject | undefined {
  if (p.type === 'image' && p.data !== undefined) return { type: 'image', data: p.data, mediaType: p.mediaType };
  if (p.type === 'file' && p.text !== undefined) return { type: 'file', path: p.name ?? 'file', content: p.text };
  return undefined;
}

/** A part as Cline keeps it: a tool result read from Cline gets its own JSON content back, typed text its mode. */
function blockOf(p: Part): JsonObject | undefined {
  if (p.type === 'text' && typeof p.meta?.clineUserInputMode === 'string')
    return { type: 'text', text: `<user_input mode="${p.meta.clineUserInputMode}">${p.text}</user_input>` };
  const media = clineMediaBlock(p);
  if (media) return media;
  const b = partToAnthropicBlock(p, { dropEmptyText: false }) as JsonObject | undefined;
  if (!b || p.type !== 'tool_result') return b;
  const mark = declinedMarkOf(p);
  if (mark && clineDeclinedMark(resultText(p)) !== mark) {
    // a refused or cancelled call in Cline's words, unless already (denials.ts)
    b.content = clineDeclinedContent(mark);
    b.is_error = true;
  } else if (p.meta?.clineContent !== undefined) b.content = p.meta.clineContent;
  else if (Array.isArray(p.content) && p.content.some((c) => clineMediaBlock(c)))
    b.content = p.content.map((c) => clineMediaBlock(c) ?? partToAnthropicBlock(c));
  if (p.name) b.name = p.name;
  return b;
}

/** Thinking Cline does not send (@cline/llms sends only signed reasoning): redacted, or without a signature. */
const clineDropsThinking = (p: Part): boolean => p.type === 'redacted_thinking' || (p.type === 'thinking' && !p.signature);

/** Whether a part is thinking written as a text block: unsigned, not blank, in a reply of thinking only (thinkingAsText). */
const writtenAsText = (p: Part, asText: boolean): p is ThinkingPart =>
  asText && p.type === 'thinking' && !p.signature && p.thinking.trim() !== '';

/**
 * The message entries whose unsigned thinking is written as text: those of an assistant turn (consecutive
 * assistant messages, which Cline merges into one) of only thinking Cline does not send, some of it not blank.
 * Kept as thinking, Cline would send that turn as an assistant message with no content, which the Messages API
 * refuses (400) before the last message; as text Cline sends it (as Claude Code and pi send such thinking), and
 * sessions.ts reads it back as thinking (meta.sentAsText). A turn of redacted or blank thinking only has nothing
 * to write so: it is still sent with no content (FORMAT.md).
 */
function thinkingAsText(path: readonly Entry[]): Set<Entry> {
  const out = new Set<Entry>();
  let turn: Entry[] = [];
  const close = () => {
    const parts = turn.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
    if (parts.every(clineDropsThinking) && parts.some((p) => writtenAsText(p, true))) for (const e of turn) out.add(e);
    turn = [];
  };
  for (const e of path) {
    const message = e.kind === 'message' ? e.message : summaryMessage(e);
    const role = message ? wireRole(message) : undefined;
    if (role === 'assistant') turn.push(e);
    else if (role) close();
  }
  close();
  return out;
}

export interface EncodedCline {
  messages: JsonObject[];
  warnings: string[];
  /** the last assistant message's model and provider */
  model?: string;
  provider?: string;
}

/** A tool result's text, its other content named. */
function resultText(p: ToolResultPart): string {
  if (typeof p.content === 'string') return p.content;
  return p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/**
 * The path in the order Cline is to send it: from its last compaction on (the summary, the messages
 * it kept, what came after), the entries before it, which the model no longer sees, kept beside the
 * summary (Cline sends every message it has). Read back they come before it again.
 */
function fromLastCompaction(path: readonly Entry[]): { hidden: Entry[]; sent: Entry[]; keptIds?: string[] } {
  const at = path.findLastIndex((e) => e.kind === 'compaction' && !notAppliedOnResume(e));
  const c = path[at];
  if (c?.kind !== 'compaction') return { hidden: [], sent: [...path] };
  const keptFrom = c.firstKeptEntryId ? path.findIndex((e, i) => i < at && e.id === c.firstKeptEntryId) : -1;
  const end = keptFrom >= 0 ? keptFrom : at;
  const kept = path.slice(end, at);
  return { hidden: path.slice(0, end), sent: [c, ...kept, ...path.slice(at + 1)], keptIds: kept.map((e) => e.id) };
}

/** The entries of a linear session (root to leaf) as Cline messages. */
export function encodeClineMessages(fullPath: readonly Entry[]): EncodedCline {
  const { hidden, sent: path, keptIds } = fromLastCompaction(fullPath);
  const asText = thinkingAsText(path);
  const warnings: string[] = [];
  const ids = new AnthropicToolIds();
  const out: JsonObject[] = [];
  let model: string | undefined;
  let provider: string | undefined;
  let systems = 0;
  /** entries with no Cline message of their own, kept on the next message */
  let pending: Entry[] = [...hidden];
  /** calls not answered yet, by the id they were written with */
  const open = new Map<string, ToolCallPart>();
  /** each call's tool name by the id it was written with */
  const names = new Map<string, string>();
  const answerOpen = (ts: number, at: string) => {
    if (!open.size) return;
    // in Cline's words for them, so resumed it sends what it sends for its own call left without a result
    const content = [...open.values()].map((call) => ({
      ...(partToAnthropicBlock({ ...missingResult(call), content: [clineMissingResultBlock(call.name)] }) as JsonObject),
      name: call.name,
    }));
    open.clear();
    out.push({ id: `${at}:unanswered`, role: 'user', content, ts, metadata: { threadbase: { synthetic: true } } });
  };
  for (const e of path) {
    const summary = summaryMessage(e);
    const message = e.kind === 'message' ? e.message : summary;
    const role = message ? wireRole(message) : undefined;
    if (!message || !role) {
      if (message) systems++;
      pending.push(e);
      continue;
    }
    const parsed = Date.parse(e.timestamp);
    const ts = Number.isFinite(parsed) ? parsed : Date.now();
    const { message: renamed, originals } = ids.rename(providerCallsAsNotes(message));
    const answers = renamed.parts.some((p) => p.type === 'tool_result');
    const sameTurn = role === 'assistant' && out.at(-1)?.role === 'assistant';
    // calls left unanswered get their results before the next turn
    if (open.size && !answers && !sameTurn) answerOpen(ts, String(out.at(-1)?.id ?? e.id));
    const content: JsonObject[] = [];
    const partMeta: (JsonObject | null)[] = [];
    const toolIds: (string | null)[] = [];
    /** parts written as another block than their own, by index: read back as they were */
    const asWritten: (Part | null)[] = [];
    for (const p of renamed.parts) {
      let b = blockOf(p);
      if (!b) continue;
      let original: Part | null = null;
      if (p.type === 'tool_result' && !names.has(p.callId)) {
        // a result whose call Cline was not given (before a compaction, or never recorded): the API
        // refuses a result without its call, so it is sent as text, the result kept beside it
        original = { ...p, callId: originals.get(p) ?? p.callId };
        b = { type: 'text', text: `[result of tool call ${p.callId}]\n${resultText(p)}` };
      } else if (writtenAsText(p, asText.has(e))) {
        original = p;
        b = { type: 'text', text: p.thinking };
      }
      asWritten.push(original);
      if (p.type === 'tool_call') {
        names.set(p.id, p.name);
        open.set(p.id, p);
      }
      if (p.type === 'tool_result' && !original) {
        if (typeof b.name !== 'string') b.name = names.get(p.callId) ?? 'unknown';
        open.delete(p.callId);
      }
      content.push(b);
      partMeta.push(p.meta && Object.keys(p.meta).length ? (p.meta as JsonObject) : null);
      toolIds.push(originals.get(p) ?? null);
    }
    const kept: JsonObject = {
      id: e.id,
      timestamp: e.timestamp,
      ...(e.kind === 'message' ? { message: keptFields(message) } : { entry: e }),
      // read back, a compaction goes after the turns it kept again, where the source had it
      ...(e.kind === 'compaction' && keptIds?.length ? { keptBefore: keptIds } : {}),
      ...(partMeta.some((m) => m) ? { partMeta } : {}),
      ...(toolIds.some((t) => t) ? { toolIds } : {}),
      ...(asWritten.some((p) => p) ? { asWritten } : {}),
      ...(pending.length ? { before: pending } : {}),
    };
    pending = [];
    const msg: JsonObject = { id: e.id, role, content, ts };
    if (role === 'assistant') {
      model = message.model ?? model;
      provider = message.provider ?? provider;
      if (message.model) msg.modelInfo = { id: message.model, provider: message.provider ?? 'anthropic' };
      if (message.usage || message.cost !== undefined)
        msg.metrics = {
          inputTokens: message.usage?.input ?? 0,
          outputTokens: message.usage?.output ?? 0,
          cacheReadTokens: message.usage?.cacheRead ?? 0,
          cacheWriteTokens: message.usage?.cacheWrite ?? 0,
          ...(message.cost !== undefined ? { cost: message.cost } : {}),
        };
    }
    msg.metadata = { threadbase: kept };
    out.push(msg);
  }
  const last = out.at(-1);
  const lastKept = isObject(last?.metadata) && isObject(last.metadata.threadbase) ? last.metadata.threadbase : undefined;
  if (pending.length && lastKept && !lastKept.synthetic) lastKept.after = pending;
  answerOpen(typeof last?.ts === 'number' ? last.ts : Date.now(), String(last?.id ?? 'end'));
  if (systems) warnings.push(`${systems} system message(s) have no Cline message; kept in a threadbase field, not sent`);
  return { messages: out, warnings, ...(model ? { model } : {}), ...(provider ? { provider } : {}) };
}
