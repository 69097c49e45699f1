/**
 * The Acontext session API's message shapes: checking a stored blob as Acontext does, turning it
 * into a model message with the project's converters, and the objects the Acontext SDK's zod
 * schemas parse (Session, Message, Part).
 */
import { messageFromAnthropic } from '../convert/anthropic.js';
import { messagesFromOpenAI } from '../convert/openai.js';
import { resultText } from '../model/tree.js';
import type { Entry, Message, MetadataEntry, Part, SessionInfo } from '../model/types.js';

export type BlobFormat = 'anthropic' | 'openai';

export class BlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks an Anthropic message blob; throws BlobError naming what is wrong. */
export function checkAnthropicBlob(blob: unknown): void {
  if (!isRecord(blob)) throw new BlobError('blob must be an object');
  const role = blob.role;
  if (role !== 'user' && role !== 'assistant')
    throw new BlobError(`blob.role must be "user" or "assistant", got ${JSON.stringify(role)}`);
  const content = blob.content;
  if (typeof content === 'string') {
    if (!content.trim()) throw new BlobError('blob.content: text must not be empty');
    return;
  }
  if (!Array.isArray(content)) throw new BlobError('blob.content must be a string or an array of blocks');
  if (content.length === 0) throw new BlobError('blob.content has no blocks');
  content.forEach((block, i) => {
    const at = `blob.content[${i}]`;
    if (!isRecord(block) || typeof block.type !== 'string') throw new BlobError(`${at} must be an object with a type`);
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string' || !block.text) throw new BlobError(`${at}: text block has empty text`);
        break;
      case 'tool_use':
        if (role !== 'assistant') throw new BlobError(`${at}: tool_use is only allowed in an assistant message`);
        if (typeof block.id !== 'string' || !block.id) throw new BlobError(`${at}: tool_use needs an id`);
        if (typeof block.name !== 'string' || !block.name) throw new BlobError(`${at}: tool_use needs a name`);
        if (!isRecord(block.input)) throw new BlobError(`${at}: tool_use.input must be an object`);
        break;
      case 'tool_result':
        if (role !== 'user') throw new BlobError(`${at}: tool_result is only allowed in a user message`);
        if (typeof block.tool_use_id !== 'string' || !block.tool_use_id)
          throw new BlobError(`${at}: tool_result needs a tool_use_id`);
        break;
      case 'image':
      case 'document':
        if (!isRecord(block.source)) throw new BlobError(`${at}: ${block.type} needs a source`);
        break;
      case 'thinking':
        if (role !== 'assistant') throw new BlobError(`${at}: thinking is only allowed in an assistant message`);
        if (typeof block.thinking !== 'string') throw new BlobError(`${at}: thinking block needs thinking text`);
        break;
      case 'redacted_thinking':
        break;
      default:
        throw new BlobError(`${at}: unsupported block type ${JSON.stringify(block.type)}`);
    }
  });
}

/** Checks an OpenAI chat message blob; throws BlobError naming what is wrong. */
export function checkOpenAIBlob(blob: unknown): void {
  if (!isRecord(blob)) throw new BlobError('blob must be an object');
  const role = blob.role;
  if (!['user', 'assistant', 'system', 'tool', 'developer'].includes(String(role)))
    throw new BlobError(`blob.role must be user, assistant, system or tool, got ${JSON.stringify(role)}`);
  const calls = blob.tool_calls;
  if (calls !== undefined && calls !== null) {
    if (role !== 'assistant') throw new BlobError('tool_calls are only allowed in an assistant message');
    if (!Array.isArray(calls)) throw new BlobError('tool_calls must be an array');
    calls.forEach((c, i) => {
      const at = `blob.tool_calls[${i}]`;
      if (!isRecord(c) || typeof c.id !== 'string' || !c.id) throw new BlobError(`${at} needs an id`);
      const fn = c.function;
      if (!isRecord(fn) || typeof fn.name !== 'string' || !fn.name) throw new BlobError(`${at}.function needs a name`);
      let args: unknown = fn.arguments;
      if (typeof args === 'string') {
        try {
          args = args.trim() ? JSON.parse(args) : {};
        } catch {
          throw new BlobError(`${at}.function.arguments is not valid JSON`);
        }
      }
      if (!isRecord(args)) throw new BlobError(`${at}.function.arguments must be a JSON object`);
    });
  }
  if (role === 'tool' && (typeof blob.tool_call_id !== 'string' || !blob.tool_call_id))
    throw new BlobError('a tool message needs a tool_call_id');
  const content = blob.content;
  const hasCalls = Array.isArray(calls) && calls.length > 0;
  if (content === undefined || content === null) {
    if (!hasCalls) throw new BlobError('blob has no content');
    return;
  }
  if (typeof content === 'string') {
    if (!content.trim() && !hasCalls) throw new BlobError('blob.content: text must not be empty');
    return;
  }
  if (!Array.isArray(content)) throw new BlobError('blob.content must be a string or an array of parts');
  if (content.length === 0 && !hasCalls) throw new BlobError('blob.content has no parts');
  content.forEach((p, i) => {
    if (!isRecord(p) || typeof p.type !== 'string') throw new BlobError(`blob.content[${i}] must be an object with a type`);
    if (p.type === 'text' && (typeof p.text !== 'string' || !p.text))
      throw new BlobError(`blob.content[${i}]: text part has empty text`);
  });
}

/** The blob as one model message (a user message of tool results becomes a 'tool' message). */
export function messageFromBlob(blob: unknown, format: BlobFormat): Message {
  if (format === 'anthropic') {
    checkAnthropicBlob(blob);
    return messageFromAnthropic(blob as Record<string, unknown>);
  }
  checkOpenAIBlob(blob);
  const [m] = messagesFromOpenAI([blob]);
  if (!m) throw new BlobError('blob is not a message');
  return m;
}

/** Acontext's part shape (type names as Acontext stores them). */
export interface AcontextPart {
  type: string;
  text?: string | null;
  meta?: Record<string, unknown> | null;
  filename?: string | null;
}

export function acontextPart(p: Part): AcontextPart {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text };
    case 'thinking':
      return { type: 'thinking', text: p.thinking, meta: p.signature ? { signature: p.signature } : null };
    case 'redacted_thinking':
      return { type: 'thinking', text: null, meta: { redacted: true } };
    case 'image':
      return { type: 'image', meta: { media_type: p.mediaType, ...(p.url ? { url: p.url } : {}) } };
    case 'file':
      return { type: 'file', text: p.text ?? null, filename: p.name ?? null, meta: { media_type: p.mediaType } };
    case 'tool_call':
      return { type: 'tool-call', meta: { id: p.id, name: p.name, arguments: JSON.stringify(p.input) } };
    case 'tool_result':
      return {
        type: 'tool-result',
        text: resultText(p.content),
        meta: { tool_call_id: p.callId, ...(p.isError ? { is_error: true } : {}) },
      };
  }
}

export interface AcontextMessage {
  id: string;
  session_id: string;
  parent_id: string | null;
  role: string;
  meta: Record<string, unknown>;
  parts: AcontextPart[];
  task_id: string | null;
  session_task_process_status: string;
  created_at: string;
  updated_at: string;
}

export function acontextMessage(
  sessionId: string,
  entry: { id: string; parentId: string | null; timestamp: string; message: Message },
): AcontextMessage {
  const m = entry.message;
  return {
    id: entry.id,
    session_id: sessionId,
    parent_id: entry.parentId,
    // Acontext keeps tool results in user messages, as the Anthropic API does.
    role: m.role === 'tool' ? 'user' : m.role,
    meta: isRecord(m.meta?.acontext) ? m.meta.acontext : {},
    parts: m.parts.map(acontextPart),
    task_id: null,
    // Nothing processes messages into tasks here.
    session_task_process_status: 'disable_tracking',
    created_at: entry.timestamp,
    updated_at: entry.timestamp,
  };
}

/**
 * A message's Acontext parent_id: the nearest message at or above `parentId`. A session's other entries
 * (the metadata entries of a configs change or a space connection) are no messages to Acontext, which
 * answers the message stored before. `entryAt` looks an entry of the session up by id.
 */
export async function acontextParentId(
  parentId: string | null,
  entryAt: (id: string) => Entry | undefined | Promise<Entry | undefined>,
): Promise<string | null> {
  const seen = new Set<string>();
  for (let id = parentId; id !== null && !seen.has(id); ) {
    seen.add(id);
    const e = await entryAt(id);
    if (!e || e.kind === 'message') return id;
    id = e.parentId;
  }
  return null;
}

export interface AcontextSessionFields {
  configs?: Record<string, unknown> | null;
  space_id?: string | null;
  disable_task_tracking?: boolean;
}

/**
 * The metadata entry type that records a change of a session's Acontext fields (configs replaced,
 * a space connected) after its creation: the store keeps a header's meta as written, so a change
 * is an entry of the session's history, and the latest one of each field wins.
 */
export const ACONTEXT_SETTINGS = 'acontext.session';

export function acontextSettingsEntry(id: string, timestamp: string, fields: AcontextSessionFields): MetadataEntry {
  return { kind: 'metadata', id, parentId: null, timestamp, type: ACONTEXT_SETTINGS, data: fields };
}

/** The session's Acontext fields: those it was created with, then each later change in order. */
export function acontextFields(info: SessionInfo & { entries?: readonly Entry[] }): AcontextSessionFields {
  const fields: AcontextSessionFields = isRecord(info.meta?.acontext) ? { ...(info.meta.acontext as AcontextSessionFields) } : {};
  for (const e of info.entries ?? []) {
    if (e.kind !== 'metadata' || e.type !== ACONTEXT_SETTINGS || !isRecord(e.data)) continue;
    const change = e.data as AcontextSessionFields;
    if (change.configs !== undefined) fields.configs = change.configs;
    if (change.space_id !== undefined) fields.space_id = change.space_id;
    if (change.disable_task_tracking !== undefined) fields.disable_task_tracking = change.disable_task_tracking;
  }
  return fields;
}

/** The session as Acontext answers it; pass the whole session (entries too) for its later changes. */
export function acontextSession(info: SessionInfo & { entries?: readonly Entry[] }, projectId: string) {
  const a = acontextFields(info);
  return {
    id: info.id,
    project_id: projectId,
    disable_task_tracking: a.disable_task_tracking ?? false,
    space_id: a.space_id ?? null,
    configs: a.configs ?? {},
    created_at: info.createdAt,
    updated_at: info.updatedAt,
  };
}

/** A rough token count (4 characters a token) of text and tool-call parts; no tokenizer ships here. */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === 'text') chars += p.text.length;
      else if (p.type === 'tool_call') chars += p.name.length + JSON.stringify(p.input).length;
      else if (p.type === 'tool_result')
        chars +=
          typeof p.content === 'string'
            ? p.content.length
            : p.content.reduce((n, c) => n + (c.type === 'text' ? c.text.length : 0), 0);
    }
  return Math.ceil(chars / 4);
}
