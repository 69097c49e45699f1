/**
 * Codex's ResponseItem (the OpenAI Responses API item shapes it records and sends) to and from model
 * messages. Shapes from openai/codex codex-rs/protocol/src/models.rs (ResponseItem, ContentItem,
 * FunctionCallOutputPayload) and checked against rollouts the real codex-cli 0.169.0 wrote.
 */
import { markDeclined } from '../../convert/declined.js';
import type { ImagePart, Message, Part, ToolResultContent, ToolResultPart } from '../../model/types.js';
import { parseJson } from '../shared/jsonl.js';
import { codexDeclinedMark } from './denials.js';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** codex-rs/core/templates/compact/summary_prefix.md, as the 0.169.0 binary carries it. */
export const SUMMARY_PREFIX =
  'Another language model started to solve this problem and produced a summary of its thinking process. You also have access to the state of the tools that were used by that language model. Use this to build on the work that has already been done and avoid duplicating work. Here is the summary produced by the other language model, use the information in this summary to assist with your own analysis:';

/** The summary itself: newer codex records `compacted.message` with the prefix already on it. */
export function bareSummary(message: string): string {
  return message.startsWith(SUMMARY_PREFIX) ? message.slice(SUMMARY_PREFIX.length).replace(/^\n/, '') : message;
}

/** The wire API codex messages come from; renderers use it to tell whose reasoning signature a part carries. */
export const CODEX_API = 'openai-responses';

/** User messages codex injects itself (not typed by the user): environment context, AGENTS.md instructions, ... */
export function injectedKind(text: string): string | undefined {
  const t = text.trimStart();
  if (t.startsWith('<environment_context>')) return 'environment_context';
  if (t.startsWith('<user_instructions>') || t.startsWith('# AGENTS.md instructions')) return 'user_instructions';
  if (t.startsWith('<user_shell_command>')) return 'user_shell_command';
  if (t.startsWith('<turn_aborted>')) return 'turn_aborted';
  if (t.startsWith('<subagent_notification>')) return 'subagent_notification';
  return undefined;
}

function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1] as string, data: m[2] as string } : undefined;
}

function imagePart(url: string, meta?: JsonObject): ImagePart {
  const d = parseDataUrl(url);
  const part: ImagePart = d
    ? { type: 'image', mediaType: d.mediaType, data: d.data }
    : { type: 'image', mediaType: 'image/*', url };
  if (meta) part.meta = meta;
  return part;
}

/**
 * ContentItem[] (input_text, input_image, output_text, ...) to parts. Unknown items are kept as text with meta. An
 * item the encoder would not write for the message's side (input text or an image in an assistant message, output
 * text in another) keeps it in `meta.codexContent` too, so that the context sends it as codex does, as it is.
 */
export function contentToParts(content: unknown, assistant = false): Part[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const c of content) {
    if (!isObject(c)) continue;
    const type = str(c.type);
    if ((type === 'input_text' || type === 'output_text') && typeof c.text === 'string') {
      const part: Part = { type: 'text', text: c.text };
      const extra: JsonObject = {};
      if (type === 'output_text' && Array.isArray(c.annotations) && c.annotations.length > 0) extra.annotations = c.annotations;
      if ((type === 'output_text') !== assistant) extra.codexContent = c;
      if (Object.keys(extra).length) part.meta = extra;
      parts.push(part);
    } else if (type === 'input_image' && typeof c.image_url === 'string') {
      const extra: JsonObject = typeof c.detail === 'string' ? { detail: c.detail } : {};
      if (assistant) extra.codexContent = c;
      parts.push(imagePart(c.image_url, Object.keys(extra).length ? extra : undefined));
    } else if (type === 'refusal' && typeof c.refusal === 'string') {
      parts.push({ type: 'text', text: c.refusal, meta: { refusal: true } });
    } else {
      parts.push({ type: 'text', text: '', meta: { codexContent: c } });
    }
  }
  return parts;
}

/**
 * Another provider's thinking threadbase kept beside an item of a compaction's replacement history
 * (`threadbase.reasoning` before it, `threadbase.reasoningAfter` after it: the agent_reasoning events it
 * has in the rollout, driver.ts replacementItems): thinking parts codex never sends, for the way back.
 */
export function keptReasoningParts(kept: unknown): Part[] {
  const events = Array.isArray(kept) ? kept : [];
  return events.filter(isObject).map(keptReasoningPart);
}

/**
 * The thinking part of an agent_reasoning event threadbase wrote for another provider's thinking (its
 * `threadbase` says which kind), which codex never sends: redacted, or with its Anthropic signature for
 * the way back to an agent that replays it.
 */
export function keptReasoningPart(ev: JsonObject): Part {
  return ev.threadbase === 'redacted_thinking'
    ? { type: 'redacted_thinking', data: str(ev.data) ?? '', meta: { codexNotSent: true } }
    : {
        type: 'thinking',
        thinking: str(ev.text) ?? '',
        ...(str(ev.signature) ? { signature: str(ev.signature) } : {}),
        meta: { codexNotSent: true },
      };
}

/** A function_call_output's `output`: a string, or content items (text and images). */
export function outputToResult(callId: string, output: unknown): ToolResultPart {
  if (typeof output === 'string') return { type: 'tool_result', callId, content: output };
  if (Array.isArray(output)) {
    const content: ToolResultContent[] = [];
    for (const c of output) {
      if (!isObject(c)) continue;
      if ((c.type === 'input_text' || c.type === 'output_text') && typeof c.text === 'string')
        content.push({ type: 'text', text: c.text });
      else if (c.type === 'input_image' && typeof c.image_url === 'string')
        content.push(imagePart(c.image_url, typeof c.detail === 'string' ? { detail: c.detail } : undefined));
    }
    return { type: 'tool_result', callId, content };
  }
  // Older rollouts serialised the payload as { content, success }.
  if (isObject(output)) {
    const part = outputToResult(callId, output.content ?? output.body ?? '');
    if (output.success === false) part.isError = true;
    return part;
  }
  return { type: 'tool_result', callId, content: '' };
}

export function parseArguments(args: unknown): { input: Record<string, unknown>; rawArguments?: string } {
  if (isObject(args)) return { input: args };
  if (typeof args !== 'string') return { input: {} };
  try {
    const v: unknown = parseJson(args);
    if (isObject(v)) return { input: v };
  } catch {
    // not JSON: kept verbatim below
  }
  return { input: { arguments: args }, rawArguments: args };
}

/** What one response_item payload becomes: a message, or undefined for items outside the conversation. */
export function itemToMessage(item: JsonObject): Message | undefined {
  const type = str(item.type);
  const id = str(item.id);
  switch (type) {
    case 'message': {
      const role = str(item.role) ?? 'user';
      const parts = contentToParts(item.content, role === 'assistant');
      if (role === 'assistant')
        return { role: 'assistant', parts, api: CODEX_API, ...(item.phase ? { meta: { phase: item.phase } } : {}) };
      if (role === 'user') {
        const kind = injectedKind(parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
        return { role: 'user', parts, ...(kind ? { meta: { codexInjected: kind } } : {}) };
      }
      // developer and system messages: instructions the model sees inside the input list.
      return { role: 'system', parts, meta: { codexRole: role } };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary.filter(isObject).map((s) => str(s.text) ?? '') : [];
      const content = Array.isArray(item.content) ? item.content.filter(isObject).map((s) => str(s.text) ?? '') : [];
      const meta: JsonObject = {};
      if (id) meta.codexItemId = id;
      if (content.length) meta.reasoningContent = content;
      if (summary.length > 1) meta.summaryParts = summary;
      const part: Part = { type: 'thinking', thinking: (summary.length ? summary : content).join('\n\n') };
      // OpenAI's encrypted reasoning replays only to the Responses API; kept out of `signature` so a
      // writer for another provider never sends it as that provider's signature.
      if (typeof item.encrypted_content === 'string') meta.encryptedContent = item.encrypted_content;
      if (Object.keys(meta).length) part.meta = meta;
      return { role: 'assistant', parts: [part], api: CODEX_API };
    }
    case 'function_call': {
      const { input, rawArguments } = parseArguments(item.arguments);
      const meta: JsonObject = {};
      if (rawArguments !== undefined) meta.rawArguments = rawArguments;
      if (typeof item.namespace === 'string') meta.namespace = item.namespace;
      const callId = str(item.call_id) ?? id ?? '';
      // the item's own id (`fc_…`): the API pairs it with the reasoning item before it, so a writer for an
      // agent that replays reasoning to the Responses API (pi) sends it with the call
      if (id !== undefined && id !== callId) meta.codexItemId = id;
      return {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: callId, name: str(item.name) ?? '', input, ...(Object.keys(meta).length ? { meta } : {}) },
        ],
        api: CODEX_API,
      };
    }
    case 'custom_tool_call': {
      const callId = str(item.call_id) ?? id ?? '';
      return {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: callId,
            name: str(item.name) ?? '',
            input: { input: item.input ?? '' },
            meta: { codexCustomTool: true },
          },
        ],
        api: CODEX_API,
      };
    }
    case 'local_shell_call': {
      const callId = str(item.call_id) ?? id ?? '';
      const action = isObject(item.action) ? item.action : {};
      return {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: callId, name: 'local_shell', input: action, meta: { codexLocalShell: true } }],
        api: CODEX_API,
      };
    }
    case 'web_search_call': {
      const action = isObject(item.action) ? item.action : {};
      return {
        role: 'assistant',
        parts: [
          {
            type: 'tool_call',
            id: id ?? '',
            name: 'web_search',
            input: action,
            // run by the API, its results kept there: no output item follows (providerExecuted: convert/provider-tools.ts)
            meta: { codexServerTool: true, status: item.status, providerExecuted: true },
          },
        ],
        api: CODEX_API,
      };
    }
    case 'tool_search_call': {
      // A search for tools to load: a call like any other, run by codex (`client`) or by the API (`server`,
      // no call_id: its output follows it in the same response, paired by the reader).
      const callId = str(item.call_id) ?? id ?? '';
      const input = isObject(item.arguments) ? item.arguments : { arguments: item.arguments ?? null };
      return {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: callId, name: 'tool_search', input, meta: toolSearchMeta(item) }],
        api: CODEX_API,
      };
    }
    case 'tool_search_output': {
      const meta = toolSearchMeta(item);
      if (typeof item.omitted_result_count === 'number') meta.omittedResultCount = item.omitted_result_count;
      const tools = Array.isArray(item.tools) ? item.tools : [];
      return {
        role: 'tool',
        parts: [{ type: 'tool_result', callId: str(item.call_id) ?? '', content: JSON.stringify(tools), meta }],
      };
    }
    case 'image_generation_call': {
      const result = str(item.result) ?? '';
      const meta: JsonObject = { codexImageGeneration: true };
      if (id) meta.codexItemId = id;
      if (item.status !== undefined) meta.status = item.status;
      if (typeof item.revised_prompt === 'string') meta.revisedPrompt = item.revised_prompt;
      return {
        role: 'assistant',
        parts: [{ type: 'image', mediaType: generatedImageType(result), data: result, meta }],
        api: CODEX_API,
      };
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      let part = outputToResult(str(item.call_id) ?? '', item.output);
      if (type === 'custom_tool_call_output') part.meta = { codexCustomTool: true };
      // another agent's failed call threadbase wrote: its error flag in the field codex ignores (driver.ts withFailedFlag)
      if (isObject(item.threadbase) && item.threadbase.isError === true) part.isError = true;
      // a call the user refused or that was cancelled, by codex's words for it (denials.ts)
      const mark = codexDeclinedMark(part.content);
      if (mark) part = markDeclined(part, mark);
      return { role: 'tool', parts: [part] };
    }
    default:
      return undefined;
  }
}

/** A tool_search item's call_id: a `server` search has none (null, kept as meta.codexCallId). */
export function searchCallId(id: string, meta: Record<string, unknown> | undefined): string | null {
  return meta?.codexCallId === null ? null : id;
}

/** What a tool_search item needs to be written again as it was: its id, call_id (null for `server`), status, execution. */
function toolSearchMeta(item: JsonObject): JsonObject {
  const meta: JsonObject = { codexToolSearch: true, codexCallId: item.call_id ?? null };
  if (typeof item.id === 'string') meta.codexItemId = item.id;
  if (item.status !== undefined) meta.status = item.status;
  if (typeof item.execution === 'string') meta.execution = item.execution;
  return meta;
}

/** image_generation_call.result is base64 (png unless the tool asked for another output_format). */
function generatedImageType(base64: string): string {
  if (base64.startsWith('/9j/')) return 'image/jpeg';
  if (base64.startsWith('UklGR')) return 'image/webp';
  return 'image/png';
}

/** The sub-agent a multi-agent `spawn_agent` call started, from its output `{"agent_id": …}`. */
export function spawnedAgentId(output: unknown): string | undefined {
  if (typeof output !== 'string' || !output.includes('agent_id')) return undefined;
  try {
    const v: unknown = JSON.parse(output);
    return isObject(v) && typeof v.agent_id === 'string' ? v.agent_id : undefined;
  } catch {
    return undefined;
  }
}

/** Which side of the exchange an item belongs to: model output items form one response together. */
export function isModelOutput(item: JsonObject): boolean {
  const t = str(item.type);
  if (t === 'message') return item.role === 'assistant';
  return (
    t === 'reasoning' ||
    t === 'function_call' ||
    t === 'custom_tool_call' ||
    t === 'local_shell_call' ||
    t === 'web_search_call' ||
    t === 'tool_search_call' ||
    t === 'image_generation_call'
  );
}
