/**
 * What Gemini CLI 0.61.0 sends when it resumes a chat. Its ResumeContext (geminiContext) is the
 * path's messages as recorded; contextToGeminiContents (`threadbase context --format gemini`) is the
 * API `contents` it makes of them, from packages/core/src/utils/sessionUtils.ts
 * convertSessionToClientHistory and geminiChat.ts getHistory:
 * - user turns it wrote itself or takes for commands (`<session_context>`, `<hook_context>`, text
 *   starting with `/` or `?`, empty) are left out; info/error/warning records too;
 * - a reply's thoughts are dropped (stripThoughts), and the first call of a reply that had some
 *   gets the signature `skip_thought_signature_validator`;
 * - a reply's tool results are sent after it (from `toolCalls[].result`), and the user record of
 *   functionResponse parts it recorded too (`meta.geminiResent`, chats.ts): each result twice;
 * - consecutive turns of one role are merged into one (coalesceConsecutiveRoles), empty text parts
 *   dropped; a `name__` prefix of a call id is cut (stripToolCallIdPrefixes).
 * - a history that ends in tool results gets a closing model turn (closeUnansweredToolResponseTurn).
 * It then puts a fresh `<session_context>` before the first user turn (not part of this context).
 */
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { buildContext, type Context, type ContextOptions } from '../../model/tree.js';
import type { Message, Part, Session, ToolCallPart } from '../../model/types.js';
import { isObject, type JsonObject } from './content.js';
import { functionResponseParts, geminiPart, SYNTHETIC_THOUGHT_SIGNATURE } from './parts.js';

/** The text Gemini CLI reads a user turn as (partListUnionToString), to tell the turns it does not resend. */
function turnText(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      if (p.type === 'text') return p.text;
      if (p.type === 'tool_result') return `[Function Response: ${p.name ?? ''}]`;
      if (p.type === 'image' || p.type === 'file') return '[Media]';
      return '';
    })
    .join('');
}

function ignoredUserTurn(m: Message): boolean {
  if (m.meta?.geminiInjected) return true;
  const t = turnText(m.parts).trim();
  return (
    t.length === 0 ||
    t.startsWith('/') ||
    t.startsWith('?') ||
    t.startsWith('<session_context>') ||
    t.startsWith('<hook_context>')
  );
}

/**
 * Gemini CLI's context in the model's terms: the path's messages as recorded (its own
 * `<session_context>` turn, thinking and each result once included); what it changes on the way to
 * the API is contextToGeminiContents's. Registered as Gemini CLI's ResumeContext.
 */
export function geminiContext(session: Session, opts: ContextOptions = {}): Context {
  return buildContext(session, opts);
}

/** The model turn Gemini CLI closes a history that ends in tool results with (geminiChat.ts). */
export const INTERRUPTED_RESPONSE_PLACEHOLDER = '[The previous response was interrupted before it completed.]';

const geminiRole = (m: Message) => (m.role === 'assistant' ? 'model' : 'user');

/** A reply's parts as sent: no thoughts, the first call signed when thoughts were dropped before it. */
function sentReplyParts(m: Message, cut: (id: string, name: string) => string): JsonObject[] {
  let signed = !m.parts.some((p) => p.type === 'thinking' || p.type === 'redacted_thinking');
  const out: JsonObject[] = [];
  for (const p of m.parts) {
    if (p.type === 'thinking' || p.type === 'redacted_thinking' || p.type === 'tool_result') continue;
    if (p.type === 'tool_call') {
      const part = callPart(p, cut);
      if (!signed) {
        signed = true;
        if (part.thoughtSignature === undefined) part.thoughtSignature = SYNTHETIC_THOUGHT_SIGNATURE;
      }
      out.push(part);
    } else {
      const q = geminiPart(p);
      if (q) out.push(q);
    }
  }
  return out;
}

/**
 * A context as the Gemini API `contents` Gemini CLI sends for it on resume (less the fresh
 * `<session_context>` it puts first): the turns it leaves out left out, thoughts stripped, results
 * it sends twice twice, turns of one role merged, empty text dropped, `name__` cut from call ids.
 */
export function contextToGeminiContents(ctx: Context): JsonObject[] {
  const names = new Map<string, string>();
  for (const m of ctx.messages) for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name);
  const cut = (id: string, name: string) => (id.startsWith(`${name}__`) ? id.slice(name.length + 2) : id);
  const out: { role: string; parts: JsonObject[] }[] = [];
  for (const m of ctx.messages) {
    if (m.role === 'system' || (m.role !== 'assistant' && ignoredUserTurn(m))) continue;
    let parts: JsonObject[];
    // a call the provider ran is its note (encode.ts wrote it so)
    if (m.role === 'assistant') parts = sentReplyParts(providerCallsAsNotes(m), cut);
    else {
      parts = [];
      for (const p of m.parts) {
        if (p.type === 'tool_result') {
          const name = p.name ?? names.get(p.callId) ?? '';
          parts.push(...functionResponseParts({ ...p, callId: cut(p.callId, name) }, name));
        } else if (p.type !== 'thinking' && p.type !== 'redacted_thinking' && p.type !== 'tool_call') {
          const q = geminiPart(p);
          if (q) parts.push(q);
        }
      }
      if (Array.isArray(m.meta?.geminiResent))
        for (const q of m.meta.geminiResent) if (isObject(q)) parts.push(resentPart(q, cut));
    }
    parts = parts.filter((q) => !(q.text === '' && Object.keys(q).length === 1));
    if (parts.length === 0) continue;
    const role = geminiRole(m);
    const prev = out.at(-1);
    if (prev?.role === role) prev.parts.push(...parts);
    else out.push({ role, parts });
  }
  // closeUnansweredToolResponseTurn: a history ending in tool results gets a closing model turn
  const last = out.at(-1);
  if (last?.role === 'user' && last.parts.some((q) => q.functionResponse !== undefined))
    out.push({ role: 'model', parts: [{ text: INTERRUPTED_RESPONSE_PLACEHOLDER }] });
  return out;
}

/** The body of the generateContent request Gemini CLI makes: its `contents`, and the system prompt where there is one. */
export interface GeminiRequestBody {
  systemInstruction?: { role: 'user'; parts: { text: string }[] };
  contents: JsonObject[];
}

/**
 * A context as the body of the generateContent request a resumed Gemini CLI sends
 * (`threadbase context --format gemini`): the context's system prompt as `systemInstruction`, which
 * Gemini CLI gives @google/genai as a string and so sends as a user-role Content of one text part,
 * and the `contents` of contextToGeminiContents.
 */
export function contextToGeminiRequest(ctx: Context): GeminiRequestBody {
  const contents = contextToGeminiContents(ctx);
  if (ctx.system === undefined || ctx.system === '') return { contents };
  return { systemInstruction: { role: 'user', parts: [{ text: ctx.system }] }, contents };
}

/** A recorded functionResponse part as sent again (its id cut as the call's). */
function resentPart(q: JsonObject, cut: (id: string, name: string) => string): JsonObject {
  const fr = q.functionResponse;
  if (!isObject(fr) || typeof fr.id !== 'string') return q;
  const name = typeof fr.name === 'string' ? fr.name : '';
  return { ...q, functionResponse: { ...fr, id: cut(fr.id, name) } };
}

function callPart(p: ToolCallPart, cut: (id: string, name: string) => string): JsonObject {
  const sig = typeof p.meta?.thoughtSignature === 'string' ? { thoughtSignature: p.meta.thoughtSignature } : {};
  return { functionCall: { id: cut(p.id, p.name), name: p.name, args: p.input }, ...sig };
}
