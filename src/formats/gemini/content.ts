/**
 * Gemini API content (`@google/genai` Part / Content, as Gemini CLI stores it in chat records and
 * checkpoints) to model parts: text, thought parts (with thoughtSignature), inlineData, fileData,
 * functionCall and functionResponse.
 */
import { resultText } from '../../model/tree.js';
import type { Message, Part, ToolResultContent, ToolResultPart, Usage } from '../../model/types.js';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Gemini's token counts, as Gemini CLI's `tokens` and the API's usageMetadata (Qwen Code's) each name
 * them: the prompt includes the cached tokens, the output (candidates) leaves out the thoughts.
 */
export interface GeminiCounts<T = number> {
  prompt: T;
  output: T;
  cached: T;
  thoughts: T;
}

/**
 * Gemini's counts in the model's terms: input without the cached tokens, output with the thoughts,
 * which are billed as output (the model's output includes reasoning). A count that is no number is 0.
 */
export function usageOfGeminiCounts(c: GeminiCounts<unknown>): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const cached = n(c.cached);
  return {
    input: Math.max(0, n(c.prompt) - cached),
    output: n(c.output) + n(c.thoughts),
    cacheRead: cached,
    cacheWrite: 0,
    reasoning: n(c.thoughts),
  };
}

/** The model's usage as Gemini counts it (usageOfGeminiCounts read back). */
export function geminiCountsOf(u: Usage): GeminiCounts {
  return {
    prompt: u.input + u.cacheRead,
    output: Math.max(0, u.output - u.reasoning),
    cached: u.cacheRead,
    thoughts: u.reasoning,
  };
}

/**
 * Fields of a message that Gemini CLI's records and Qwen Code's have no place for, kept in a record's
 * `threadbase` field by the writers (each with its provider and meta) and read back from it.
 */
export const KEPT_MESSAGE_FIELDS = ['api', 'cost', 'stopReason', 'error', 'responseId'] as const;

/** `m` with what a record's `threadbase` field kept of it: a provider named, KEPT_MESSAGE_FIELDS, meta merged. */
export function withKeptMessageFields(m: Message, kept: JsonObject): Message {
  const out: Message = { ...m };
  if (typeof kept.provider === 'string') out.provider = kept.provider;
  if (typeof kept.api === 'string') out.api = kept.api;
  if (typeof kept.cost === 'number') out.cost = kept.cost;
  if (typeof kept.stopReason === 'string') out.stopReason = kept.stopReason;
  if (typeof kept.error === 'string') out.error = kept.error;
  if (typeof kept.responseId === 'string') out.responseId = kept.responseId;
  if (isObject(kept.meta)) out.meta = { ...out.meta, ...kept.meta };
  return out;
}

/** PartListUnion: a string, one Part, or a list of strings and Parts. */
export function partList(content: unknown): unknown[] {
  if (content === undefined || content === null) return [];
  if (Array.isArray(content)) return content;
  return [content];
}

function binaryPart(mimeType: string, data: string | undefined, url: string | undefined, name?: string): Part {
  if (mimeType.startsWith('image/'))
    return { type: 'image', mediaType: mimeType, ...(data !== undefined ? { data } : {}), ...(url ? { url } : {}) };
  return {
    type: 'file',
    mediaType: mimeType,
    ...(data !== undefined ? { data } : {}),
    ...(url ? { url } : {}),
    ...(name ? { name } : {}),
  };
}

/** The text a functionResponse carries: `response.output` / `response.error` as Gemini CLI writes it, else the JSON. */
export function functionResponseResult(fr: JsonObject, fallbackId: string): ToolResultPart {
  const response = isObject(fr.response) ? fr.response : {};
  const callId = str(fr.id) ?? fallbackId;
  const name = str(fr.name);
  let content: string;
  let isError = false;
  if (typeof response.output === 'string') content = response.output;
  else if (typeof response.error === 'string') {
    content = response.error;
    isError = true;
  } else content = JSON.stringify(response);
  const part: ToolResultPart = { type: 'tool_result', callId, content, ...(name ? { name } : {}) };
  if (isError) part.isError = true;
  const extra = Object.keys(response).filter((k) => k !== 'output' && k !== 'error');
  if (extra.length && (typeof response.output === 'string' || typeof response.error === 'string')) part.meta = { response };
  return part;
}

/**
 * Gemini parts to model parts. `callIds` pairs functionCall/functionResponse parts that carry no id
 * (older Gemini content) by name, in order.
 */
export function geminiParts(content: unknown, callIds: CallIdPairer): Part[] {
  const out: Part[] = [];
  for (const p of partList(content)) {
    if (typeof p === 'string') {
      out.push({ type: 'text', text: p });
      continue;
    }
    if (!isObject(p)) continue;
    if (typeof p.text === 'string') {
      if (p.thought === true) {
        // A Gemini thought signature replays only to Gemini: kept in meta, never as another provider's `signature`.
        out.push({
          type: 'thinking',
          thinking: p.text,
          ...(typeof p.thoughtSignature === 'string' ? { meta: { thoughtSignature: p.thoughtSignature } } : {}),
        });
      } else {
        out.push({
          type: 'text',
          text: p.text,
          ...(typeof p.thoughtSignature === 'string' ? { meta: { thoughtSignature: p.thoughtSignature } } : {}),
        });
      }
    } else if (isObject(p.inlineData)) {
      out.push(
        binaryPart(
          str(p.inlineData.mimeType) ?? 'application/octet-stream',
          str(p.inlineData.data),
          undefined,
          str(p.inlineData.displayName),
        ),
      );
    } else if (isObject(p.fileData)) {
      out.push(
        binaryPart(
          str(p.fileData.mimeType) ?? 'application/octet-stream',
          undefined,
          str(p.fileData.fileUri),
          str(p.fileData.displayName),
        ),
      );
    } else if (isObject(p.functionCall)) {
      const name = str(p.functionCall.name) ?? '';
      const id = str(p.functionCall.id) ?? callIds.call(name);
      out.push({
        type: 'tool_call',
        id,
        name,
        input: isObject(p.functionCall.args) ? p.functionCall.args : {},
        ...(typeof p.thoughtSignature === 'string' ? { meta: { thoughtSignature: p.thoughtSignature } } : {}),
      });
    } else if (isObject(p.functionResponse)) {
      const name = str(p.functionResponse.name) ?? '';
      out.push(functionResponseResult(p.functionResponse, callIds.response(name)));
    } else {
      // executableCode, codeExecutionResult, videoMetadata, ...: kept whole.
      out.push({ type: 'text', text: '', meta: { geminiPart: p } });
    }
  }
  return out;
}

/** Ids for calls and responses that have none: the n-th response to a name answers the n-th call to it. */
export class CallIdPairer {
  private calls = new Map<string, number>();
  private responses = new Map<string, number>();
  constructor(private readonly prefix: string) {}
  call(name: string): string {
    const n = (this.calls.get(name) ?? 0) + 1;
    this.calls.set(name, n);
    return `${this.prefix}${name}-${n}`;
  }
  response(name: string): string {
    const n = (this.responses.get(name) ?? 0) + 1;
    this.responses.set(name, n);
    return `${this.prefix}${name}-${n}`;
  }
}

/** A tool call's recorded result (PartListUnion with functionResponse parts, or text) as result content. */
export function toolCallResult(callId: string, name: string, result: unknown, status: string | undefined): ToolResultPart {
  const parts = partList(result);
  const fr = parts.find((p): p is JsonObject => isObject(p) && isObject(p.functionResponse));
  const extra: ToolResultContent[] = [];
  for (const p of parts) {
    if (p === fr) continue;
    if (typeof p === 'string') extra.push({ type: 'text', text: p });
    else if (isObject(p) && typeof p.text === 'string') extra.push({ type: 'text', text: p.text });
    else if (isObject(p) && isObject(p.inlineData)) {
      const b = binaryPart(str(p.inlineData.mimeType) ?? 'application/octet-stream', str(p.inlineData.data), undefined);
      if (b.type === 'image' || b.type === 'file') extra.push(b);
    }
  }
  let part: ToolResultPart;
  if (fr && isObject(fr.functionResponse)) {
    part = functionResponseResult(fr.functionResponse, callId);
    part.callId = callId;
    // an empty output (an image-only result threadbase wrote) is no text: the Messages API refuses an empty text block
    const text = typeof part.content === 'string' ? part.content : '';
    if (extra.length) part.content = [...(text ? [{ type: 'text' as const, text }] : []), ...extra];
  } else
    part = {
      type: 'tool_result',
      callId,
      name,
      content: extra.length === 1 && extra[0]?.type === 'text' ? extra[0].text : extra,
    };
  part.name = name;
  if (status === 'error' || status === 'cancelled') part.isError = true;
  if (status === 'cancelled') part.meta = { ...part.meta, ...cancelledMark(part.content) };
  return part;
}

/**
 * The error Gemini CLI 0.61 records for a call the user declined (Scheduler: the confirmation's
 * outcome `cancel` → status `cancelled`, "User denied execution.", ToolStateManager.toCancelled).
 */
export const DECLINED_RESULT = '[Operation Cancelled] Reason: User denied execution.';

/**
 * How a result of a call Gemini CLI recorded as `cancelled` is marked: `refused` when the user declined
 * it (its error says so), else `cancelled` (interrupted, or queued behind a declined one: "User
 * cancelled operation"). Neither ran.
 */
export function cancelledMark(content: ToolResultPart['content']): { refused: true } | { cancelled: true } {
  return resultText(content).trim() === DECLINED_RESULT ? { refused: true } : { cancelled: true };
}
