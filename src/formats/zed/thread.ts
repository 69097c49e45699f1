/**
 * One Zed agent thread (a row of `threads.db`) to a Session. Shapes from zed-industries/zed:
 * - crates/agent/src/db.rs (DbThread, version "0.3.0"; the `threads` table: id, summary, updated_at,
 *   data_type 'json'|'zstd', data, and later parent_id, folder_paths, folder_paths_order, created_at)
 * - crates/agent/src/thread.rs (Message = {"User": UserMessage} | {"Agent": AgentMessage} | "Resume",
 *   serde's external tagging: {"Text": …}, {"Mention": {uri, content}}, {"Image": {source, size}},
 *   {"Thinking": {text, signature}}, {"RedactedThinking": …}, {"ToolUse": {id, name, raw_input, input, …}})
 * - crates/agent/src/legacy_thread.rs (SerializedThread "0.1.0"/"0.2.0" and the unversioned first
 *   layout: messages with role, segments, tool_uses, tool_results, context)
 * - language_model TokenUsage: input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens
 */

import { countMessages, firstUserLine } from '../../model/tree.js';
import {
  addUsage,
  type Entry,
  emptyUsage,
  type Message,
  type ParseWarning,
  type Part,
  type Session,
  type ToolResultContent,
  type ToolResultPart,
  type Usage,
} from '../../model/types.js';
import { summarizeUsage } from '../../model/usage.js';
import { parseJson } from '../shared/jsonl.js';

export const SOURCE = 'zed';

export type JsonObject = Record<string, unknown>;
export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** What Zed sends for a Resume message (thread.rs: after the tool-use limit was reached). */
export const RESUME_TEXT = 'Continue where you left off';

export interface ThreadRow {
  id: string;
  summary: string;
  updated_at: string;
  created_at?: string | null;
  parent_id?: string | null;
  folder_paths?: string | null;
}

export function tokenUsage(u: unknown): Usage | undefined {
  if (!isObject(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const usage = {
    input: n(u.input_tokens),
    output: n(u.output_tokens),
    cacheRead: n(u.cache_read_input_tokens),
    cacheWrite: n(u.cache_creation_input_tokens),
    reasoning: 0,
  };
  return usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0 ? usage : undefined;
}

/** serde's externally tagged enum value: {"Variant": payload} or "Variant". */
function variant(v: unknown): [string, unknown] | undefined {
  if (typeof v === 'string') return [v, undefined];
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1) return [keys[0] as string, v[keys[0] as string]];
  }
  return undefined;
}

function image(v: unknown): Part | undefined {
  if (!isObject(v) || typeof v.source !== 'string') return undefined;
  // LanguageModelImage: base64 PNG (Zed converts every image to PNG before storing it).
  return { type: 'image', mediaType: 'image/png', data: v.source, ...(isObject(v.size) ? { meta: { size: v.size } } : {}) };
}

function resultContent(c: unknown): ToolResultContent[] {
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  if (Array.isArray(c)) return c.flatMap(resultContent);
  const v = variant(c);
  if (v?.[0] === 'Text' && typeof v[1] === 'string') return [{ type: 'text', text: v[1] }];
  if (v?.[0] === 'Image') {
    const img = image(v[1]);
    return img && img.type === 'image' ? [img] : [];
  }
  if (isObject(c) && typeof c.text === 'string') return [{ type: 'text', text: c.text }];
  return [];
}

function toolResult(r: JsonObject, fallbackId: string): ToolResultPart {
  const content = resultContent(r.content);
  const part: ToolResultPart = {
    type: 'tool_result',
    callId: str(r.tool_use_id) ?? fallbackId,
    content: content.length === 1 && content[0]?.type === 'text' ? content[0].text : content,
  };
  if (typeof r.tool_name === 'string') part.name = r.tool_name;
  if (r.is_error === true) part.isError = true;
  if (r.output !== undefined && r.output !== null) part.meta = { output: r.output };
  return part;
}

function toolUse(u: JsonObject): Part {
  let input = isObject(u.input) ? u.input : undefined;
  if (!input && typeof u.raw_input === 'string') {
    try {
      const parsed: unknown = parseJson(u.raw_input);
      if (isObject(parsed)) input = parsed;
    } catch {
      // an input still streaming when the thread was saved
    }
  }
  const meta: JsonObject = {};
  if (u.is_input_complete === false) meta.incomplete = true;
  if (typeof u.thought_signature === 'string') meta.thoughtSignature = u.thought_signature;
  return {
    type: 'tool_call',
    id: str(u.id) ?? '',
    name: str(u.name) ?? '',
    input: input ?? {},
    ...(Object.keys(meta).length ? { meta } : {}),
  };
}

/**
 * A thinking signature is the provider's: Anthropic's (Zed's own models are Claude through zed.dev)
 * goes in `signature`; another provider's stays in meta so no writer sends it to Anthropic.
 */
function signatureOf(sig: unknown, model?: { model?: string; provider?: string }): { signature?: string; meta?: JsonObject } {
  if (typeof sig !== 'string') return {};
  const anthropic =
    model?.provider === 'anthropic' ||
    (model?.provider === 'zed.dev' && (model.model ?? '').startsWith('claude')) ||
    !model?.provider;
  return anthropic ? { signature: sig } : { meta: { signature: sig, signatureProvider: model?.provider } };
}

/**
 * The id of a message Zed gives none of its own (an agent message, a Resume, a legacy message): its
 * place `m<n>` after its thread's id. Every entry has its thread's time (Zed keeps none per message), so
 * a place alone would be the same id and time in another thread saved in the same millisecond, which
 * the index takes for a copy of one entry (searched and counted once, src/stores/sqlite/copies.ts).
 */
const placed = (threadId: string, n: number | string): string => `${threadId}:m${n}`;

interface Built {
  entries: Entry[];
  warnings: ParseWarning[];
}

/** Adds each message to `entries` as a child of the one before (Zed threads are linear, one time for all). */
function chainTo(entries: Entry[], ts: string): (id: string, message: Message, raw: unknown) => void {
  return (id, message, raw) => {
    entries.push({
      id,
      parentId: entries[entries.length - 1]?.id ?? null,
      timestamp: ts,
      kind: 'message',
      message,
      raw,
      rawSource: SOURCE,
    });
  };
}

/** DbThread "0.3.0": messages are User / Agent / Resume. */
function buildCurrent(
  thread: JsonObject,
  place: { file: string; id: string },
  ts: string,
  model?: { model?: string; provider?: string },
): Built {
  const entries: Entry[] = [];
  const warnings: ParseWarning[] = [];
  const usageByUser = isObject(thread.request_token_usage) ? thread.request_token_usage : {};
  const messages = Array.isArray(thread.messages) ? thread.messages : [];
  const add = chainTo(entries, ts);
  let turnUser: string | undefined;
  let lastAgent: Message | undefined;
  const closeTurn = () => {
    if (turnUser && lastAgent) {
      const u = tokenUsage(usageByUser[turnUser]);
      if (u) lastAgent.usage = u;
    }
    lastAgent = undefined;
  };
  messages.forEach((m, i) => {
    const v = variant(m);
    if (!v) {
      warnings.push({ ...place, message: `message ${i} is not a User, Agent or Resume message` });
      return;
    }
    const [kind, body] = v;
    if (kind === 'User' && isObject(body)) {
      closeTurn();
      const parts: Part[] = [];
      for (const c of Array.isArray(body.content) ? body.content : []) {
        const cv = variant(c);
        if (cv?.[0] === 'Text' && typeof cv[1] === 'string') parts.push({ type: 'text', text: cv[1] });
        else if (cv?.[0] === 'Mention' && isObject(cv[1]))
          parts.push({ type: 'text', text: str(cv[1].content) ?? '', meta: { mentionUri: cv[1].uri } });
        else if (cv?.[0] === 'Image') {
          const img = image(cv[1]);
          if (img) parts.push(img);
        } else parts.push({ type: 'text', text: '', meta: { zedContent: c } });
      }
      const id = str(body.id) ?? placed(place.id, i);
      turnUser = str(body.id);
      add(id, { role: 'user', parts }, m);
    } else if (kind === 'Agent' && isObject(body)) {
      const parts: Part[] = [];
      for (const c of Array.isArray(body.content) ? body.content : []) {
        const cv = variant(c);
        if (cv?.[0] === 'Text' && typeof cv[1] === 'string') parts.push({ type: 'text', text: cv[1] });
        else if (cv?.[0] === 'Thinking' && isObject(cv[1])) {
          parts.push({
            type: 'thinking',
            thinking: str(cv[1].text) ?? '',
            ...signatureOf(cv[1].signature, model),
          });
        } else if (cv?.[0] === 'RedactedThinking' && typeof cv[1] === 'string')
          parts.push({ type: 'redacted_thinking', data: cv[1] });
        else if (cv?.[0] === 'ToolUse' && isObject(cv[1])) parts.push(toolUse(cv[1]));
        else parts.push({ type: 'text', text: '', meta: { zedContent: c } });
      }
      const message: Message = {
        role: 'assistant',
        parts,
        ...(model?.model ? { model: model.model } : {}),
        ...(model?.provider ? { provider: model.provider } : {}),
      };
      if (body.reasoning_details !== undefined && body.reasoning_details !== null)
        message.meta = { reasoningDetails: body.reasoning_details };
      const id = placed(place.id, i);
      add(id, message, m);
      lastAgent = message;
      const results = isObject(body.tool_results) ? Object.entries(body.tool_results) : [];
      if (results.length) {
        add(`${id}:results`, { role: 'tool', parts: results.map(([k, r]) => toolResult(isObject(r) ? r : {}, k)) }, undefined);
      }
    } else if (kind === 'Resume') {
      add(placed(place.id, i), { role: 'user', parts: [{ type: 'text', text: RESUME_TEXT }], meta: { zedResume: true } }, m);
    } else warnings.push({ ...place, message: `message ${i}: unknown kind ${JSON.stringify(kind)}` });
  });
  closeTurn();
  return { entries, warnings };
}

/** SerializedThread "0.1.0"/"0.2.0" and the unversioned first layout. */
function buildLegacy(
  thread: JsonObject,
  place: { file: string; id: string },
  ts: string,
  model?: { model?: string; provider?: string },
): Built {
  const entries: Entry[] = [];
  const warnings: ParseWarning[] = [];
  const usage = Array.isArray(thread.request_token_usage) ? thread.request_token_usage : [];
  const messages = Array.isArray(thread.messages) ? thread.messages : [];
  const add = chainTo(entries, ts);
  messages.forEach((m, i) => {
    if (!isObject(m)) {
      warnings.push({ ...place, message: `message ${i} is not an object` });
      return;
    }
    const role = str(m.role)?.toLowerCase();
    const parts: Part[] = [];
    if (typeof m.context === 'string' && m.context) parts.push({ type: 'text', text: m.context, meta: { zedContext: true } });
    if (typeof m.text === 'string') parts.push({ type: 'text', text: m.text });
    for (const s of Array.isArray(m.segments) ? m.segments.filter(isObject) : []) {
      if (s.type === 'text') parts.push({ type: 'text', text: str(s.text) ?? '' });
      else if (s.type === 'thinking')
        parts.push({
          type: 'thinking',
          thinking: str(s.text) ?? '',
          ...signatureOf(s.signature, model),
        });
      else if (typeof s.data === 'string') parts.push({ type: 'redacted_thinking', data: s.data });
    }
    for (const u of Array.isArray(m.tool_uses) ? m.tool_uses.filter(isObject) : []) parts.push(toolUse(u));
    const results = (Array.isArray(m.tool_results) ? m.tool_results.filter(isObject) : []).map((r, k) =>
      toolResult(r, `m${i}:${k}`),
    );
    const id = placed(place.id, typeof m.id === 'number' ? m.id : i);
    const meta = m.is_hidden === true ? { hidden: true } : undefined;
    if (role === 'assistant') {
      const message: Message = {
        role: 'assistant',
        parts,
        ...(model?.model ? { model: model.model } : {}),
        ...(model?.provider ? { provider: model.provider } : {}),
      };
      const u = tokenUsage(usage[i]);
      if (u) message.usage = u;
      if (meta) message.meta = meta;
      add(id, message, m);
      if (results.length) add(`${id}:results`, { role: 'tool', parts: results }, undefined);
    } else if (role === 'user') {
      // 0.1.0 kept tool results on the following user message.
      if (results.length && parts.every((p) => p.type === 'text' && !p.text)) add(id, { role: 'tool', parts: results }, m);
      else add(id, { role: results.length ? 'tool' : 'user', parts: [...results, ...parts], ...(meta ? { meta } : {}) }, m);
    } else if (role === 'system') {
      add(id, { role: 'system', parts }, m);
    } else warnings.push({ ...place, message: `message ${i}: unknown role ${JSON.stringify(m.role)}` });
  });
  return { entries, warnings };
}

/** folder_paths as PathList::serialize writes it: the paths joined by newlines. */
export function folderPaths(s: string | null | undefined): string[] {
  return s ? s.split('\n').filter(Boolean) : [];
}

/**
 * Zed's running total (cumulative_token_usage) counts every request of the thread; its per-turn
 * figures (request_token_usage) only each turn's last request. What the turns' figures leave out (the
 * earlier requests of each turn's tool loop) goes on the thread's last agent message, so that the
 * messages sum to Zed's total, which `stats` and the index count; that message's own figure stays in
 * its meta (`zedTurnUsage`). A total below the turns' figures adds nothing.
 */
function spreadRemainder(entries: Entry[], cumulative: Usage, perTurn: Usage): void {
  const rest: Usage = {
    input: Math.max(0, cumulative.input - perTurn.input),
    output: Math.max(0, cumulative.output - perTurn.output),
    cacheRead: Math.max(0, cumulative.cacheRead - perTurn.cacheRead),
    cacheWrite: Math.max(0, cumulative.cacheWrite - perTurn.cacheWrite),
    reasoning: Math.max(0, cumulative.reasoning - perTurn.reasoning),
  };
  if (Object.values(rest).every((n) => n === 0)) return;
  const last = entries.findLast((e) => e.kind === 'message' && e.message.role === 'assistant');
  if (last?.kind !== 'message') return;
  const m = last.message;
  m.meta = { ...m.meta, zedTurnUsage: m.usage ?? null };
  m.usage = addUsage(m.usage ?? emptyUsage(), rest);
}

/** A time as UTC ISO 8601 with `Z` (the model's form); kept as given when it is no time. */
function isoTime(s: string): string {
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toISOString();
}

export function threadToSession(row: ThreadRow, thread: JsonObject | undefined, file: string, warnings: ParseWarning[]): Session {
  const place = { file, id: row.id };
  // Zed writes its row times with an offset (`+00:00`) and the thread's with `Z`: one form (UTC, `Z`), so
  // times sort and filter alike everywhere
  const updatedAt = isoTime(str(thread?.updated_at) ?? row.updated_at);
  const createdAt = row.created_at ? isoTime(row.created_at) : updatedAt;
  const modelObj =
    thread && isObject(thread.model) ? { model: str(thread.model.model), provider: str(thread.model.provider) } : undefined;
  const built: Built = !thread
    ? { entries: [], warnings: [] }
    : thread.version === '0.3.0' ||
        (Array.isArray(thread.messages) && thread.messages.some((m) => variant(m)?.[0] === 'User' || variant(m)?.[0] === 'Agent'))
      ? buildCurrent(thread, place, updatedAt, modelObj)
      : buildLegacy(thread, place, updatedAt, modelObj);
  const entries = built.entries;
  const folders = folderPaths(row.folder_paths);
  const snapshot = thread && isObject(thread.initial_project_snapshot) ? thread.initial_project_snapshot : undefined;
  const worktrees =
    snapshot && Array.isArray(snapshot.worktree_snapshots)
      ? snapshot.worktree_snapshots
          .filter(isObject)
          .map((w) => str(w.worktree_path))
          .filter((p): p is string => !!p)
      : [];
  const roots = folders.length ? folders : worktrees;
  const sub = thread && isObject(thread.subagent_context) ? thread.subagent_context : undefined;
  const cumulative = thread ? tokenUsage(thread.cumulative_token_usage) : undefined;
  const perTurn = summarizeUsage(entries).usage;
  if (cumulative) spreadRemainder(entries, cumulative, perTurn);
  // Every agent message is one model request: one Zed kept no figure of (a turn's earlier requests)
  // is a response of zero tokens of its own, so that it counts as a response wherever usage is summed.
  for (const e of entries)
    if (e.kind === 'message' && e.message.role === 'assistant' && !e.message.usage) {
      e.message.usage = emptyUsage();
      e.message.meta = { ...e.message.meta, zedTurnUsage: null };
    }
  const summary = summarizeUsage(entries);
  const meta: JsonObject = {};
  if (thread) {
    for (const k of [
      'version',
      'detailed_summary',
      'profile',
      'imported',
      'speed',
      'thinking_enabled',
      'thinking_effort',
      'completion_mode',
    ]) {
      if (thread[k] !== undefined && thread[k] !== null) meta[k] = thread[k];
    }
    if (isObject(thread.detailed_summary_state)) meta.detailed_summary_state = thread.detailed_summary_state;
    if (snapshot) meta.initialProjectSnapshot = snapshot;
  }
  if (cumulative) {
    meta.perTurnUsage = perTurn;
    meta.cumulativeUsage = cumulative;
  }
  return {
    id: row.id,
    source: SOURCE,
    project: roots[0],
    ...(roots.length > 1 ? { directories: roots.slice(1) } : {}),
    title: row.summary || str(thread?.title) || str(thread?.summary) || firstUserLine(entries),
    createdAt,
    updatedAt,
    messageCount: countMessages(entries),
    parentId: row.parent_id ?? (sub ? (str(sub.parent_thread_id) ?? null) : null),
    ...(sub && typeof sub.tool_use_id === 'string' ? { parentToolCallId: sub.tool_use_id } : {}),
    models: modelObj?.model ? [modelObj.model] : summary.models,
    // Zed's own running total, which the messages now sum to (see spreadRemainder)
    usage: summary.usage,
    path: file,
    meta,
    entries,
    warnings: [...warnings, ...built.warnings],
    // The row and every thread field but the messages (those are in the entries' raw): nothing dropped.
    raw: { row, thread: thread ? Object.fromEntries(Object.entries(thread).filter(([k]) => k !== 'messages')) : undefined },
  };
}
