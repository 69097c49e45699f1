/**
 * threadbase model ⇄ AI SDK `ModelMessage` (v5 shape), both directions, with no dependency on `ai`.
 *
 * Thinking signatures and redacted thinking ride in `providerOptions.anthropic` of a reasoning part
 * (`signature`, `redactedData`), as @ai-sdk/anthropic reads them, so Anthropic sessions survive.
 * OpenAI's encrypted reasoning (meta.encryptedContent, with the item id as meta.codexItemId, or OpenCode's
 * meta.providerMetadata.openai.itemId) rides in `providerOptions.openai` (`itemId`,
 * `reasoningEncryptedContent`), as @ai-sdk/openai's Responses provider reads it, so sessions of Codex, or of
 * pi or OpenCode on an OpenAI model, continue there (sent with `store: false`). A part may carry both.
 * A 'tool' message becomes a tool message of tool-result parts; text/images alongside follow as
 * a user message. Tool result outputs: string → text, error → error-text/error-json, parts → content.
 */
import { type Context, contextFromLeadingSystem } from '../model/tree.js';
import type {
  FilePart,
  ImagePart,
  Message,
  Meta,
  Part,
  ThinkingPart,
  ToolResultContent,
  ToolResultPart,
} from '../model/types.js';
import { stripDataPrefix, toolInputObject } from './anthropic.js';
import { type PairingRule, pairToolResults } from './pairing.js';
import { providerCallsAsNotes } from './provider-tools.js';
import { issueReporter, kindOf, type ReportIssue, type WireReadOptions } from './read-issues.js';

type ProviderOptions = Record<string, Record<string, unknown>>;

export interface AiTextPart {
  type: 'text';
  text: string;
  providerOptions?: ProviderOptions;
}
export interface AiImagePart {
  type: 'image';
  /** base64 string, data: URL, http(s) URL string, URL or bytes */
  image: string | URL | Uint8Array | ArrayBuffer;
  mediaType?: string;
  providerOptions?: ProviderOptions;
}
export interface AiFilePart {
  type: 'file';
  data: string | URL | Uint8Array | ArrayBuffer;
  mediaType: string;
  filename?: string;
  providerOptions?: ProviderOptions;
}
export interface AiReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
}
export interface AiToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerExecuted?: boolean;
  providerOptions?: ProviderOptions;
}
export type AiToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: unknown }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: unknown }
  | { type: 'content'; value: ({ type: 'text'; text: string } | { type: 'media'; data: string; mediaType: string })[] };
export interface AiToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: AiToolResultOutput;
  providerOptions?: ProviderOptions;
}

export type AiModelMessage =
  | { role: 'system'; content: string; providerOptions?: ProviderOptions }
  | { role: 'user'; content: string | (AiTextPart | AiImagePart | AiFilePart)[]; providerOptions?: ProviderOptions }
  | {
      role: 'assistant';
      content: string | (AiTextPart | AiFilePart | AiReasoningPart | AiToolCallPart | AiToolResultPart)[];
      providerOptions?: ProviderOptions;
    }
  | { role: 'tool'; content: AiToolResultPart[]; providerOptions?: ProviderOptions };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---------------------------------------------------------------------------------------------
// model → AI SDK

function imageToAi(p: ImagePart): AiImagePart {
  return p.data !== undefined
    ? { type: 'image', image: stripDataPrefix(p.data), mediaType: p.mediaType }
    : { type: 'image', image: p.url ?? '', ...(p.mediaType ? { mediaType: p.mediaType } : {}) };
}

function fileToAi(p: FilePart): AiFilePart | AiTextPart {
  if (p.data === undefined && p.url === undefined) {
    // A plain-text document: a text file part carrying its text as base64.
    const out: AiFilePart = {
      type: 'file',
      data: Buffer.from(p.text ?? '', 'utf8').toString('base64'),
      mediaType: p.mediaType || 'text/plain',
    };
    if (p.name !== undefined) out.filename = p.name;
    return out;
  }
  const out: AiFilePart = {
    type: 'file',
    data: p.data !== undefined ? stripDataPrefix(p.data) : (p.url ?? ''),
    mediaType: p.mediaType,
  };
  if (p.name !== undefined) out.filename = p.name;
  return out;
}

function resultOutput(p: ToolResultPart): AiToolResultOutput {
  if (typeof p.content === 'string')
    return p.isError ? { type: 'error-text', value: p.content } : { type: 'text', value: p.content };
  // error outputs hold no parts: the parts go as JSON, which messagesFromAiSdk reads back
  if (p.isError) return { type: 'error-json', value: p.content };
  return {
    type: 'content',
    value: p.content.map((c) => {
      if (c.type === 'text') return { type: 'text' as const, text: c.text };
      if (c.data !== undefined) return { type: 'media' as const, data: stripDataPrefix(c.data), mediaType: c.mediaType };
      if (c.type === 'file' && c.text !== undefined)
        return { type: 'media' as const, data: Buffer.from(c.text, 'utf8').toString('base64'), mediaType: 'text/plain' };
      return { type: 'text' as const, text: c.url ?? '' };
    }),
  };
}

function userParts(parts: readonly Part[]): (AiTextPart | AiImagePart | AiFilePart)[] {
  const out: (AiTextPart | AiImagePart | AiFilePart)[] = [];
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'image') out.push(imageToAi(p));
    else if (p.type === 'file') out.push(fileToAi(p));
  }
  return out;
}

/**
 * OpenAI's encrypted reasoning of a thinking part, as @ai-sdk/openai reads a reasoning part's
 * `providerOptions.openai` (convertToOpenAIResponsesInput, src/responses/convert-to-openai-responses-input.ts:
 * `itemId`, `reasoningEncryptedContent`). The item id is where the Codex and pi readers keep it
 * (meta.codexItemId) or in OpenCode's provider metadata. Without encrypted content there is nothing to
 * send with `store: false` (an id alone is sent as a reference to a stored item, which these agents' items
 * are not), so no options.
 */
function openaiReasoningOptions(p: ThinkingPart): { itemId?: string; reasoningEncryptedContent: string } | undefined {
  const encrypted = str(p.meta?.encryptedContent);
  if (encrypted === undefined) return undefined;
  const providerMetadata = p.meta?.providerMetadata;
  const openai = isRecord(providerMetadata) && isRecord(providerMetadata.openai) ? providerMetadata.openai : undefined;
  const itemId = str(p.meta?.codexItemId) ?? str(openai?.itemId);
  return { ...(itemId !== undefined ? { itemId } : {}), reasoningEncryptedContent: encrypted };
}

/** A reasoning item's summary parts (meta.summaryParts, as the Codex reader keeps them) when they make up the text. */
function summaryPartsOf(p: ThinkingPart): string[] | undefined {
  const parts = p.meta?.summaryParts;
  if (!Array.isArray(parts) || parts.length < 2 || !parts.every((x) => typeof x === 'string')) return undefined;
  return parts.join('\n\n') === p.thinking ? parts : undefined;
}

/**
 * A thinking part as reasoning parts. An OpenAI reasoning item of several summary parts becomes one
 * reasoning part per summary, each with the item's id and encrypted content, as @ai-sdk/openai gives a
 * response's reasoning and merges it again into one item (and messagesFromAiSdk into one thinking part).
 * An app that leaves the item ids out (OpenCode does, with store: false) would send each part as an item
 * with the same encrypted content; OpenCode's own layout, which its writer follows, carries the encrypted
 * content on an item's last part only (test/agents/openai-agents.test.ts).
 */
function thinkingToAi(p: ThinkingPart): AiReasoningPart[] {
  const openai = openaiReasoningOptions(p);
  const summaries = summaryPartsOf(p);
  if (openai?.itemId !== undefined && p.signature === undefined && summaries)
    return summaries.map((text) => ({ type: 'reasoning', text, providerOptions: { openai: { ...openai } } }));
  const r: AiReasoningPart = { type: 'reasoning', text: p.thinking };
  const options: ProviderOptions = {};
  if (p.signature !== undefined) options.anthropic = { signature: p.signature };
  if (openai) options.openai = openai;
  if (Object.keys(options).length) r.providerOptions = options;
  return [r];
}

/** One model message as the AI SDK messages it becomes (a tool message with media alongside becomes two). */
export function messageToAiSdk(m: Message): AiModelMessage[] {
  switch (m.role) {
    case 'system':
      return [{ role: 'system', content: m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') }];
    case 'user': {
      const content = userParts(m.parts);
      return content.length ? [{ role: 'user', content }] : [];
    }
    case 'assistant': {
      const content: (AiTextPart | AiFilePart | AiReasoningPart | AiToolCallPart)[] = [];
      for (const p of m.parts) {
        if (p.type === 'text') content.push({ type: 'text', text: p.text });
        else if (p.type === 'thinking') content.push(...thinkingToAi(p));
        else if (p.type === 'redacted_thinking') {
          content.push({ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: p.data } } });
        } else if (p.type === 'tool_call') {
          content.push({ type: 'tool-call', toolCallId: p.id, toolName: p.name, input: p.input });
        } else if (p.type === 'file') {
          content.push(fileToAi(p));
        } else if (p.type === 'image') {
          const img = imageToAi(p);
          content.push({ type: 'file', data: img.image, mediaType: img.mediaType ?? p.mediaType });
        }
      }
      return [{ role: 'assistant', content }];
    }
    case 'tool': {
      const results: AiToolResultPart[] = [];
      const alongside: Part[] = [];
      for (const p of m.parts) {
        if (p.type === 'tool_result') {
          results.push({ type: 'tool-result', toolCallId: p.callId, toolName: p.name ?? '', output: resultOutput(p) });
        } else alongside.push(p);
      }
      const out: AiModelMessage[] = results.length ? [{ role: 'tool', content: results }] : [];
      const user = userParts(alongside);
      if (user.length) out.push({ role: 'user', content: user });
      return out;
    }
  }
}

/**
 * Model messages as AI SDK messages. Tool results get their tool's name from the matching call
 * when the result itself does not record it (the AI SDK requires toolName).
 */
export function messagesToAiSdk(messages: readonly Message[]): AiModelMessage[] {
  const callNames = new Map<string, string>();
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool_call') callNames.set(p.id, p.name);
  const named = messages.map((m) =>
    m.role !== 'tool'
      ? m
      : {
          ...m,
          parts: m.parts.map((p) =>
            p.type === 'tool_result' && !p.name && callNames.has(p.callId) ? { ...p, name: callNames.get(p.callId) } : p,
          ),
        },
  );
  return named.flatMap(messageToAiSdk);
}

/**
 * AI SDK messages go on to whichever provider: @ai-sdk/openai sends each assistant message as it is
 * (its tool calls need their tool message right after it), @ai-sdk/anthropic merges them, so each
 * assistant message is a turn of its own, which suits both. A missing result is an `error-text`
 * output "No result provided" (pi-ai's, pairing.ts), an orphan result is dropped.
 */
const AI_SDK_PAIRING: PairingRule = { mergeAssistants: false };

/**
 * A context as AI SDK messages, the system prompt first (the `ai-sdk` context format), tool calls
 * and results paired as provider APIs require (pairing.ts).
 */
export function contextToAiSdk(ctx: Context): { messages: AiModelMessage[] } {
  const head: AiModelMessage[] = ctx.system ? [{ role: 'system', content: ctx.system }] : [];
  // an assistant message with no parts (a turn that failed before any output) is one no provider takes
  const body = messagesToAiSdk(pairToolResults(ctx.messages.map(providerCallsAsNotes), AI_SDK_PAIRING)).filter(
    (m) => m.role !== 'assistant' || m.content.length > 0,
  );
  return { messages: [...head, ...body] };
}

// ---------------------------------------------------------------------------------------------
// AI SDK → model

function bytesToBase64(v: Uint8Array | ArrayBuffer): string {
  return Buffer.from(v instanceof ArrayBuffer ? new Uint8Array(v) : v).toString('base64');
}

/** DataContent | URL as base64 data or a url (a data: URL is unpacked). */
function dataOrUrl(v: unknown, mediaType: string | undefined): { mediaType?: string; data?: string; url?: string } {
  if (v instanceof URL) return dataOrUrl(v.href, mediaType);
  if (v instanceof Uint8Array || v instanceof ArrayBuffer) return { data: bytesToBase64(v), mediaType };
  if (typeof v === 'string') {
    const m = /^data:([^;,]*)(?:;[^,]*)?;base64,/.exec(v);
    if (m) return { data: v.slice(m[0].length), mediaType: mediaType ?? (m[1] || undefined) };
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) return { url: v, mediaType };
    return { data: v, mediaType };
  }
  return { data: '', mediaType };
}

function providerOpts(p: Record<string, unknown>, provider: string): Record<string, unknown> {
  const po = p.providerOptions;
  return isRecord(po) && isRecord(po[provider]) ? po[provider] : {};
}

/** An OpenAI reasoning item's id and encrypted content, where the Codex reader keeps them. */
function openaiReasoningMeta(p: Record<string, unknown>): Meta {
  const o = providerOpts(p, 'openai');
  const meta: Meta = {};
  const itemId = str(o.itemId);
  if (itemId !== undefined) meta.codexItemId = itemId;
  const encrypted = str(o.reasoningEncryptedContent);
  if (encrypted !== undefined) meta.encryptedContent = encrypted;
  return meta;
}

/**
 * Consecutive thinking parts of one OpenAI reasoning item (same item id, no Anthropic signature), as
 * @ai-sdk/openai gives one per summary part, as one thinking part: texts joined, the summary parts in
 * meta.summaryParts, the last encrypted content (as @ai-sdk/openai keeps it).
 */
function mergeReasoningItems(parts: Part[]): Part[] {
  const out: Part[] = [];
  let texts: string[] = [];
  const itemOf = (p: Part | undefined): string | undefined =>
    p?.type === 'thinking' && p.signature === undefined ? str(p.meta?.codexItemId) : undefined;
  for (const p of parts) {
    const prev = out[out.length - 1];
    const id = itemOf(p);
    if (id === undefined || itemOf(prev) !== id || p.type !== 'thinking' || prev?.type !== 'thinking') {
      out.push(p);
      texts = p.type === 'thinking' ? [p.thinking] : [];
      continue;
    }
    texts.push(p.thinking);
    const meta: Meta = { ...prev.meta, summaryParts: [...texts] };
    if (p.meta?.encryptedContent !== undefined) meta.encryptedContent = p.meta.encryptedContent;
    out[out.length - 1] = { ...prev, thinking: texts.join('\n\n'), meta };
  }
  return out;
}

function partFromAi(p: Record<string, unknown>, report: ReportIssue, at: string): Part {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: str(p.text) ?? '' };
    case 'reasoning': {
      const a = providerOpts(p, 'anthropic');
      const redacted = str(a.redactedData);
      if (redacted !== undefined) return { type: 'redacted_thinking', data: redacted };
      const part: ThinkingPart = { type: 'thinking', thinking: str(p.text) ?? '' };
      const signature = str(a.signature);
      if (signature !== undefined) part.signature = signature;
      const meta = openaiReasoningMeta(p);
      if (Object.keys(meta).length) part.meta = meta;
      return part;
    }
    case 'image': {
      const d = dataOrUrl(p.image, str(p.mediaType));
      const img: ImagePart = { type: 'image', mediaType: d.mediaType ?? 'image/*' };
      if (d.data !== undefined) img.data = d.data;
      if (d.url !== undefined) img.url = d.url;
      return img;
    }
    case 'file': {
      const d = dataOrUrl(p.data, str(p.mediaType));
      const mediaType = d.mediaType ?? 'application/octet-stream';
      if (mediaType.startsWith('image/')) {
        const img: ImagePart = { type: 'image', mediaType };
        if (d.data !== undefined) img.data = d.data;
        if (d.url !== undefined) img.url = d.url;
        return img;
      }
      const f: FilePart = { type: 'file', mediaType };
      if (mediaType === 'text/plain' && d.data !== undefined) f.text = Buffer.from(d.data, 'base64').toString('utf8');
      else {
        if (d.data !== undefined) f.data = d.data;
        if (d.url !== undefined) f.url = d.url;
      }
      const name = str(p.filename);
      if (name !== undefined) f.name = name;
      return f;
    }
    case 'tool-call':
      return { type: 'tool_call', id: str(p.toolCallId) ?? '', name: str(p.toolName) ?? '', input: toolInputObject(p.input) };
    case 'tool-result':
      return toolResultFromAi(p, report, at);
    default:
      return { type: 'text', text: '', meta: { aiSdkPart: p } };
  }
}

function toolResultFromAi(p: Record<string, unknown>, report: ReportIssue, at: string): ToolResultPart {
  const out: ToolResultPart = { type: 'tool_result', callId: str(p.toolCallId) ?? '', content: '' };
  const name = str(p.toolName);
  if (name) out.name = name;
  // v4 messages carried `result` instead of `output`
  const o = isRecord(p.output) ? p.output : { type: 'json', value: p.result };
  switch (o.type) {
    case 'text':
      out.content = str(o.value) ?? '';
      break;
    case 'error-text':
      out.content = str(o.value) ?? '';
      out.isError = true;
      break;
    case 'error-json':
      out.isError = true;
      out.content = Array.isArray(o.value) ? toolContentFromJson(o.value) : JSON.stringify(o.value ?? null);
      break;
    case 'content':
      out.content = Array.isArray(o.value)
        ? o.value
            .flatMap((c, i) => {
              if (isRecord(c)) return [c];
              report(`${at}.output.value`, i, `a tool result's content item is ${kindOf(c)}, not an object`);
              return [];
            })
            .map((c): ToolResultContent => {
              if (c.type === 'media') {
                const mediaType = str(c.mediaType) ?? 'application/octet-stream';
                const data = str(c.data) ?? '';
                if (mediaType.startsWith('image/')) return { type: 'image', mediaType, data };
                if (mediaType === 'text/plain')
                  return { type: 'file', mediaType, text: Buffer.from(data, 'base64').toString('utf8') };
                return { type: 'file', mediaType, data };
              }
              return { type: 'text', text: str(c.text) ?? '' };
            })
        : '';
      break;
    default:
      out.content = typeof o.value === 'string' ? o.value : JSON.stringify(o.value ?? null);
  }
  return out;
}

/** error-json written by messageToAiSdk holds model tool-result content parts; read them back. */
function toolContentFromJson(value: unknown[]): string | ToolResultContent[] {
  const ok = value.every((v) => isRecord(v) && (v.type === 'text' || v.type === 'image' || v.type === 'file'));
  return ok ? (value as ToolResultContent[]) : JSON.stringify(value);
}

/**
 * AI SDK ModelMessages as model messages (system messages stay 'system'). A content part that is a
 * string is read as text; a message or part that is not an object, and a message of an unknown role,
 * is skipped and reported (`opts.onIssue`).
 */
export function messagesFromAiSdk(messages: readonly unknown[], opts?: WireReadOptions): Message[] {
  const report = issueReporter(opts);
  const out: Message[] = [];
  for (const [index, raw] of messages.entries()) {
    if (!isRecord(raw)) {
      report('messages', index, `a message is ${kindOf(raw)}, not an object`);
      continue;
    }
    const content = raw.content;
    const parts: Part[] = [];
    if (typeof content === 'string') parts.push({ type: 'text', text: content });
    else if (Array.isArray(content)) {
      for (const [i, p] of content.entries()) {
        const at = `messages[${index}].content[${i}]`;
        if (typeof p === 'string') parts.push({ type: 'text', text: p });
        else if (isRecord(p)) parts.push(partFromAi(p, report, at));
        else report(`messages[${index}].content`, i, `a content part is ${kindOf(p)}, not an object`);
      }
    }
    if (raw.role === 'system') out.push({ role: 'system', parts });
    else if (raw.role === 'user') out.push({ role: 'user', parts });
    else if (raw.role === 'assistant') {
      // Provider-executed tool results sit in the assistant message; they stay there.
      out.push({ role: 'assistant', parts: mergeReasoningItems(parts) });
    } else if (raw.role === 'tool') {
      const prev = out[out.length - 1];
      if (prev?.role === 'tool') prev.parts.push(...parts);
      else out.push({ role: 'tool', parts });
    } else report('messages', index, `role ${JSON.stringify(raw.role) ?? 'undefined'} is none of system, user, assistant, tool`);
  }
  return out;
}

/** AI SDK messages as a context: leading system messages become `system`. */
export function contextFromAiSdk(messages: readonly unknown[], opts?: WireReadOptions): Context {
  return contextFromLeadingSystem(messagesFromAiSdk(messages, opts));
}
