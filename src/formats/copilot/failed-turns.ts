/**
 * A failed model call as Copilot CLI 1.0.102 records one (seen with the real binary, the stand-in answering
 * 400): no usage record, no assistant.message, but a `session.error {errorType: "query", message: "400 …",
 * statusCode, providerCallId, originatingMessageId}` after the turn's end; resumed, it sends nothing for it
 * (the user's messages around it go as one). A session-wide error has no `originatingMessageId` (its schema).
 * Tokens spent on a failed turn it records as usage records before the session.error with no assistant.message
 * (a response cut short whose "Please continue" failed): read as the failed call's usage (events.ts
 * failedCallUsage), and written so for another agent's failed turn (encode.ts).
 */
import type { Message, Meta, Part } from '../../model/types.js';
import type { JsonObject } from './events.js';

/** Where a failed call read from a session.error keeps its other fields (errorType, statusCode, …). */
export const COPILOT_ERROR = 'copilotError';

/** The ErrorData fields besides `message` written back as they were (the schema allows no others). */
const KEPT_FIELDS = [
  'errorType',
  'errorCode',
  'providerErrorType',
  'providerErrorParam',
  'statusCode',
  'providerCallId',
  'serviceRequestId',
] as const;

/**
 * A session.error's failed call as the model's error entry: an assistant message whose text is the error
 * (as Claude Code's API-error record reads), stop reason `error`; undefined for a session-wide error.
 */
export function failedCallMessage(d: JsonObject): Message | undefined {
  if (!isFailedCallData(d) || typeof d.message !== 'string') return undefined;
  const kept: Meta = {};
  for (const k of KEPT_FIELDS) if (d[k] !== undefined) kept[k] = d[k];
  return {
    role: 'assistant',
    parts: d.message ? [{ type: 'text', text: d.message }] : [],
    stopReason: 'error',
    error: d.message,
    meta: { [COPILOT_ERROR]: kept },
  };
}

/** A session.error's data is a failed model call's (it names the user's message, or an HTTP status), not a session-wide error. */
export const isFailedCallData = (d: JsonObject): boolean =>
  typeof d.message === 'string' && (typeof d.originatingMessageId === 'string' || typeof d.statusCode === 'number');

/** A message read from a session.error (Copilot CLI sends nothing for it). */
export const isFailedCall = (m: Message): boolean => m.role === 'assistant' && isObject(m.meta?.[COPILOT_ERROR]);

/**
 * The data of the session.error a failed turn is written as, when Copilot CLI would have recorded it so: a
 * turn that failed (an error, or stop reason `error`) with nothing a reply holds but its error's words (Claude
 * Code's API-error record: its text is the error); undefined for one with a reply so far (calls, thinking,
 * other text), which stays an assistant.message.
 */
export function failedCallData(m: Message, originatingMessageId: string | undefined): JsonObject | undefined {
  if (m.role !== 'assistant' || (m.error === undefined && m.stopReason !== 'error')) return undefined;
  const message = m.error ?? textOf(m.parts) ?? 'error';
  if (!m.parts.every((p) => p.type === 'text' && (!p.text.trim() || p.text.trim() === message.trim()))) return undefined;
  const kept = isObject(m.meta?.[COPILOT_ERROR]) ? (m.meta[COPILOT_ERROR] as JsonObject) : {};
  const fields: JsonObject = {};
  for (const k of KEPT_FIELDS) {
    const v = kept[k];
    if (k === 'statusCode' ? Number.isInteger(v) : typeof v === 'string') fields[k] = v as string | number;
  }
  return {
    errorType: 'query',
    ...fields,
    message,
    ...(originatingMessageId ? { originatingMessageId } : {}),
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function textOf(parts: readonly Part[]): string | undefined {
  const text = parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  return text.trim() ? text : undefined;
}
