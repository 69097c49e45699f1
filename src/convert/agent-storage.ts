/**
 * ClaudeAgentStorage: stores every message of a Claude Agent SDK stream, in Anthropic format, as a
 * threadbase session under the SDK's own session id.
 *
 *   const storage = new ClaudeAgentStorage({ store: await openStore() });
 *   for await (const msg of query({ prompt, options })) await storage.saveMessage(msg);
 *
 * Messages are read structurally (the SDK is not a dependency): the TypeScript SDK's
 * `{type, message: {role, content}}` objects, the Python SDK's shapes (class instances with
 * properties, `data` on system messages) and plain dicts all work. Only user and assistant
 * messages are stored; saveMessage never throws unless asked to.
 */
import { randomUUID } from 'node:crypto';
import type { SessionDriver } from '../model/driver.js';
import { ThreadbaseError } from '../model/errors.js';
import { currentLeaf } from '../model/tree.js';
import type { Entry, Message, MessageEntry, Meta, Part, TextPart } from '../model/types.js';
import { partFromAnthropicBlock, toolInputObject, usageFromAnthropic } from './anthropic.js';

export interface ClaudeAgentStorageOptions {
  /** Any driver that can write sessions and append entries (memory, SQLite, PostgreSQL, a server). */
  store: SessionDriver;
  /** Store under this id instead of the SDK's session id. */
  sessionId?: string;
  /** Keep thinking blocks (as text parts with meta.has_thinking). Default false. */
  includeThinking?: boolean;
  /** Called when storing a message fails; without it a warning is logged. */
  onError?: (error: unknown, message: unknown) => void;
  /** Reject saveMessage with the error instead of reporting it (off by default: the caller's loop goes on). */
  throwOnError?: boolean;
  /** Where warnings go (default console.warn). */
  warn?: (message: string) => void;
  /** Working directory recorded on a new session (default: the init message's cwd). */
  project?: string;
}

/** What saveMessage did with a message, for callers that want to know. */
export type SaveOutcome = 'stored' | 'skipped' | 'failed';

/** A property of a plain object or a class instance, or undefined; never throws (getters included). */
function field(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function ctorName(obj: unknown): string | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const name = (obj as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' ? name : undefined;
}

type SdkKind = 'system' | 'user' | 'assistant' | 'result' | 'stream_event' | 'other';

/** The kind of an SDK message: its `type`, else its class name, else its shape. */
export function sdkMessageKind(msg: unknown): SdkKind {
  const type = str(field(msg, 'type'));
  if (type) {
    if (type === 'system' || type === 'user' || type === 'assistant' || type === 'result' || type === 'stream_event') return type;
    return 'other';
  }
  switch (ctorName(msg)) {
    case 'SystemMessage':
      return 'system';
    case 'UserMessage':
      return 'user';
    case 'AssistantMessage':
      return 'assistant';
    case 'ResultMessage':
      return 'result';
    case 'StreamEvent':
      return 'stream_event';
  }
  if (field(msg, 'event') !== undefined && field(msg, 'session_id') !== undefined) return 'stream_event';
  if (field(msg, 'subtype') !== undefined && field(msg, 'data') !== undefined) return 'system';
  if (field(msg, 'subtype') !== undefined && (field(msg, 'duration_ms') !== undefined || field(msg, 'result') !== undefined))
    return 'result';
  const role = str(field(msg, 'role')) ?? str(field(field(msg, 'message'), 'role'));
  if (role === 'user' || role === 'assistant') return role;
  if (field(msg, 'content') !== undefined) return field(msg, 'model') !== undefined ? 'assistant' : 'user';
  return 'other';
}

/** A non-empty session id on the message itself or in its `data` (Python system messages). */
function sessionIdOf(msg: unknown): string | undefined {
  const direct = str(field(msg, 'session_id')) ?? str(field(msg, 'sessionId'));
  if (direct) return direct;
  const data = field(msg, 'data');
  const fromData = str(field(data, 'session_id')) ?? str(field(data, 'sessionId'));
  return fromData || undefined;
}

type BlockKind = 'text' | 'thinking' | 'redacted_thinking' | 'tool_use' | 'tool_result' | 'other';

/** A content block's kind: its `type`, its class name, or (plain dicts) its keys: thinking, tool use, tool result, text. */
export function blockKind(block: unknown): BlockKind {
  if (typeof block === 'string') return 'text';
  const type = str(field(block, 'type'));
  if (type) {
    if (type === 'text' || type === 'thinking' || type === 'redacted_thinking' || type === 'tool_use' || type === 'tool_result')
      return type;
    return 'other';
  }
  switch (ctorName(block)) {
    case 'TextBlock':
      return 'text';
    case 'ThinkingBlock':
      return 'thinking';
    case 'ToolUseBlock':
      return 'tool_use';
    case 'ToolResultBlock':
      return 'tool_result';
  }
  if (field(block, 'thinking') !== undefined) return 'thinking';
  if (field(block, 'id') !== undefined && field(block, 'name') !== undefined && field(block, 'input') !== undefined)
    return 'tool_use';
  if (field(block, 'tool_use_id') !== undefined) return 'tool_result';
  if (field(block, 'text') !== undefined) return 'text';
  return 'other';
}

/** Tool result content as stored: null → "", an array → text blocks, anything else → its text. */
function toolResultContent(content: unknown): string | TextPart[] {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((item): TextPart => {
      if (typeof item === 'string') return { type: 'text', text: item };
      const text = field(item, 'text');
      if (typeof text === 'string') return { type: 'text', text };
      return { type: 'text', text: safeJson(item) };
    });
  }
  return safeJson(content);
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A JSON-safe copy (class instances become plain objects, functions and cycles are dropped). */
function plain(v: unknown): unknown {
  const seen = new WeakSet<object>();
  try {
    return JSON.parse(
      JSON.stringify(v, (_k, val: unknown) => {
        if (typeof val === 'bigint') return val.toString();
        if (typeof val === 'object' && val !== null) {
          if (seen.has(val)) return undefined;
          seen.add(val);
        }
        return val;
      }),
    );
  } catch {
    return undefined;
  }
}

export class ClaudeAgentStorage {
  private readonly store: SessionDriver;
  private readonly includeThinking: boolean;
  private readonly onError?: (error: unknown, message: unknown) => void;
  private readonly throwOnError: boolean;
  private readonly warn: (message: string) => void;
  private project?: string;
  private id?: string;
  /** Whether the store has the session: unknown until first asked, then kept up to date. */
  private stored: 'unknown' | 'absent' | 'present' = 'unknown';
  private lastEntryId: string | null = null;
  /** last entry of each sub-agent side chain, by the tool call that spawned it */
  private sideChainLast = new Map<string, string>();
  private usedIds = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: ClaudeAgentStorageOptions) {
    this.store = opts.store;
    this.includeThinking = opts.includeThinking ?? false;
    this.onError = opts.onError;
    this.throwOnError = opts.throwOnError ?? false;
    this.warn = opts.warn ?? ((m) => console.warn(`threadbase: ${m}`));
    this.project = opts.project;
    if (opts.sessionId) this.id = opts.sessionId;
  }

  /** The session id messages are stored under, once known. */
  get sessionId(): string | undefined {
    return this.id;
  }

  /**
   * Stores one message of the SDK's stream. Resolves once it is stored, skipped or failed (rejects
   * only with throwOnError);
   * calls run one after another even when the caller does not await them.
   */
  saveMessage(msg: unknown): Promise<SaveOutcome> {
    const run = this.queue.then(() => this.save(msg));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async save(msg: unknown): Promise<SaveOutcome> {
    let kind: SdkKind;
    try {
      kind = sdkMessageKind(msg);
      if (kind === 'system' || kind === 'result' || kind === 'stream_event') {
        this.learnSessionId(msg, kind);
        return 'skipped';
      }
      if (kind !== 'user' && kind !== 'assistant') return 'skipped';
    } catch (error) {
      this.fail(error, msg);
      return 'failed';
    }
    if (!this.id) {
      this.warn(`skipped a ${kind} message that came before any session id was known`);
      return 'skipped';
    }
    let entry: MessageEntry | undefined;
    try {
      entry = this.toEntry(msg, kind);
      if (!entry) return 'skipped';
      await this.load();
      // A message whose SDK uuid is already stored (a resumed session's replay) is not stored twice.
      if (entry.id === str(field(msg, 'uuid')) && this.usedIds.has(entry.id)) return 'skipped';
      await this.persist(entry);
      return 'stored';
    } catch (error) {
      this.fail(error, msg);
      return 'failed';
    }
  }

  private fail(error: unknown, msg: unknown): void {
    if (this.throwOnError) throw error;
    if (this.onError) {
      try {
        this.onError(error, msg);
      } catch (inner) {
        this.warn(`onError threw: ${inner instanceof Error ? inner.message : String(inner)}`);
      }
    } else this.warn(`could not store a message: ${error instanceof Error ? error.message : String(error)}`);
  }

  private learnSessionId(msg: unknown, kind: SdkKind): void {
    if (kind === 'system') {
      const subtype = str(field(msg, 'subtype'));
      if (subtype !== 'init') return;
      if (!this.project) this.project = str(field(msg, 'cwd')) ?? str(field(field(msg, 'data'), 'cwd'));
    }
    if (this.id) return;
    const id = sessionIdOf(msg);
    if (id) this.id = id;
  }

  /** The message as an entry, or undefined when no block is left to store. */
  private toEntry(msg: unknown, kind: 'user' | 'assistant'): MessageEntry | undefined {
    // TypeScript SDK: {type, message: {role, content, model, ...}}; Python SDK: {content, model}.
    const inner = field(msg, 'message');
    const body = typeof inner === 'object' && inner !== null ? inner : msg;
    const rawContent = field(body, 'content');
    const blocks: unknown[] =
      typeof rawContent === 'string' ? [{ type: 'text', text: rawContent }] : Array.isArray(rawContent) ? rawContent : [];

    const parts: Part[] = [];
    const stored: unknown[] = [];
    for (const block of blocks) {
      const converted = this.convertBlock(block, kind);
      if (!converted) continue;
      parts.push(converted.part);
      stored.push(converted.block);
    }
    if (parts.length === 0) return undefined;

    const role = kind === 'assistant' ? 'assistant' : parts.some((p) => p.type === 'tool_result') ? 'tool' : 'user';
    const message: Message = { role, parts };
    const meta: Meta = {};
    if (kind === 'assistant') {
      const model = str(field(body, 'model')) ?? str(field(msg, 'model'));
      if (model) {
        message.model = model;
        meta.model = model;
        message.provider = 'anthropic';
        message.api = 'anthropic-messages';
      }
      const responseId = str(field(body, 'id'));
      if (responseId) message.responseId = responseId;
      const usage = usageFromAnthropic(field(body, 'usage'));
      if (usage) message.usage = usage;
      const stop = str(field(body, 'stop_reason'));
      if (stop) message.stopReason = stop;
      const error = field(msg, 'error');
      if (error !== undefined && error !== null) {
        message.error = typeof error === 'string' ? error : safeJson(error);
        meta.error = plain(error);
      }
    }
    const parentToolUseId = str(field(msg, 'parent_tool_use_id'));
    if (parentToolUseId) meta.parent_tool_use_id = parentToolUseId;
    if (field(msg, 'isSynthetic') === true) meta.is_synthetic = true;
    if (Object.keys(meta).length) message.meta = meta;

    const uuid = str(field(msg, 'uuid'));
    const id = uuid ?? randomUUID();
    const entry: MessageEntry = {
      id,
      parentId: null,
      timestamp: str(field(msg, 'timestamp')) ?? new Date().toISOString(),
      kind: 'message',
      message,
      raw: { role: kind, content: stored },
      rawSource: 'anthropic',
    };
    if (parentToolUseId) entry.sidechain = true;
    return entry;
  }

  /** One block as a part plus the Anthropic block stored in raw; undefined when the rules leave it out. */
  private convertBlock(block: unknown, kind: 'user' | 'assistant'): { part: Part; block: unknown } | undefined {
    switch (blockKind(block)) {
      case 'text': {
        const text = typeof block === 'string' ? block : str(field(block, 'text'));
        if (!text) return undefined;
        return { part: { type: 'text', text }, block: { type: 'text', text } };
      }
      case 'thinking': {
        if (!this.includeThinking) return undefined;
        const thinking = str(field(block, 'thinking'));
        if (!thinking) return undefined;
        const meta: Meta = { has_thinking: true };
        const signature = str(field(block, 'signature'));
        if (signature) meta.signature = signature;
        return { part: { type: 'text', text: thinking, meta }, block: { type: 'text', text: thinking } };
      }
      case 'redacted_thinking':
        // Opaque data, not text: there is nothing to store as text.
        return undefined;
      case 'tool_use': {
        if (kind !== 'assistant') return undefined;
        const id = str(field(block, 'id')) ?? '';
        const name = str(field(block, 'name')) ?? '';
        const input = toolInputObject(plain(field(block, 'input')));
        return { part: { type: 'tool_call', id, name, input }, block: { type: 'tool_use', id, name, input } };
      }
      case 'tool_result': {
        if (kind !== 'user') return undefined;
        const callId = str(field(block, 'tool_use_id')) ?? '';
        const content = toolResultContent(field(block, 'content'));
        // a boolean is_error is kept as given (the SDK sends false too); null/absent stays absent
        const isError = field(block, 'is_error');
        const flag = typeof isError === 'boolean' ? { isError } : {};
        const out: Part = { type: 'tool_result', callId, content, ...flag };
        const stored = {
          type: 'tool_result',
          tool_use_id: callId,
          content,
          ...(typeof isError === 'boolean' ? { is_error: isError } : {}),
        };
        return { part: out, block: stored };
      }
      default: {
        // images, documents and block types the model passes through
        const copy = plain(block);
        if (copy === undefined) return undefined;
        return { part: partFromAnthropicBlock(copy), block: copy };
      }
    }
  }

  /** Reads what the store already has of this session (once): its entry ids and current leaf. */
  private async load(): Promise<void> {
    if (this.stored !== 'unknown') return;
    const existing = await this.store.getSession(this.id as string);
    if (existing) {
      for (const e of existing.entries) this.usedIds.add(e.id);
      this.lastEntryId = currentLeaf(existing)?.id ?? null;
    }
    this.stored = existing ? 'present' : 'absent';
  }

  private async persist(entry: MessageEntry): Promise<void> {
    const id = this.id as string;
    if (!this.store.writeSession || !this.store.appendEntries) {
      throw new ThreadbaseError('unsupported', `store ${this.store.name} cannot write sessions and append entries`);
    }
    if (this.usedIds.has(entry.id)) entry.id = randomUUID();
    const parentToolUseId = str(entry.message.meta?.parent_tool_use_id);
    entry.parentId = parentToolUseId ? (this.sideChainLast.get(parentToolUseId) ?? null) : this.lastEntryId;
    if (this.stored === 'absent') {
      const info = await this.store.writeSession(
        {
          id,
          source: 'threadbase',
          createdAt: entry.timestamp,
          updatedAt: entry.timestamp,
          messageCount: 0,
          entries: [entry],
          leafId: entry.sidechain ? null : entry.id,
          ...(this.project ? { project: this.project } : {}),
          meta: { createdBy: 'ClaudeAgentStorage' },
        },
        { keepId: true },
      );
      if (info.id !== id)
        throw new ThreadbaseError('id_taken', `store ${this.store.name} stored session ${id} as ${info.id}`, { id });
      this.stored = 'present';
    } else await this.store.appendEntries(id, [entry as Entry]);
    this.usedIds.add(entry.id);
    if (parentToolUseId) this.sideChainLast.set(parentToolUseId, entry.id);
    else this.lastEntryId = entry.id;
  }
}
