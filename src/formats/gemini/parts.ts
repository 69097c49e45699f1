/**
 * Gemini parts from the model's: what a user turn and a tool result send, for the writer (encode.ts) and for
 * the context Gemini CLI sends (context.ts), which reading registers without the writer.
 */
import type { Part, ToolResultContent, ToolResultPart } from '../../model/types.js';
import type { JsonObject } from './content.js';

/** The signature Gemini CLI gives the first call of a model turn whose thoughts it stripped (stripThoughts). */
export const SYNTHETIC_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

function binary(p: { mediaType: string; data?: string; url?: string; name?: string }): JsonObject {
  const name = p.name ? { displayName: p.name } : {};
  if (p.data !== undefined) return { inlineData: { mimeType: p.mediaType, data: p.data, ...name } };
  return { fileData: { mimeType: p.mediaType, fileUri: p.url ?? '', ...name } };
}

/** A user-side part as a Gemini Part (tool results apart: see functionResponse). */
export function geminiPart(p: Part): JsonObject | undefined {
  if (p.type === 'text') {
    if (p.meta?.geminiPart !== undefined) return p.meta.geminiPart as JsonObject;
    return {
      text: p.text,
      ...(typeof p.meta?.thoughtSignature === 'string' ? { thoughtSignature: p.meta.thoughtSignature } : {}),
    };
  }
  if (p.type === 'image') return binary(p);
  if (p.type === 'file') return p.text !== undefined ? { text: p.text } : binary(p);
  return undefined;
}

/** A plain-text document: sent as its text, as a text part is. */
export const isTextFile = (c: ToolResultContent): boolean => c.type === 'file' && c.text !== undefined;

/**
 * What a result sends: `output` (or `error`), the response Gemini recorded when it had more keys. Its
 * texts and plain-text documents are joined, as Gemini CLI and Qwen Code join a tool's text parts
 * (convertToFunctionResponse).
 */
function responseOf(p: ToolResultPart): JsonObject {
  if (p.meta?.response && typeof p.meta.response === 'object') return p.meta.response as JsonObject;
  const text =
    typeof p.content === 'string'
      ? p.content
      : p.content
          .flatMap((c) => (c.type === 'text' ? [c.text] : c.type === 'file' && c.text !== undefined ? [c.text] : []))
          .join('\n');
  return p.isError ? { error: text } : { output: text };
}

/** A result as Gemini parts: the functionResponse, then the images and (binary) files it returned. */
export function functionResponseParts(p: ToolResultPart, name: string): JsonObject[] {
  const parts: JsonObject[] = [{ functionResponse: { id: p.callId, name, response: responseOf(p) } }];
  if (typeof p.content !== 'string') {
    for (const c of p.content) if (c.type !== 'text' && !isTextFile(c)) parts.push(binary(c));
  }
  return parts;
}
