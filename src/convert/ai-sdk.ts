/**
 * threadbase model ⇄ AI SDK `ModelMessage` (v5 shape), both directions, with no dependency on `ai`.
 *
 * Thinking signatures and redacted thinking ride in `providerOptions.anthropic` of a reasoning part
 * (`signature`, `redactedData`), as @ai-sdk/anthropic reads them, so Anthropic sessions survive.
 * A 'tool' message becomes a tool message of tool-result parts; text/images alongside follow as
 * a user message. Tool result outputs: string → text, error → error-text/error-json, parts → content.
 */
import { type Context, contextFromLeadingSystem } from '../model/tree.js';
import type { FilePart, ImagePart, Message, Part, ToolResultContent, ToolResultPart } from '../model/types.js';
import { stripDataPrefix, toolInputObject } from './anthropic.js';
import { type PairingRule, pairToolResults } from './pairing.js';

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
        else if (p.type === 'thinking') {
          const r: AiReasoningPart = { type: 'reasoning', text: p.thinking };
          if (p.signature !== undefined) r.providerOptions = { anthropic: { signature: p.signature } };
          content.push(r);
        } else if (p.type === 'redacted_thinking') {
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
  return { messages: [...head, ...messagesToAiSdk(pairToolResults(ctx.messages, AI_SDK_PAIRING))] };
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

function anthropicOpts(p: Record<string, unknown>): Record<string, unknown> {
  const po = p.providerOptions;
  return isRecord(po) && isRecord(po.anthropic) ? po.anthropic : {};
}

function partFromAi(p: unknown): Part | undefined {
  if (!isRecord(p)) return undefined;
  switch (p.type) {
    case 'text':
      return { type: 'text', text: str(p.text) ?? '' };
    case 'reasoning': {
      const a = anthropicOpts(p);
      const redacted = str(a.redactedData);
      if (redacted !== undefined) return { type: 'redacted_thinking', data: redacted };
      const signature = str(a.signature);
      return signature !== undefined
        ? { type: 'thinking', thinking: str(p.text) ?? '', signature }
        : { type: 'thinking', thinking: str(p.text) ?? '' };
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
      return toolResultFromAi(p);
    default:
      return { type: 'text', text: '', meta: { aiSdkPart: p } };
  }
}

function toolResultFromAi(p: Record<string, unknown>): ToolResultPart {
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
        ? o.value.filter(isRecord).map((c): ToolResultContent => {
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

/** AI SDK ModelMessages as model messages (system messages stay 'system'). */
export function messagesFromAiSdk(messages: readonly unknown[]): Message[] {
  const out: Message[] = [];
  for (const raw of messages) {
    if (!isRecord(raw)) continue;
    const content = raw.content;
    const parts: Part[] =
      typeof content === 'string'
        ? [{ type: 'text', text: content }]
        : Array.isArray(content)
          ? content.map(partFromAi).filter((p): p is Part => p !== undefined)
          : [];
    if (raw.role === 'system') out.push({ role: 'system', parts });
    else if (raw.role === 'user') out.push({ role: 'user', parts });
    else if (raw.role === 'assistant') {
      // Provider-executed tool results sit in the assistant message; they stay there.
      out.push({ role: 'assistant', parts });
    } else if (raw.role === 'tool') {
      const prev = out[out.length - 1];
      if (prev?.role === 'tool') prev.parts.push(...parts);
      else out.push({ role: 'tool', parts });
    }
  }
  return out;
}

/** AI SDK messages as a context: leading system messages become `system`. */
export function contextFromAiSdk(messages: readonly unknown[]): Context {
  return contextFromLeadingSystem(messagesFromAiSdk(messages));
}
