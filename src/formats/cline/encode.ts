/**
 * A session of the model as Cline CLI messages (ClineStorageMessage, @cline/core 0.0.86): Anthropic
 * messages with `id`, `ts`, `modelInfo` and `metrics`. Consecutive model messages of one wire role
 * become one Cline message (Claude Code's per-block records of one response, a tool message and the
 * user's words after it), and every tool call is answered in the next user message (the Messages API
 * wants it so). What Cline has no field for goes into the message's `threadbase` field, which Cline
 * 3.0.65 keeps when it rewrites the file on resume (block-level fields it drops): each model entry's
 * id, time and fields, its parts' meta, tool ids it renamed, and the entries of other kinds before it.
 * sessions.ts reads it back.
 */
import { AnthropicToolIds, partToAnthropicBlock } from '../../convert/anthropic.js';
import { missingResult } from '../../convert/pairing.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import type { Entry, Message, Part, ToolCallPart } from '../../model/types.js';
import { isObject, type JsonObject } from './sessions.js';

type Wire = 'user' | 'assistant';

/** One model entry of a Cline message: a message entry, or a summary sent as a user turn. */
interface Item {
  entry: Entry;
  message: Message;
}

interface Group {
  role: Wire;
  items: Item[];
  /** entries of other kinds on the path before the group (no Cline message of their own) */
  before: Entry[];
}

/** A compaction or branch summary is sent as a user turn of its text; the entry itself kept beside it. */
function summaryMessage(e: Entry): Message | undefined {
  if (e.kind === 'compaction') return { role: 'user', parts: [{ type: 'text', text: e.summary }] };
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

/** A part as Cline keeps it: a tool result read from Cline gets its own JSON content back, typed text its mode. */
function blockOf(p: Part): JsonObject | undefined {
  if (p.type === 'text' && typeof p.meta?.clineUserInputMode === 'string')
    return { type: 'text', text: `<user_input mode="${p.meta.clineUserInputMode}">${p.text}</user_input>` };
  const b = partToAnthropicBlock(p, { dropEmptyText: false }) as JsonObject | undefined;
  if (!b || p.type !== 'tool_result') return b;
  if (p.meta?.clineContent !== undefined) b.content = p.meta.clineContent;
  if (p.name) b.name = p.name;
  return b;
}

export interface EncodedCline {
  messages: JsonObject[];
  warnings: string[];
  /** the last assistant message's model and provider */
  model?: string;
  provider?: string;
}

function groupsOf(path: readonly Entry[]): { groups: Group[]; after: Entry[]; systems: number } {
  const groups: Group[] = [];
  let pending: Entry[] = [];
  let systems = 0;
  for (const e of path) {
    const summary = summaryMessage(e);
    const message = e.kind === 'message' ? e.message : summary;
    const role = message ? wireRole(message) : undefined;
    if (!message || !role) {
      if (message) systems++;
      pending.push(e);
      continue;
    }
    const last = groups.at(-1);
    // a summary opens a turn of its own; entries of other kinds between two messages split them
    if (last && last.role === role && pending.length === 0 && !summary && last.items.every((i) => i.entry.kind === 'message'))
      last.items.push({ entry: e, message });
    else {
      groups.push({ role, items: [{ entry: e, message }], before: pending });
      pending = [];
    }
  }
  return { groups, after: pending, systems };
}

/** The entries of a linear session (root to leaf) as Cline messages. */
export function encodeClineMessages(path: readonly Entry[]): EncodedCline {
  const { groups, after, systems } = groupsOf(path);
  const warnings: string[] = [];
  if (systems) warnings.push(`${systems} system message(s) have no Cline message; kept in a threadbase field, not sent`);
  const ids = new AnthropicToolIds();
  const out: JsonObject[] = [];
  let model: string | undefined;
  let provider: string | undefined;
  /** calls not answered yet, by the id they were written with */
  const open = new Map<string, ToolCallPart>();
  const answerOpen = (): JsonObject[] => {
    const results = [...open.values()].map((call) => partToAnthropicBlock(missingResult(call)) as JsonObject);
    open.clear();
    return results;
  };
  for (const g of groups) {
    const first = g.items[0] as Item;
    const ts = Date.parse(g.items.at(-1)?.entry.timestamp ?? first.entry.timestamp);
    const when = Number.isFinite(ts) ? ts : Date.now();
    if (g.role === 'assistant' && open.size && out.length) {
      // an assistant turn after calls no user turn answered: their results first, in a turn threadbase adds
      out.push({
        id: `${first.entry.id}:results`,
        role: 'user',
        content: answerOpen(),
        ts: when,
        threadbase: { synthetic: true },
      });
    }
    const content: JsonObject[] = [];
    const kept: JsonObject[] = [];
    if (g.role === 'user' && open.size) {
      const added = answerOpen();
      content.push(...added);
      kept.push({ id: `${first.entry.id}:unanswered`, parts: added.length, synthetic: true });
    }
    for (const { entry, message } of g.items) {
      const { message: renamed, originals } = ids.rename(providerCallsAsNotes(message));
      const partMeta: (JsonObject | null)[] = [];
      const toolIds: (string | null)[] = [];
      let n = 0;
      for (const p of renamed.parts) {
        const b = blockOf(p);
        if (!b) continue;
        content.push(b);
        n++;
        partMeta.push(p.meta && Object.keys(p.meta).length ? (p.meta as JsonObject) : null);
        toolIds.push(originals.get(p) ?? null);
        if (p.type === 'tool_call') open.set(p.id, p);
        if (p.type === 'tool_result') open.delete(p.callId);
      }
      kept.push({
        id: entry.id,
        timestamp: entry.timestamp,
        parts: n,
        ...(entry.kind === 'message' ? { message: keptFields(message) } : { entry }),
        ...(partMeta.some((m) => m) ? { partMeta } : {}),
        ...(toolIds.some((t) => t) ? { toolIds } : {}),
      });
      if (message.role === 'assistant') {
        model = message.model ?? model;
        provider = message.provider ?? provider;
      }
    }
    const messages = g.items.map((i) => i.message);
    const msg: JsonObject = { id: first.entry.id, role: g.role, content, ts: when };
    if (g.role === 'assistant') {
      const named = messages.findLast((m) => m.model);
      if (named?.model) msg.modelInfo = { id: named.model, provider: named.provider ?? 'anthropic' };
      const usage = messages.findLast((m) => m.usage)?.usage;
      const cost = messages.findLast((m) => m.cost !== undefined)?.cost;
      if (usage || cost !== undefined)
        msg.metrics = {
          inputTokens: usage?.input ?? 0,
          outputTokens: usage?.output ?? 0,
          cacheReadTokens: usage?.cacheRead ?? 0,
          cacheWriteTokens: usage?.cacheWrite ?? 0,
          ...(cost !== undefined ? { cost } : {}),
        };
    }
    msg.threadbase = { ...(g.before.length ? { before: g.before } : {}), entries: kept };
    out.push(msg);
  }
  const last = out.at(-1);
  if (after.length && last && isObject(last.threadbase)) last.threadbase.after = after;
  if (open.size) {
    out.push({
      id: `${String(last?.id ?? 'end')}:results`,
      role: 'user',
      content: answerOpen(),
      ts: last?.ts ?? Date.now(),
      threadbase: { synthetic: true },
    });
  }
  return { messages: out, warnings, ...(model ? { model } : {}), ...(provider ? { provider } : {}) };
}
