/**
 * threadbase model ⇄ OpenAI chat completions messages, both directions.
 *
 * Model → OpenAI: a 'tool' message becomes one `role: "tool"` message per tool result (with
 * `tool_call_id`); text/images that came alongside follow as a user message (OpenAI tool content is
 * text only). Tool calls go in `tool_calls` with JSON-string `arguments`; thinking goes in the
 * widely used non-standard `reasoning_content`. OpenAI has no slot for thinking signatures,
 * redacted thinking or a tool error flag; those are left out.
 * OpenAI → model: consecutive tool messages become one 'tool' message; `arguments` are parsed
 * into an object (never a string); a data: URL image becomes base64 data + mediaType.
 */
import { type Context, contextFromLeadingSystem } from '../model/tree.js';
import type { FilePart, ImagePart, Message, Part, TextPart, ToolResultContent, ToolResultPart } from '../model/types.js';
import { stripDataPrefix, toolInputObject } from './anthropic.js';
import { type PairingRule, pairToolResults } from './pairing.js';
import { providerCallsAsNotes } from './provider-tools.js';
import { issueReporter, kindOf, type ReportIssue, type WireReadOptions } from './read-issues.js';

export interface OpenAITextPart {
  type: 'text';
  text: string;
}
export interface OpenAIImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export interface OpenAIFilePart {
  type: 'file';
  file: { file_data?: string; file_id?: string; filename?: string };
}
export type OpenAIUserContentPart = OpenAITextPart | OpenAIImagePart | OpenAIFilePart;

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAISystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAITextPart[];
}
export interface OpenAIUserMessage {
  role: 'user';
  content: string | OpenAIUserContentPart[];
}
export interface OpenAIAssistantMessage {
  role: 'assistant';
  content: string | OpenAITextPart[] | null;
  tool_calls?: OpenAIToolCall[];
  /** Non-standard (DeepSeek, vLLM, OpenRouter and others): the model's reasoning text. */
  reasoning_content?: string;
  refusal?: string | null;
}
export interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAITextPart[];
}

export type OpenAIMessage = OpenAISystemMessage | OpenAIUserMessage | OpenAIAssistantMessage | OpenAIToolMessage;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

// ---------------------------------------------------------------------------------------------
// model → OpenAI

function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${stripDataPrefix(data)}`;
}

function imageToOpenAI(p: ImagePart): OpenAIImagePart {
  return { type: 'image_url', image_url: { url: p.data !== undefined ? dataUrl(p.mediaType, p.data) : (p.url ?? '') } };
}

function fileToOpenAI(p: FilePart): OpenAIUserContentPart {
  // A plain-text document has no file slot of its own; it is its text.
  if (p.data === undefined && p.url === undefined) return { type: 'text', text: p.text ?? '' };
  if (p.data === undefined) return { type: 'text', text: p.url ?? '' };
  const file: OpenAIFilePart['file'] = { file_data: dataUrl(p.mediaType, p.data) };
  if (p.name !== undefined) file.filename = p.name;
  return { type: 'file', file };
}

function userContent(parts: readonly Part[]): OpenAIUserMessage['content'] {
  const out: OpenAIUserContentPart[] = [];
  for (const p of parts) {
    if (p.type === 'text') out.push({ type: 'text', text: p.text });
    else if (p.type === 'image') out.push(imageToOpenAI(p));
    else if (p.type === 'file') out.push(fileToOpenAI(p));
  }
  const only = out[0];
  return out.length === 1 && only?.type === 'text' ? only.text : out;
}

function toolResultText(content: ToolResultPart['content']): string | OpenAITextPart[] {
  if (typeof content === 'string') return content;
  return content.map((c): OpenAITextPart => {
    if (c.type === 'text') return { type: 'text', text: c.text };
    if (c.type === 'file' && c.text !== undefined) return { type: 'text', text: c.text };
    return { type: 'text', text: `[${c.type}${c.url ? `: ${c.url}` : ''}]` };
  });
}

/** Non-text content of tool results, which OpenAI tool messages cannot hold; sent after them as user content. */
function toolResultMedia(content: ToolResultPart['content']): Part[] {
  if (typeof content === 'string') return [];
  return content.filter((c) => c.type === 'image' || (c.type === 'file' && c.text === undefined));
}

/** One model message as the OpenAI messages it becomes (a tool message can become several). */
export function messageToOpenAI(m: Message): OpenAIMessage[] {
  switch (m.role) {
    case 'system':
      return [{ role: 'system', content: m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') }];
    case 'user': {
      const content = userContent(m.parts);
      return typeof content === 'string' || content.length ? [{ role: 'user', content }] : [];
    }
    case 'assistant': {
      const texts: OpenAITextPart[] = [];
      const calls: OpenAIToolCall[] = [];
      const reasoning: string[] = [];
      for (const p of m.parts) {
        if (p.type === 'text') texts.push({ type: 'text', text: p.text });
        else if (p.type === 'thinking') reasoning.push(p.thinking);
        else if (p.type === 'tool_call')
          calls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.input) } });
      }
      const first = texts[0];
      const out: OpenAIAssistantMessage = {
        role: 'assistant',
        content: texts.length === 0 ? (calls.length ? null : '') : texts.length === 1 && first ? first.text : texts,
      };
      if (calls.length) out.tool_calls = calls;
      if (reasoning.length) out.reasoning_content = reasoning.join('\n');
      return [out];
    }
    case 'tool': {
      const out: OpenAIMessage[] = [];
      const alongside: Part[] = [];
      for (const p of m.parts) {
        if (p.type === 'tool_result') {
          out.push({ role: 'tool', tool_call_id: p.callId, content: toolResultText(p.content) });
          alongside.push(...toolResultMedia(p.content));
        } else alongside.push(p);
      }
      const content = userContent(alongside);
      if (typeof content === 'string' || content.length) out.push({ role: 'user', content });
      return out;
    }
  }
}

export function messagesToOpenAI(messages: readonly Message[]): OpenAIMessage[] {
  return messages.flatMap(messageToOpenAI);
}

/**
 * Chat completions want every assistant message with `tool_calls` followed at once by a `tool`
 * message for each of its ids, and no `tool` message without its call: each assistant message is a
 * turn of its own. A missing result is a tool message "No result provided" (pi-ai's, pairing.ts;
 * chat has no error flag for it), an orphan result is dropped.
 */
const OPENAI_PAIRING: PairingRule = { mergeAssistants: false };

/**
 * Consecutive tool messages as one when the later one holds results, so that the user message of
 * the earlier one's images and text goes after all the tool messages, not between them (as pi-ai's
 * openai-completions sends the images of consecutive tool results).
 */
function joinToolMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    if (prev?.role === 'tool' && m.role === 'tool' && m.parts.some((p) => p.type === 'tool_result'))
      out[out.length - 1] = { ...prev, parts: [...prev.parts, ...m.parts] };
    else out.push(m);
  }
  return out;
}

/**
 * A context as OpenAI chat messages, the system prompt first (the `openai` context format), tool
 * calls and results paired as the API requires (pairing.ts).
 */
export function contextToOpenAI(ctx: Context): { messages: OpenAIMessage[] } {
  const head: OpenAIMessage[] = ctx.system ? [{ role: 'system', content: ctx.system }] : [];
  const body = messagesToOpenAI(joinToolMessages(pairToolResults(ctx.messages.map(providerCallsAsNotes), OPENAI_PAIRING)));
  return { messages: [...head, ...body.filter((m) => !isEmptyAssistant(m))] };
}

/**
 * An assistant message with nothing in it (a turn that failed before any output): providers refuse
 * "neither content nor tool_calls", so a request leaves it out, as pi-ai's openai-completions does.
 */
function isEmptyAssistant(m: OpenAIMessage): boolean {
  return m.role === 'assistant' && !m.content?.length && !m.tool_calls?.length && !m.reasoning_content;
}

// ---------------------------------------------------------------------------------------------
// OpenAI → model

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]*)(?:;[^,]*)?;base64,/.exec(url);
  return m ? { mediaType: m[1] || 'application/octet-stream', data: url.slice(m[0].length) } : undefined;
}

function partFromOpenAI(p: string | Record<string, unknown>): Part {
  if (typeof p === 'string') return { type: 'text', text: p };
  if (p.type === 'text' || p.type === 'input_text' || p.type === 'output_text') return { type: 'text', text: str(p.text) ?? '' };
  if (p.type === 'refusal') return { type: 'text', text: str(p.refusal) ?? '', meta: { refusal: true } };
  if (p.type === 'image_url') {
    const iu = p.image_url;
    const url = typeof iu === 'string' ? iu : isRecord(iu) ? (str(iu.url) ?? '') : '';
    const parsed = parseDataUrl(url);
    return parsed ? { type: 'image', mediaType: parsed.mediaType, data: parsed.data } : { type: 'image', mediaType: '', url };
  }
  if (p.type === 'file' && isRecord(p.file)) {
    const f = p.file;
    const parsed = parseDataUrl(str(f.file_data) ?? '');
    const part: FilePart = parsed
      ? { type: 'file', mediaType: parsed.mediaType, data: parsed.data }
      : { type: 'file', mediaType: 'application/octet-stream', data: str(f.file_data) ?? '' };
    const name = str(f.filename);
    if (name !== undefined) part.name = name;
    if (str(f.file_id)) part.meta = { openaiFileId: f.file_id };
    return part;
  }
  return { type: 'text', text: '', meta: { openaiPart: p } };
}

/** A message's content as parts; a content item neither an object nor a string is skipped and reported at `at`. */
function contentParts(content: unknown, report: ReportIssue, at: string): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const [i, p] of content.entries()) {
    if (typeof p === 'string' || isRecord(p)) parts.push(partFromOpenAI(p));
    else report(at, i, `a content part is ${kindOf(p)}, not an object`);
  }
  return parts;
}

/**
 * OpenAI chat messages as model messages. Leading system/developer messages stay 'system'
 * messages here; contextFromOpenAI lifts them into `system`. A message, content part or tool call
 * that is not an object, and a message of an unknown role, is skipped and reported (`opts.onIssue`).
 */
export function messagesFromOpenAI(messages: readonly unknown[], opts?: WireReadOptions): Message[] {
  const report = issueReporter(opts);
  const out: Message[] = [];
  const callNames = new Map<string, string>();
  for (const [index, raw] of messages.entries()) {
    if (!isRecord(raw)) {
      report('messages', index, `a message is ${kindOf(raw)}, not an object`);
      continue;
    }
    const at = `messages[${index}]`;
    const role = raw.role;
    if (role === 'system' || role === 'developer') {
      out.push({ role: 'system', parts: contentParts(raw.content, report, `${at}.content`) });
    } else if (role === 'user') {
      out.push({ role: 'user', parts: contentParts(raw.content, report, `${at}.content`) });
    } else if (role === 'assistant') {
      const parts: Part[] = [];
      const reasoning = str(raw.reasoning_content) ?? str(raw.reasoning);
      if (reasoning) parts.push({ type: 'thinking', thinking: reasoning });
      parts.push(...contentParts(raw.content, report, `${at}.content`));
      const refusal = str(raw.refusal);
      if (refusal) parts.push({ type: 'text', text: refusal, meta: { refusal: true } });
      if (Array.isArray(raw.tool_calls)) {
        for (const [i, tc] of raw.tool_calls.entries()) {
          if (!isRecord(tc)) {
            report(`${at}.tool_calls`, i, `a tool call is ${kindOf(tc)}, not an object`);
            continue;
          }
          const fn = isRecord(tc.function) ? tc.function : {};
          const id = str(tc.id) ?? '';
          const name = str(fn.name) ?? '';
          callNames.set(id, name);
          parts.push({ type: 'tool_call', id, name, input: toolInputObject(fn.arguments) });
        }
      }
      out.push({ role: 'assistant', parts });
    } else if (role === 'tool') {
      const callId = str(raw.tool_call_id) ?? '';
      const content: string | ToolResultContent[] =
        typeof raw.content === 'string'
          ? raw.content
          : contentParts(raw.content, report, `${at}.content`).filter(
              (p): p is TextPart | ImagePart | FilePart => p.type === 'text' || p.type === 'image' || p.type === 'file',
            );
      const result: ToolResultPart = { type: 'tool_result', callId, content };
      const name = callNames.get(callId);
      if (name) result.name = name;
      const prev = out[out.length - 1];
      if (prev?.role === 'tool') prev.parts.push(result);
      else out.push({ role: 'tool', parts: [result] });
    } else
      report(
        'messages',
        index,
        `role ${JSON.stringify(role) ?? 'undefined'} is none of system, developer, user, assistant, tool`,
      );
  }
  return out;
}

/** OpenAI chat messages as a context: leading system/developer messages become `system`. */
export function contextFromOpenAI(messages: readonly unknown[], opts?: WireReadOptions): Context {
  return contextFromLeadingSystem(messagesFromOpenAI(messages, opts));
}
