/**
 * Cline sessions read into Sessions (FORMAT.md). Two layouts hold the same messages
 * (ClineStorageMessage: an Anthropic MessageParam with `id`, `ts`, `modelInfo`, `metrics`):
 * - the CLI (3.x, @cline/core): `<data>/sessions/<id>/<id>.json` (manifest) and
 *   `<id>.messages.json` (`{version, sessionId, messages: [...], system_prompt}`); a sub-agent's
 *   messages beside its root's as `<agentId>.messages.json`;
 * - the VS Code extension (Cline, and its forks Roo Code and Kilo Code):
 *   `<globalStorage>/<extension id>/tasks/<taskId>/api_conversation_history.json` (a bare array),
 *   with `task_metadata.json` and `ui_messages.json` beside it.
 * Messages form one chain; a message's `threadbase` field holds what threadbase wrote there that
 * Cline has no field for (encode.ts), read back here.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { partFromAnthropicBlock } from '../../convert/anthropic.js';
import { markDeclined } from '../../convert/declined.js';
import { countMessages, firstUserLine, titleLine } from '../../model/tree.js';
import type {
  Entry,
  FilePart,
  ImagePart,
  Message,
  ParseWarning,
  Part,
  Session,
  ToolResultContent,
  Usage,
} from '../../model/types.js';
import { summarizeUsage, usageByModelOf } from '../../model/usage.js';
import { parseJson } from '../shared/jsonl.js';
import { WRITTEN_BY, writtenByOf } from '../shared/written-by.js';
import { compactionFileOf, withCompactionState } from './compaction.js';
import { clineAbortedCommands, clineDeclinedMark } from './denials.js';
import { clineInjectedKind } from './injected.js';
import { clineRunEnded, withInterruptedResults } from './interrupted.js';
import { arrayOfKey, isObject, type JsonObject, readJsonObject, salvageArray } from './salvage.js';

export const SOURCE = 'cline';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** `<user_input mode="act">…</user_input>`: how Cline CLI stores what the user typed (the mode it was typed in). */
const USER_INPUT = /^<user_input mode="([^"]*)">([\s\S]*)<\/user_input>$/;

/**
 * Cline's own blocks where they are not Anthropic's: an image `{type: 'image', data, mediaType}`
 * (base64), a file `{type: 'file', path, content}` (its text); undefined for any other.
 */
function clineMediaPart(block: JsonObject): ImagePart | FilePart | undefined {
  if (block.type === 'image' && typeof block.data === 'string' && block.source === undefined)
    return { type: 'image', mediaType: str(block.mediaType) ?? 'image/png', data: block.data };
  if (block.type === 'file' && typeof block.content === 'string')
    return { type: 'file', mediaType: 'text/plain', text: block.content, ...(str(block.path) ? { name: str(block.path) } : {}) };
  return undefined;
}

/** A tool result's content blocks with Cline's images and files read as such. */
function resultBlocks(content: unknown[]): ToolResultContent[] | undefined {
  if (!content.some((b) => isObject(b) && clineMediaPart(b))) return undefined;
  return content.map((b): ToolResultContent => {
    const media = isObject(b) ? clineMediaPart(b) : undefined;
    if (media) return media;
    const p = partFromAnthropicBlock(b);
    return p.type === 'text' || p.type === 'image' || p.type === 'file'
      ? p
      : { type: 'text', text: '', meta: { anthropicBlock: b } };
  });
}

/** A Cline content block as a model part; a tool result whose content is no content blocks keeps it as JSON text. */
export function partOf(block: unknown, role: string): Part {
  const media = isObject(block) ? clineMediaPart(block) : undefined;
  if (media) return media;
  if (isObject(block) && block.type === 'text' && role === 'user' && typeof block.text === 'string') {
    const m = USER_INPUT.exec(block.text);
    if (m) return { type: 'text', text: m[2] as string, meta: { clineUserInputMode: m[1] } };
  }
  if (isObject(block) && block.type === 'tool_result') {
    const c = block.content;
    const blocks = Array.isArray(c) && c.every((b) => isObject(b) && typeof b.type === 'string');
    if (c !== undefined && typeof c !== 'string' && !blocks) {
      // Cline's own tools answer with JSON (read_files: [{query, result, success}]); sent as its JSON text
      const { content: _c, ...rest } = block;
      const part = partFromAnthropicBlock({ ...rest, content: JSON.stringify(c) });
      const name = str(block.name);
      // commands the user's abort stopped: cancelled, not made an error (markDeclined's): Cline sends it as none
      const cancelled = clineAbortedCommands(c) ? { cancelled: true } : {};
      return part.type === 'tool_result'
        ? { ...part, ...(name ? { name } : {}), meta: { ...dropKey(part.meta, 'name'), clineContent: c, ...cancelled } }
        : part;
    }
    const part = partFromAnthropicBlock(block);
    const name = str(block.name);
    const media = Array.isArray(c) ? resultBlocks(c) : undefined;
    const withContent = part.type === 'tool_result' && media ? { ...part, content: media } : part;
    const named =
      withContent.type === 'tool_result' && name
        ? { ...withContent, name, meta: dropKey(withContent.meta, 'name') }
        : withContent;
    // a call whose approval was not granted: refused, or dropped unasked (denials.ts)
    const mark = named.type === 'tool_result' && named.isError && typeof c === 'string' ? clineDeclinedMark(c) : undefined;
    return mark && named.type === 'tool_result' ? markDeclined(named, mark) : named;
  }
  return partFromAnthropicBlock(block);
}

/** part.meta without `anthropic.<key>` (a field the model part holds itself). */
function dropKey(meta: Part['meta'], key: string): Part['meta'] {
  const ex = meta?.anthropic;
  if (!isObject(ex) || !(key in ex)) return meta;
  const { [key]: _k, ...rest } = ex;
  const { anthropic: _a, ...others } = meta ?? {};
  const out = Object.keys(rest).length ? { ...others, anthropic: rest } : others;
  return Object.keys(out).length ? out : undefined;
}

function usageOf(metrics: unknown): { usage?: Usage; cost?: number } {
  if (!isObject(metrics)) return {};
  if (isObject(metrics.tokens)) {
    // the extension's (ClineMessageMetricsInfo): prompt tokens counting the cached ones
    const { prompt, completion, cached } = metrics.tokens;
    const usage: Usage = {
      input: Math.max(0, num(prompt) - num(cached)),
      output: num(completion),
      cacheRead: num(cached),
      cacheWrite: 0,
      reasoning: 0,
    };
    return { usage, ...(typeof metrics.cost === 'number' && Number.isFinite(metrics.cost) ? { cost: metrics.cost } : {}) };
  }
  const usage: Usage = {
    input: num(metrics.inputTokens),
    output: num(metrics.outputTokens),
    cacheRead: num(metrics.cacheReadTokens),
    cacheWrite: num(metrics.cacheWriteTokens),
    reasoning: num(metrics.reasoningTokens),
  };
  return { usage, ...(typeof metrics.cost === 'number' && Number.isFinite(metrics.cost) ? { cost: metrics.cost } : {}) };
}

/** What threadbase kept of the model entry a Cline message holds (encode.ts), in `metadata.threadbase`. */
interface KeptEntry {
  id: string;
  timestamp?: string;
  /** Message fields but parts */
  message?: JsonObject;
  /** a compaction or branch summary sent as this user turn: the entry itself */
  entry?: JsonObject;
  /** results threadbase added for calls left unanswered (not the source's) */
  synthetic?: boolean;
  /** each part's meta, by its index */
  partMeta?: (JsonObject | null)[];
  /** tool ids as the source had them, by part index */
  toolIds?: (string | null)[];
  /** entries of other kinds on the path before / after it (model changes, labels, metadata) */
  before?: unknown[];
  after?: unknown[];
  /** a compaction written before the turns it kept: their ids (it is read back after them) */
  keptBefore?: string[];
  /** parts written as another block (a result without its call, as text), by index */
  asWritten?: (JsonObject | null)[];
}

function keptOf(rec: JsonObject): KeptEntry | undefined {
  const k = isObject(rec.metadata) ? rec.metadata.threadbase : undefined;
  if (!isObject(k)) return undefined;
  if (k.synthetic === true) return k as unknown as KeptEntry;
  return typeof k.id === 'string' ? (k as unknown as KeptEntry) : undefined;
}

/** Entries of another kind threadbase kept before or after a message. */
function keptOthers(kept: KeptEntry | undefined, key: 'before' | 'after'): Entry[] {
  const list = kept?.[key];
  if (!Array.isArray(list)) return [];
  return list.filter((e): e is Entry => isObject(e) && typeof e.id === 'string' && typeof e.kind === 'string');
}

/**
 * A thinking part marked as sent as text exactly when threadbase wrote it as a text block (encode.ts
 * thinkingAsText), which Cline sends; a mark carried from another agent's copy is not Cline's.
 */
function markedSentAsText(p: Part, asText: boolean): Part {
  if (p.type !== 'thinking' || (p.meta?.sentAsText === true) === asText) return p;
  const { sentAsText: _mark, ...meta } = p.meta ?? {};
  const kept = asText ? { ...meta, sentAsText: true } : meta;
  const { meta: _old, ...bare } = p;
  return Object.keys(kept).length ? { ...bare, meta: kept } : bare;
}

function restoreParts(parts: Part[], k: KeptEntry): Part[] {
  return parts.map((p, i) => {
    const written = k.asWritten?.[i];
    if (isObject(written) && typeof written.type === 'string')
      return markedSentAsText(written as unknown as Part, p.type === 'text');
    let out = p;
    const meta = k.partMeta?.[i];
    if (isObject(meta)) out = markedSentAsText({ ...out, meta: { ...(out.meta ?? {}), ...meta } }, false);
    const original = k.toolIds?.[i];
    if (typeof original === 'string') {
      if (out.type === 'tool_call') out = { ...out, id: original };
      else if (out.type === 'tool_result') out = { ...out, callId: original };
    }
    return out;
  });
}

function timeOf(ts: unknown, fallback: string): string {
  if (typeof ts === 'number' && Number.isFinite(ts)) {
    const d = new Date(ts);
    if (!Number.isNaN(d.getTime())) return d.toISOString();
  }
  return fallback;
}

export interface MessagesRead {
  entries: Entry[];
  warnings: ParseWarning[];
}

/**
 * Cline messages (ClineStorageMessage) as a chain of entries. `items` are the array's items with
 * the line each starts on; a malformed one is reported with its line and skipped.
 */
export function entriesOfMessages(
  items: { value: unknown; line: number }[],
  file: string,
  fallbackTime: string,
  idPrefix: string,
): MessagesRead {
  const entries: Entry[] = [];
  const warnings: ParseWarning[] = [];
  const ids = new Set<string>();
  let parentId: string | null = null;
  let lastTime = fallbackTime;
  /** a compaction waiting for the last of the turns it kept (KeptEntry.keptBefore) */
  let deferred: { entry: Entry; after: string } | undefined;
  const add = (e: Entry, own = true) => {
    if (deferred && !own) {
      // a message of Cline's own after them: the compaction goes no later
      place(deferred.entry);
      deferred = undefined;
    }
    place(e);
    if (deferred && deferred.after === e.id) {
      place(deferred.entry);
      deferred = undefined;
    }
  };
  const place = (e: Entry) => {
    let id = e.id;
    for (let n = 2; ids.has(id); n++) id = `${e.id}#${n}`;
    ids.add(id);
    const linked = { ...e, id, parentId } as Entry;
    entries.push(linked);
    parentId = id;
  };
  // Cline splits a message of several tool results into one message each, its metadata on each:
  // the pieces of one kept entry are put together again
  const records: { rec: JsonObject; line: number; index: number; kept?: KeptEntry; blocks: unknown[] }[] = [];
  items.forEach(({ value: rec, line }, index) => {
    if (!isObject(rec) || (rec.role !== 'user' && rec.role !== 'assistant')) {
      warnings.push({ file, line, message: `message ${index + 1} is not a Cline message (no user or assistant role); skipped` });
      return;
    }
    if (typeof rec.content !== 'string' && !Array.isArray(rec.content)) {
      warnings.push({ file, line, message: `message ${index + 1} has no content list; skipped` });
      return;
    }
    const blocks: unknown[] = typeof rec.content === 'string' ? [{ type: 'text', text: rec.content }] : rec.content;
    const kept = keptOf(rec);
    const prev = records.at(-1);
    if (kept?.id && prev?.kept?.id === kept.id && prev.rec.role === rec.role) {
      prev.blocks.push(...blocks);
      return;
    }
    records.push({ rec, line, index, ...(kept ? { kept } : {}), blocks: [...blocks] });
  });
  for (const { rec, index, kept, blocks } of records) {
    const role = rec.role as 'user' | 'assistant';
    const parts = blocks.map((b) => partOf(b, role));
    const timestamp = timeOf(rec.ts, lastTime);
    lastTime = timestamp;
    if (kept?.synthetic) continue; // results threadbase added for calls left unanswered
    for (const other of keptOthers(kept, 'before')) add(other);
    const raw: JsonObject = rec;
    if (kept && isObject(kept.entry) && typeof kept.entry.kind === 'string') {
      const entry = { raw, rawSource: SOURCE, ...(kept.entry as unknown as Entry), id: kept.id } as Entry;
      const last = Array.isArray(kept.keptBefore) ? kept.keptBefore.at(-1) : undefined;
      if (typeof last === 'string') deferred = { entry, after: last };
      else add(entry);
    } else if (kept && isObject(kept.message)) {
      const message = { ...kept.message, parts: restoreParts(parts, kept) } as unknown as Message;
      add({
        id: kept.id,
        parentId: null,
        timestamp: kept.timestamp ?? timestamp,
        kind: 'message',
        message,
        raw,
        rawSource: SOURCE,
      });
    } else {
      // the CLI's modelInfo {id, provider, family}; the extension's {modelId, providerId, mode}
      const info = isObject(rec.modelInfo) ? rec.modelInfo : {};
      const model = str(info.id) ?? str(info.modelId);
      const provider = str(info.provider) ?? str(info.providerId);
      const { usage, cost } = role === 'assistant' ? usageOf(rec.metrics) : {};
      const message: Message = {
        role: role === 'user' && parts.length > 0 && parts.every((p) => p.type === 'tool_result') ? 'tool' : role,
        parts,
        ...(model ? { model } : {}),
        ...(provider ? { provider } : {}),
        ...(usage ? { usage } : {}),
        ...(cost !== undefined ? { cost } : {}),
      };
      if (role === 'assistant' && str(info.family)) message.meta = { clineModelFamily: info.family };
      if (role === 'assistant' && str(info.mode)) message.meta = { ...message.meta, clineMode: info.mode };
      if (role === 'user') {
        const kind = clineInjectedKind(parts);
        if (kind) message.meta = { ...message.meta, clineInjected: kind };
      }
      add(
        {
          id: str(rec.id) ?? `${idPrefix}${index}`,
          parentId: null,
          timestamp,
          kind: 'message',
          message,
          raw,
          rawSource: SOURCE,
        },
        false,
      );
    }
    for (const other of keptOthers(kept, 'after')) add(other);
  }
  if (deferred) place(deferred.entry);
  return { entries, warnings };
}

/** A JSON document's text parsed whole, or its array's whole items when it is torn (salvage.ts). */
export function readMessageItems(
  text: string,
  file: string,
  key: string | undefined,
): { doc?: JsonObject; items: { value: unknown; line: number }[]; warnings: ParseWarning[] } {
  const warnings: ParseWarning[] = [];
  let doc: unknown;
  try {
    doc = parseJson(text);
  } catch (err) {
    const open = key === undefined ? text.indexOf('[') : arrayOfKey(text, key);
    if (open < 0) {
      warnings.push({ file, line: 1, message: `malformed JSON: ${(err as Error).message}; no messages read` });
      return { items: [], warnings };
    }
    const s = salvageArray(text, open);
    if (s.broken) warnings.push({ file, line: s.broken.line, message: `${s.broken.message}; the messages before it are read` });
    return { items: s.items, warnings };
  }
  const list = key === undefined ? doc : isObject(doc) ? doc[key] : undefined;
  if (!Array.isArray(list)) {
    warnings.push({ file, line: 1, message: `no ${key ? `"${key}" ` : ''}array of messages; no messages read` });
    return { ...(isObject(doc) ? { doc } : {}), items: [], warnings };
  }
  // each item's line, for the warnings of an item that is no message
  const lines: { value: unknown; line: number }[] = [];
  const open = key === undefined ? text.indexOf('[') : arrayOfKey(text, key);
  const located = open >= 0 ? salvageArray(text, open).items : [];
  list.forEach((value, i) => {
    lines.push({ value, line: located[i]?.line ?? 1 });
  });
  return { ...(isObject(doc) ? { doc } : {}), items: lines, warnings };
}

/** The calls threadbase's stand-in results answer (encode.ts: a copy of a source that left them open). */
function standInAnswered(records: unknown[]): Set<string> {
  const ids = new Set<string>();
  /** a call's id as the source had it, by the id it was written with */
  const original = new Map<string, string>();
  for (const rec of records) {
    if (!isObject(rec) || !Array.isArray(rec.content)) continue;
    const kept = keptOf(rec);
    rec.content.forEach((b, i) => {
      const was = kept?.toolIds?.[i];
      if (isObject(b) && b.type === 'tool_use' && typeof b.id === 'string' && typeof was === 'string') original.set(b.id, was);
    });
    if (kept?.synthetic)
      for (const b of rec.content)
        if (isObject(b) && typeof b.tool_use_id === 'string') ids.add(original.get(b.tool_use_id) ?? b.tool_use_id);
  }
  return ids;
}

/** The later of two ISO times. */
const later = (a: string, b: string): string => (a < b ? b : a);

const clineInjected = (m: Message): boolean => Boolean(m.meta?.clineInjected);

/** The listing fields of a session from its entries. */
function finish(
  base: Omit<Session, 'messageCount' | 'entries' | 'leafId' | 'title'> & { title?: string },
  entries: Entry[],
  warnings: ParseWarning[],
  leafId = entries.at(-1)?.id ?? null,
): Session {
  const usage = summarizeUsage(entries);
  return {
    ...base,
    title: base.title ?? firstUserLine(entries, clineInjected),
    messageCount: countMessages(entries),
    models: usage.models,
    usage: usage.usage,
    ...usageByModelOf(usage),
    ...(usage.cost > 0 ? { cost: usage.cost } : {}),
    entries,
    leafId,
    warnings,
  };
}

/**
 * A Cline CLI session: its messages file (`<id>.messages.json`, or a sub-agent's
 * `<agent>.messages.json` in its root's folder) and, for a root, the manifest `<id>.json` beside it.
 */
export async function readCliSession(messagesFile: string): Promise<Session> {
  const dir = dirname(messagesFile);
  const dirId = basename(dir);
  const stem = basename(messagesFile).replace(/\.messages\.json$/, '');
  const isRoot = stem === dirId;
  const warnings: ParseWarning[] = [];
  const manifestFile = `${dir}/${dirId}.json`;
  const manifest = isRoot ? await readJsonObject(manifestFile, warnings) : undefined;
  const text = await fs.readFile(messagesFile, 'utf8');
  const read = readMessageItems(text, messagesFile, 'messages');
  warnings.push(...read.warnings);
  const doc = read.doc ?? {};
  const startedAt = str(manifest?.started_at);
  const fallback = startedAt ?? str(doc.updated_at) ?? new Date(0).toISOString();
  const id = isRoot ? (str(manifest?.session_id) ?? dirId) : (str(doc.sessionId) ?? `${dirId}__${stem}`);
  const { entries: read0, warnings: w } = entriesOfMessages(read.items, messagesFile, fallback, `${id}:`);
  warnings.push(...w);
  // what Cline sends once it has compacted (compaction.ts)
  const { entries: compacted } = await withCompactionState(
    compactionFileOf(messagesFile),
    read.items.map((i) => i.value),
    read0,
    `${id}:`,
    (m) => (Array.isArray(m.content) ? m.content : [{ type: 'text', text: m.content }]).map((b) => partOf(b, String(m.role))),
    warnings,
  );
  // a run that ended with calls open (killed while a tool ran): answered as Cline answers them on resume;
  // not a torn file's, whose calls may have had results past the tear
  const runManifest = isRoot ? manifest : await readJsonObject(manifestFile, []);
  const entries =
    read.warnings.length === 0 && clineRunEnded(runManifest)
      ? withInterruptedResults(compacted, standInAnswered(read.items.map((i) => i.value)))
      : compacted;
  const meta = isObject(manifest?.metadata) ? manifest.metadata : {};
  const kept: JsonObject = isObject(meta.threadbase) ? { ...meta.threadbase } : {};
  const createdAt = startedAt ?? entries[0]?.timestamp ?? fallback;
  const updatedAt = str(doc.updated_at) ?? str(manifest?.ended_at) ?? entries.at(-1)?.timestamp ?? createdAt;
  // a sub-agent's origin names the session that ran it (its root, or one of the root's sub-agents)
  const origin = isObject(doc.origin) ? doc.origin : {};
  const parent = str(manifest?.parent_session_id) ?? (isRoot ? undefined : (str(origin.parentThreadId) ?? dirId));
  // what threadbase kept in a sub-agent's messages file (children.ts)
  if (!isRoot && isObject(doc.threadbase)) Object.assign(kept, doc.threadbase);
  const { messages: _m, ...docRest } = doc;
  return finish(
    {
      id,
      source: SOURCE,
      project: str(manifest?.cwd) ?? str(kept.project),
      title: str(meta.title) ?? str(kept.title),
      createdAt,
      updatedAt: later(updatedAt, createdAt),
      parentId: parent ?? null,
      ...(typeof kept.parentEntryId === 'string' ? { parentEntryId: kept.parentEntryId } : {}),
      ...(typeof kept.parentToolCallId === 'string' ? { parentToolCallId: kept.parentToolCallId } : {}),
      // a session written before the mark names where it came from (`from`), as only threadbase writes
      ...writtenByOf(kept.writtenBy ?? (isObject(kept.from) ? WRITTEN_BY : undefined)),
      path: messagesFile,
      meta: {
        layout: 'cli',
        ...(str(manifest?.status) ? { status: manifest?.status } : {}),
        ...(str(manifest?.provider) ? { provider: manifest?.provider } : {}),
        ...(str(manifest?.workspace_root) ? { workspaceRoot: manifest?.workspace_root } : {}),
        ...(typeof meta.totalCost === 'number' ? { recordedTotalCost: meta.totalCost } : {}),
        ...(isObject(kept.meta) ? kept.meta : {}),
      },
      raw: { manifest: manifest ?? null, messages: docRest },
    },
    entries,
    warnings,
  );
}

/**
 * Older extension versions keep no `metrics` on messages: each API request's tokens and cost are in
 * ui_messages.json, an `api_req_started` record whose text is JSON. The n-th request's go on the n-th
 * assistant message, when no assistant message has usage of its own.
 */
async function withUiRequestUsage(entries: Entry[], file: string, warnings: ParseWarning[]): Promise<void> {
  const assistants = entries.flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? [e] : []));
  if (assistants.length === 0 || assistants.some((e) => e.message.usage || e.message.cost !== undefined)) return;
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return;
  }
  const read = readMessageItems(text, file, undefined);
  warnings.push(...read.warnings);
  const requests = read.items.flatMap(({ value }) => {
    if (!isObject(value) || value.say !== 'api_req_started' || typeof value.text !== 'string') return [];
    let info: unknown;
    try {
      info = parseJson(value.text);
    } catch {
      return [];
    }
    return isObject(info) ? [info] : [];
  });
  assistants.forEach((e, i) => {
    const r = requests[i];
    if (!r) return;
    const { usage, cost } = usageOf({
      inputTokens: r.tokensIn,
      outputTokens: r.tokensOut,
      cacheReadTokens: r.cacheReads,
      cacheWriteTokens: r.cacheWrites,
      cost: r.cost,
    });
    e.message = { ...e.message, ...(usage ? { usage } : {}), ...(cost !== undefined ? { cost } : {}) };
  });
}

/**
 * The extension's `task_metadata.json` (TaskMetadata, cline/cline context-tracking): `model_usage`
 * ({ts, model_id, model_provider_id, mode}, one record each time the model, provider or mode
 * changed) gives an assistant message that names no model of its own (older versions) the one in
 * use at its time, and its mode; `files_in_context` (the files Cline read, edited or had mentioned,
 * with when) and `environment_history` (OS, editor, Cline version) become session meta, as recorded.
 */
async function withTaskMetadata(entries: Entry[], file: string, warnings: ParseWarning[]): Promise<JsonObject> {
  // none: an older version, or a task that never ran a request
  const doc = await readJsonObject(file, warnings);
  if (!doc) return {};
  const usage = (Array.isArray(doc.model_usage) ? doc.model_usage : [])
    .filter((u): u is JsonObject => isObject(u) && typeof u.ts === 'number' && typeof u.model_id === 'string')
    .sort((a, b) => (a.ts as number) - (b.ts as number));
  if (usage.length > 0) {
    for (const e of entries) {
      if (e.kind !== 'message' || e.message.role !== 'assistant') continue;
      const at = Date.parse(e.timestamp);
      // recorded when the request was made, so before its answer; an answer with no time takes the first
      const inUse = usage.findLast((u) => (u.ts as number) <= at) ?? usage[0];
      if (!inUse) continue;
      const m = e.message;
      const provider = str(inUse.model_provider_id);
      const mode = str(inUse.mode);
      e.message = {
        ...m,
        ...(m.model ? {} : { model: inUse.model_id as string, ...(provider && !m.provider ? { provider } : {}) }),
        ...(mode && m.meta?.clineMode === undefined ? { meta: { ...m.meta, clineMode: mode } } : {}),
      };
    }
  }
  return {
    ...(Array.isArray(doc.files_in_context) ? { clineFilesInContext: doc.files_in_context } : {}),
    ...(Array.isArray(doc.environment_history) ? { clineEnvironmentHistory: doc.environment_history } : {}),
    ...(usage.length > 0 ? { clineModelUsage: usage } : {}),
  };
}

/** The extension's `<task>…</task>` wrapper around the first prompt. */
const TASK = /^<task>\n?([\s\S]*?)\n?<\/task>$/;

/**
 * A VS Code extension task (Cline, Roo Code, Kilo Code): `api_conversation_history.json`, with the
 * title and project from the extension's task history when it has them (taskHistory.json).
 */
export async function readExtensionTask(historyFile: string, extension: string, item: JsonObject | undefined): Promise<Session> {
  const dir = dirname(historyFile);
  const taskId = basename(dir);
  const text = await fs.readFile(historyFile, 'utf8');
  const read = readMessageItems(text, historyFile, undefined);
  const warnings: ParseWarning[] = [...read.warnings];
  const st = await fs.stat(historyFile);
  const idTime = /^\d{12,14}$/.test(taskId) ? new Date(Number(taskId)).toISOString() : undefined;
  const itemTime = typeof item?.ts === 'number' ? new Date(item.ts).toISOString() : undefined;
  const fallback = idTime ?? itemTime ?? st.mtime.toISOString();
  const { entries, warnings: w } = entriesOfMessages(read.items, historyFile, fallback, `${taskId}:`);
  warnings.push(...w);
  await withUiRequestUsage(entries, join(dir, 'ui_messages.json'), warnings);
  const taskMeta = await withTaskMetadata(entries, join(dir, 'task_metadata.json'), warnings);
  // the first prompt: `<task>…</task>` unwrapped
  const first = entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  if (first?.kind === 'message') {
    first.message = {
      ...first.message,
      parts: first.message.parts.map((p) => {
        const m = p.type === 'text' ? TASK.exec(p.text) : null;
        return m && p.type === 'text' ? { ...p, text: m[1] as string, meta: { ...p.meta, clineTask: true } } : p;
      }),
    };
  }
  const createdAt = idTime ?? entries[0]?.timestamp ?? fallback;
  const updatedAt =
    itemTime && itemTime > (entries.at(-1)?.timestamp ?? '') ? itemTime : (entries.at(-1)?.timestamp ?? createdAt);
  return finish(
    {
      id: taskId,
      source: SOURCE,
      project: str(item?.cwdOnTaskInitialization) ?? str(item?.workspace),
      title: titleLine(str(item?.task) ?? '') || undefined,
      createdAt,
      updatedAt: later(updatedAt, createdAt),
      parentId: null,
      path: historyFile,
      meta: {
        layout: 'vscode',
        extension,
        ...(typeof item?.totalCost === 'number' ? { recordedTotalCost: item.totalCost } : {}),
        ...taskMeta,
      },
      raw: item ?? null,
    },
    entries,
    warnings,
  );
}
