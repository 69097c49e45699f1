/**
 * threadbase model ⇄ Anthropic Messages (`{role, content: blocks}`), both directions.
 *
 * Model → Anthropic: 'tool' messages become user messages of tool_result blocks, 'system' messages go
 * to the top-level `system`, consecutive messages of one role are merged (the API wants alternation),
 * and content is always an array of blocks. Anthropic → model: a user message carrying tool_result
 * blocks becomes a 'tool' message (text/image blocks alongside stay in it, in order).
 * Block fields the model has no slot for (cache_control, citations, title, context) ride in
 * `part.meta.anthropic` and come back out; block types the model does not know are kept whole in
 * `part.meta.anthropicBlock` of an empty text part and re-emitted only here.
 */
import { createHash } from 'node:crypto';
import type { Context } from '../model/tree.js';
import type {
  AdvisorUsage,
  FilePart,
  ImagePart,
  Message,
  Meta,
  Part,
  Role,
  ToolResultContent,
  ToolResultPart,
  Usage,
} from '../model/types.js';
import { type PairingRule, pairToolResults } from './pairing.js';
import { providerCallsAsNotes } from './provider-tools.js';
import { issueReporter, kindOf, pathIn, type ReportIssue, type WireReadOptions } from './read-issues.js';

// ---------------------------------------------------------------------------------------------
// Wire types (the Messages API request shapes; no SDK dependency)

export type AnthropicSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: 'text/plain'; data: string };

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  [extra: string]: unknown;
}
export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicSource;
  [extra: string]: unknown;
}
export interface AnthropicDocumentBlock {
  type: 'document';
  source: AnthropicSource;
  title?: string;
  [extra: string]: unknown;
}
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
  [extra: string]: unknown;
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
  [extra: string]: unknown;
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  [extra: string]: unknown;
}
export type AnthropicToolResultContentBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock;
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | AnthropicToolResultContentBlock[];
  is_error?: boolean;
  [extra: string]: unknown;
}
/** A block type the model has no part for (server tools, search results, ...), passed through. */
export interface AnthropicOtherBlock {
  type: string;
  [extra: string]: unknown;
}

export type AnthropicBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | (AnthropicBlock | AnthropicOtherBlock)[];
}

/** A system message among the messages, where an agent sends one there (Claude Code's hook output, plan mode). */
export interface AnthropicSystemMessage {
  role: 'system';
  content: string;
}

/** What `threadbase context --format anthropic` prints: the body of a Messages API request, minus model/tools. */
export interface AnthropicRequest {
  system?: string;
  messages: (AnthropicMessage | AnthropicSystemMessage)[];
}

/** An API response message (or an SDK assistant message's `message`): a message plus id, model, usage. */
export interface AnthropicResponseMessage extends AnthropicMessage {
  id?: string;
  model?: string;
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } | null;
}

// ---------------------------------------------------------------------------------------------
// Small guards

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Fields of `block` other than `known`, or undefined when there are none. */
function extras(block: Record<string, unknown>, known: readonly string[]): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(block)) {
    if (known.includes(k) || v === undefined) continue;
    out ??= {};
    out[k] = v;
  }
  return out;
}

function withExtras(meta: Meta | undefined, ex: Record<string, unknown> | undefined): { meta?: Meta } {
  if (!ex) return meta ? { meta } : {};
  return { meta: { ...(meta ?? {}), anthropic: ex } };
}

function extrasOf(part: { meta?: Meta }): Record<string, unknown> {
  const ex = part.meta?.anthropic;
  return isRecord(ex) ? ex : {};
}

/** A tool input is always an object; a JSON string of an object is parsed, anything else is wrapped. */
export function toolInputObject(input: unknown): Record<string, unknown> {
  if (isRecord(input)) return input;
  if (typeof input === 'string') {
    try {
      const parsed: unknown = JSON.parse(input);
      if (isRecord(parsed)) return parsed;
    } catch {
      // not JSON: keep the string below
    }
    return input === '' ? {} : { input };
  }
  if (input === undefined || input === null) return {};
  return { input };
}

// ---------------------------------------------------------------------------------------------
// Anthropic → model

function sourceToMedia(source: unknown): { mediaType: string; data?: string; url?: string; text?: string } {
  if (!isRecord(source)) return { mediaType: 'application/octet-stream' };
  const mediaType = str(source.media_type) ?? 'application/octet-stream';
  if (source.type === 'url') return { mediaType: str(source.media_type) ?? '', url: str(source.url) ?? '' };
  if (source.type === 'text') return { mediaType: str(source.media_type) ?? 'text/plain', text: str(source.data) ?? '' };
  return { mediaType, data: stripDataPrefix(str(source.data) ?? '') };
}

/** base64 without a `data:...;base64,` prefix, whatever the input carried. */
export function stripDataPrefix(data: string): string {
  const m = /^data:[^;,]*;base64,/.exec(data);
  return m ? data.slice(m[0].length) : data;
}

function omitEmpty<T extends Record<string, unknown>>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

function imageFromBlock(b: Record<string, unknown>): ImagePart {
  const m = sourceToMedia(b.source);
  const part: ImagePart = omitEmpty({ type: 'image' as const, mediaType: m.mediaType, data: m.data, url: m.url });
  return { ...part, ...withExtras(undefined, extras(b, ['type', 'source'])) };
}

function documentFromBlock(b: Record<string, unknown>): FilePart {
  const m = sourceToMedia(b.source);
  const ex = extras(b, ['type', 'source', 'title']);
  const part: FilePart = omitEmpty({
    type: 'file' as const,
    mediaType: m.mediaType,
    data: m.data,
    url: m.url,
    text: m.text,
    name: str(b.title),
  });
  return { ...part, ...withExtras(undefined, ex) };
}

function toolResultContentFromBlocks(content: unknown, report?: ReportIssue, at = 'content'): string | ToolResultContent[] {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return JSON.stringify(content);
  const out: ToolResultContent[] = [];
  for (const [i, b] of content.entries()) {
    if (typeof b === 'string') {
      out.push({ type: 'text', text: b });
      continue;
    }
    if (!isRecord(b)) {
      report?.(at, i, `a tool result's content block is ${kindOf(b)}, not an object`);
      continue;
    }
    if (b.type === 'text')
      out.push({ type: 'text', text: str(b.text) ?? '', ...withExtras(undefined, extras(b, ['type', 'text'])) });
    else if (b.type === 'image') out.push(imageFromBlock(b));
    else if (b.type === 'document') out.push(documentFromBlock(b));
    else out.push({ type: 'text', text: '', meta: { anthropicBlock: b } });
  }
  return out;
}

/**
 * One Anthropic content block as a model part (a string as a text part). `report`, `at`: where a
 * tool_result's unreadable content items are reported (messageFromAnthropic passes them).
 */
export function partFromAnthropicBlock(block: unknown, report?: ReportIssue, at = ''): Part {
  if (!isRecord(block)) return { type: 'text', text: typeof block === 'string' ? block : JSON.stringify(block) };
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '', ...withExtras(undefined, extras(block, ['type', 'text'])) };
    case 'thinking':
      return omitEmpty({
        type: 'thinking' as const,
        thinking: str(block.thinking) ?? '',
        signature: str(block.signature),
        ...withExtras(undefined, extras(block, ['type', 'thinking', 'signature'])),
      });
    case 'redacted_thinking':
      return {
        type: 'redacted_thinking',
        data: str(block.data) ?? '',
        ...withExtras(undefined, extras(block, ['type', 'data'])),
      };
    case 'image':
      return imageFromBlock(block);
    case 'document':
      return documentFromBlock(block);
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(block.id) ?? '',
        name: str(block.name) ?? '',
        input: toolInputObject(block.input),
        ...withExtras(undefined, extras(block, ['type', 'id', 'name', 'input'])),
      };
    case 'tool_result': {
      const part: ToolResultPart = {
        type: 'tool_result',
        callId: str(block.tool_use_id) ?? '',
        content: toolResultContentFromBlocks(block.content, report, pathIn(at, 'content')),
      };
      // false is kept too: Claude Code writes and sends `is_error: false`
      if (typeof block.is_error === 'boolean') part.isError = block.is_error;
      return { ...part, ...withExtras(undefined, extras(block, ['type', 'tool_use_id', 'content', 'is_error'])) };
    }
    default:
      return { type: 'text', text: '', meta: { anthropicBlock: block } };
  }
}

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * The advisor requests of a response: its `usage.iterations` of type `advisor_message`, which carry
 * their own model and are not in the response's top-level counts (Claude Code bills them apart).
 */
function advisorsFromIterations(iterations: unknown): AdvisorUsage[] {
  if (!Array.isArray(iterations)) return [];
  return iterations.flatMap((it): AdvisorUsage[] => {
    if (!isRecord(it) || it.type !== 'advisor_message' || typeof it.model !== 'string' || !it.model) return [];
    const oneHour = isRecord(it.cache_creation) ? count(it.cache_creation.ephemeral_1h_input_tokens) : 0;
    return [
      {
        model: it.model,
        input: count(it.input_tokens),
        output: count(it.output_tokens),
        cacheRead: count(it.cache_read_input_tokens),
        cacheWrite: count(it.cache_creation_input_tokens),
        ...(oneHour ? { cacheWrite1h: oneHour } : {}),
      },
    ];
  });
}

/** Token counts as the Messages API's usage names them, the cache writes by how long they live. */
export function tokensToAnthropic(x: Pick<Usage, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'cacheWrite1h'>) {
  return {
    input_tokens: x.input,
    output_tokens: x.output,
    cache_creation_input_tokens: x.cacheWrite,
    cache_read_input_tokens: x.cacheRead,
    ...(x.cacheWrite1h
      ? {
          cache_creation: { ephemeral_5m_input_tokens: x.cacheWrite - x.cacheWrite1h, ephemeral_1h_input_tokens: x.cacheWrite1h },
        }
      : {}),
  };
}

/** Advisor requests as `usage.iterations`: the response's own counts first, as the API lists them. */
export function advisorIterations(u: Usage): Record<string, unknown>[] | undefined {
  if (!u.advisors?.length) return undefined;
  return [
    { type: 'message', ...tokensToAnthropic(u) },
    ...u.advisors.map((a) => ({ type: 'advisor_message', model: a.model, ...tokensToAnthropic(a) })),
  ];
}

export function usageFromAnthropic(u: unknown): Usage | undefined {
  if (!isRecord(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const oneHour = isRecord(u.cache_creation) ? n(u.cache_creation.ephemeral_1h_input_tokens) : 0;
  const webSearches = isRecord(u.server_tool_use) ? n(u.server_tool_use.web_search_requests) : 0;
  const advisors = advisorsFromIterations(u.iterations);
  return {
    input: n(u.input_tokens),
    output: n(u.output_tokens),
    cacheRead: n(u.cache_read_input_tokens),
    cacheWrite: n(u.cache_creation_input_tokens),
    ...(oneHour ? { cacheWrite1h: oneHour } : {}),
    // a breakdown of output_tokens, which counts the thinking too (as the model counts reasoning)
    reasoning: isRecord(u.output_tokens_details) ? n(u.output_tokens_details.thinking_tokens) : 0,
    ...(webSearches ? { webSearches } : {}),
    ...(u.speed === 'fast' ? { speed: 'fast' as const } : {}),
    ...(typeof u.inference_geo === 'string' && u.inference_geo ? { inferenceGeo: u.inference_geo } : {}),
    ...(advisors.length ? { advisors } : {}),
  };
}

/**
 * One Anthropic message as a model message. A user message with tool_result blocks becomes a 'tool'
 * message. Response fields (id, model, usage, stop_reason), when present, fill the model's slots.
 * A content block that is neither an object nor a string is skipped and reported (`opts.onIssue`).
 */
export function messageFromAnthropic(
  msg: AnthropicMessage | AnthropicResponseMessage | Record<string, unknown>,
  opts?: WireReadOptions,
): Message {
  return readMessage(msg as Record<string, unknown>, issueReporter(opts), '');
}

function readMessage(m: Record<string, unknown>, report: ReportIssue, at: string): Message {
  const content = pathIn(at, 'content');
  const parts: Part[] = [];
  if (typeof m.content === 'string') parts.push({ type: 'text', text: m.content });
  else if (Array.isArray(m.content)) {
    for (const [i, b] of m.content.entries()) {
      if (typeof b === 'string' || isRecord(b)) parts.push(partFromAnthropicBlock(b, report, `${content}[${i}]`));
      else report(content, i, `a content block is ${kindOf(b)}, not an object`);
    }
  }
  const assistant = m.role === 'assistant';
  const role: Role = assistant ? 'assistant' : parts.some((p) => p.type === 'tool_result') ? 'tool' : 'user';
  const out: Message = { role, parts };
  if (assistant) {
    out.api = 'anthropic-messages';
    out.provider = 'anthropic';
    const model = str(m.model);
    if (model) out.model = model;
    const id = str(m.id);
    if (id) out.responseId = id;
    const usage = usageFromAnthropic(m.usage);
    if (usage) out.usage = usage;
    const stop = str(m.stop_reason);
    if (stop) out.stopReason = stop;
  }
  return out;
}

/** Anthropic messages as model messages; an item that is not an object is skipped and reported (`opts.onIssue`). */
export function messagesFromAnthropic(messages: readonly unknown[], opts?: WireReadOptions): Message[] {
  const report = issueReporter(opts);
  const out: Message[] = [];
  for (const [i, m] of messages.entries()) {
    if (isRecord(m)) out.push(readMessage(m, report, `messages[${i}]`));
    else report('messages', i, `a message is ${kindOf(m)}, not an object`);
  }
  return out;
}

/** The Messages API `system` param (a string or text blocks) as one string. */
export function systemFromAnthropic(system: unknown, opts?: WireReadOptions): string | undefined {
  if (typeof system === 'string') return system;
  if (Array.isArray(system)) {
    const report = issueReporter(opts);
    const texts: string[] = [];
    for (const [i, b] of system.entries()) {
      if (typeof b === 'string') texts.push(b);
      else if (isRecord(b)) texts.push(str(b.text) ?? '');
      else report('system', i, `a system block is ${kindOf(b)}, not an object`);
    }
    return texts.length ? texts.join('\n\n') : undefined;
  }
  return undefined;
}

/** A Messages API request body as a context; unreadable items are skipped and reported (`opts.onIssue`). */
export function contextFromAnthropic(
  req: { system?: unknown; messages: readonly unknown[]; model?: unknown },
  opts?: WireReadOptions,
): Context {
  const ctx: Context = { messages: messagesFromAnthropic(req.messages, opts) };
  const system = systemFromAnthropic(req.system, opts);
  if (system !== undefined) ctx.system = system;
  const model = str(req.model);
  if (model) ctx.model = model;
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// model → Anthropic

function mediaSource(p: ImagePart | FilePart): AnthropicSource {
  if (p.url !== undefined && p.data === undefined) return { type: 'url', url: p.url };
  return { type: 'base64', media_type: p.mediaType, data: stripDataPrefix(p.data ?? '') };
}

function imageBlock(p: ImagePart): AnthropicImageBlock {
  return { type: 'image', source: mediaSource(p), ...extrasOf(p) };
}

function documentBlock(p: FilePart): AnthropicDocumentBlock | AnthropicTextBlock {
  let source: AnthropicSource;
  if (p.text !== undefined && p.data === undefined && p.url === undefined)
    source = { type: 'text', media_type: 'text/plain', data: p.text };
  else source = mediaSource(p);
  const block: AnthropicDocumentBlock = { type: 'document', source };
  if (p.name !== undefined) block.title = p.name;
  return { ...block, ...extrasOf(p) };
}

function toolResultContentBlocks(content: ToolResultPart['content']): string | AnthropicToolResultContentBlock[] {
  if (typeof content === 'string') return content;
  const out: AnthropicToolResultContentBlock[] = [];
  for (const c of content) {
    const raw = c.meta?.anthropicBlock;
    if (isRecord(raw) && typeof raw.type === 'string') out.push(raw as AnthropicToolResultContentBlock);
    else if (c.type === 'text') out.push({ type: 'text', text: c.text, ...extrasOf(c) });
    else if (c.type === 'image') out.push(imageBlock(c));
    else out.push(documentBlock(c));
  }
  return out;
}

export interface ToAnthropicOptions {
  /**
   * Thinking without a signature cannot be replayed to the API: 'keep' it as a thinking block
   * (lossless, the default for conversion), turn it into a 'text' block, or 'drop' it.
   */
  unsignedThinking?: 'keep' | 'text' | 'drop';
  /** Leave out text blocks with empty text (the API rejects them). */
  dropEmptyText?: boolean;
}

/**
 * How the agent a context comes from lays its messages out where the Messages API leaves a choice, set
 * by the agent's context builder (formats/<agent>) so that the request printed is the one the agent sends.
 */
export interface AnthropicLayout {
  /**
   * A message of tool results and a user's message next to it go as two user messages (the API takes
   * both), not merged into one; messages of results, and user's messages, are still merged among themselves.
   */
  resultsApartFromUser?: boolean;
  /**
   * System messages stay where they are, as `{role: 'system', content}` among the messages (Claude Code
   * 2.1.332 sends hook output and plan mode so), not lifted into the top-level `system`.
   */
  systemInPlace?: boolean;
  /**
   * An assistant message with no parts (all of them left out by the agent's context) is sent with no
   * content (`content: []`), merged into an assistant message next to it, not dropped: Cline 3.0.65 sends
   * a reply of only unsigned or redacted thinking so (the Messages API refuses it before the last message).
   */
  emptyAssistantSent?: boolean;
}

/** A context that may say how its agent lays it out in a Messages API request. */
export interface AnthropicLaidOutContext extends Context {
  anthropicLayout?: AnthropicLayout;
}

/**
 * A tool id the Messages API takes (`^[a-zA-Z0-9_-]+$`): the id itself when it is one, else its
 * refused characters as `_` and a hash of the whole id (so the call and its result still match and
 * two ids stay apart). Other agents record ids such as `call_…|fc_…` that Anthropic refuses.
 */
export function anthropicToolId(id: string): string {
  if (/^[a-zA-Z0-9_-]+$/.test(id)) return id;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

/**
 * Tool ids the Messages API takes (anthropicToolId) and unique in one conversation: it refuses
 * "`tool_use` ids must be unique", and another agent's ids can repeat across turns (providers that
 * number the calls of each response, as Kimi's `functions.bash:0`). A later call whose id is taken
 * gets a prefix (`tb2_…`) and its result follows it (a result answers the latest call of its id
 * before it). Not a suffix: Claude Code 2.1.332 sends the result of a call `<earlier id>_2` as
 * "[Tool result missing due to internal error]" (seen live; `call_1` then `call_12` are fine).
 */
export class AnthropicToolIds {
  private readonly used = new Set<string>();
  /** an original id → the id of its latest call */
  private readonly latest = new Map<string, string>();

  /** A call the conversation already holds, with the id `written`. */
  seen(original: string, written: string): void {
    this.used.add(written);
    this.latest.set(original, written);
  }

  private call(original: string): string {
    const valid = anthropicToolId(original);
    let written = valid;
    for (let n = 2; this.used.has(written); n++) written = `tb${n}_${valid}`;
    this.seen(original, written);
    return written;
  }

  /** The message with its tool ids as they are sent, and the original id of each part renamed. */
  rename(m: Message): { message: Message; originals: Map<Part, string> } {
    const originals = new Map<Part, string>();
    if (!m.parts.some((p) => p.type === 'tool_call' || p.type === 'tool_result')) return { message: m, originals };
    const parts = m.parts.map((p): Part => {
      if (p.type !== 'tool_call' && p.type !== 'tool_result') return p;
      const original = p.type === 'tool_call' ? p.id : p.callId;
      const written = p.type === 'tool_call' ? this.call(original) : (this.latest.get(original) ?? anthropicToolId(original));
      if (written === original) return p;
      const renamed = p.type === 'tool_call' ? { ...p, id: written } : { ...p, callId: written };
      originals.set(renamed, original);
      return renamed;
    });
    return { message: { ...m, parts }, originals };
  }
}

/** One model part as an Anthropic block, or undefined when the options leave it out. */
export function partToAnthropicBlock(p: Part, opts: ToAnthropicOptions = {}): AnthropicBlock | AnthropicOtherBlock | undefined {
  const raw = p.meta?.anthropicBlock;
  if (isRecord(raw) && typeof raw.type === 'string') return raw as AnthropicOtherBlock;
  switch (p.type) {
    case 'text':
      if (opts.dropEmptyText && p.text === '') return undefined;
      return { type: 'text', text: p.text, ...extrasOf(p) };
    case 'thinking': {
      if (p.signature === undefined) {
        const mode = opts.unsignedThinking ?? 'keep';
        if (mode === 'drop') return undefined;
        if (mode === 'text') return p.thinking === '' ? undefined : { type: 'text', text: p.thinking };
      }
      const b: AnthropicThinkingBlock = { type: 'thinking', thinking: p.thinking };
      if (p.signature !== undefined) b.signature = p.signature;
      return { ...b, ...extrasOf(p) };
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: p.data, ...extrasOf(p) };
    case 'image':
      return imageBlock(p);
    case 'file':
      return documentBlock(p);
    case 'tool_call':
      return { type: 'tool_use', id: anthropicToolId(p.id), name: p.name, input: p.input, ...extrasOf(p) };
    case 'tool_result': {
      const b: AnthropicToolResultBlock = {
        type: 'tool_result',
        tool_use_id: anthropicToolId(p.callId),
        content: toolResultContentBlocks(p.content),
      };
      if (p.isError !== undefined) b.is_error = p.isError;
      return { ...b, ...extrasOf(p) };
    }
  }
}

/** One model message as one Anthropic message (roles user/tool → user); system messages are not messages here. */
export function messageToAnthropic(m: Message, opts: ToAnthropicOptions = {}): AnthropicMessage {
  const content: (AnthropicBlock | AnthropicOtherBlock)[] = [];
  for (const p of m.parts) {
    const b = partToAnthropicBlock(p, opts);
    if (b) content.push(b);
  }
  return { role: m.role === 'assistant' ? 'assistant' : 'user', content };
}

/**
 * Model messages as the Messages API takes them: system messages lifted into `system`, tool
 * messages as user messages, consecutive same-role messages merged (a tool message and a user
 * message not, where the layout keeps them apart), messages left empty dropped (an assistant one with
 * no parts kept, where the layout says so).
 */
export function messagesToAnthropic(
  messages: readonly Message[],
  opts: ToAnthropicOptions = {},
  layout: AnthropicLayout = {},
): AnthropicRequest {
  const system: string[] = [];
  const out: AnthropicRequest['messages'] = [];
  let prevRole: Role | undefined;
  for (const m of messages) {
    if (m.role === 'system') {
      const text = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      if (text && layout.systemInPlace) {
        out.push({ role: 'system', content: text });
        prevRole = m.role;
      } else if (text) system.push(text);
      continue;
    }
    const am = messageToAnthropic(m, opts);
    const sentEmpty = layout.emptyAssistantSent === true && m.role === 'assistant' && m.parts.length === 0;
    if (am.content.length === 0 && !sentEmpty) continue;
    const prev = out[out.length - 1];
    const apart = layout.resultsApartFromUser && prevRole !== m.role && (prevRole === 'tool' || m.role === 'tool');
    if (prev && !apart && prev.role === am.role && Array.isArray(prev.content) && Array.isArray(am.content)) {
      prev.content = [...prev.content, ...am.content];
    } else out.push(am);
    prevRole = m.role;
  }
  return system.length ? { system: system.join('\n\n'), messages: out } : { messages: out };
}

/**
 * The Messages API wants every tool_use answered by a tool_result among the first blocks of the next
 * user message, and no tool_result without its tool_use in the message before. Consecutive assistant
 * messages are merged into one, so they are one turn here; a missing result is an `is_error`
 * tool_result "No result provided" (pi-ai's, see pairing.ts: it says nothing about why, where Claude
 * Code's own "[Tool call interrupted: …]" says the session ended), an orphan result is dropped.
 */
const ANTHROPIC_PAIRING: PairingRule = { mergeAssistants: true };

/**
 * A context as a Messages API request body `{system?, messages}` (the `anthropic` context format),
 * tool calls and results paired as the API requires (pairing.ts).
 */
export function contextToAnthropic(
  ctx: AnthropicLaidOutContext,
  opts: ToAnthropicOptions = { unsignedThinking: 'text', dropEmptyText: true },
): AnthropicRequest {
  // system messages go to `system`, so they are set aside before pairing and do not split a turn;
  // kept in place, they go through pairing as the messages between a turn's replies they are
  const inPlace = ctx.anthropicLayout?.systemInPlace === true;
  const lifted = inPlace ? [] : ctx.messages.filter((m) => m.role === 'system');
  const ids = new AnthropicToolIds();
  const paired = pairToolResults(
    ctx.messages.filter((m) => inPlace || m.role !== 'system').map(providerCallsAsNotes),
    ANTHROPIC_PAIRING,
  ).map((m) => ids.rename(m).message);
  const { system, messages } = messagesToAnthropic([...lifted, ...paired], opts, ctx.anthropicLayout);
  const parts = [ctx.system, system].filter((s): s is string => typeof s === 'string' && s !== '');
  return parts.length ? { system: parts.join('\n\n'), messages } : { messages };
}
