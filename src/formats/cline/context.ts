/**
 * What Cline CLI 3.0.65 sends of a session, in the model's terms: the chain's messages as read, with
 * the cuts its message builder makes in every request (@cline/core 0.0.86 MessageBuilder.buildForApi):
 * - a tool result's text (a string, each text block, each file block's text; in the JSON array its own
 *   tools answer with, a text item's text, a file item's content and each string nested in any other
 *   object item, not a string item) longer than 8,000 characters keeps its head and tail around
 *   `\n\n...[truncated N chars]...\n\n` (the marker counted in the 8,000);
 * - a file block in a user message, the same past 50,000 characters;
 * - an assistant text past 200,000 characters, with `...[assistant text truncated: omitted N chars]...`;
 *   past 12,000 where it holds tool-call markup 8 times or more (a model writing calls as text),
 *   with `... omitted N chars due to repeated tool-call markup]...`.
 * - a file read again later replaced by `[outdated - see the latest file content]` in the earlier
 *   read's result, once all such rewrites save 64 KiB (outdated.ts);
 * - an error result's blocks sent as their JSON text (Cline's provider layer, @cline/llms);
 * - the image budget (media.ts) and the 6 MB budget of all text (budget.ts).
 * Not modelled: the limits' overrides (CLINE_MESSAGE_BUILDER_* in Cline's environment). A call no message answers gets Cline's
 * error result, marked cancelled. A reply left with nothing to send (only redacted or unsigned thinking) is still
 * sent, with no content (merged into a reply next to it first); thinking threadbase wrote as text (encode.ts) is
 * sent as that text.
 * Registered as Cline's ResumeContext, so `threadbase context` of a Cline session is what Cline sends.
 */
import type { AnthropicLaidOutContext, AnthropicLayout } from '../../convert/anthropic.js';
import { buildContext, type ContextOptions } from '../../model/tree.js';
import type { Message, Part, Session, ToolResultContent, ToolResultPart } from '../../model/types.js';
import { applyClineTextBudget } from './budget.js';
import { clineInterruptedResult } from './interrupted.js';
import { applyClineMediaBudget } from './media.js';
import { clineContentOf, rewriteOutdatedReads } from './outdated.js';

/** Cline's limits (xb, yb, hb in @cline/core's message builder). */
export const CLINE_MAX_TOOL_RESULT_CHARS = 8000;
const MAX_FILE_CONTENT_CHARS = 50_000;
const MAX_ASSISTANT_TEXT_CHARS = 200_000;
const MAX_ASSISTANT_TOOL_MARKUP_CHARS = 12_000;
const TOOL_MARKUP_REPEATS = 8;
const BAR = String.raw`[\|\uFF5C]`;
/** Tool-call markup in an assistant's text (pb in @cline/core's message builder). */
const TOOL_MARKUP = new RegExp(
  String.raw`<\s*(?:${BAR}\s*)?DSML\s*(?:${BAR}\s*)?(?:tool_calls|invoke)\b[^>]*>|<\s*/?\s*(?:tool_calls?|tool_call|function_calls?|function_call|invoke)\b[^>]*>`,
  'gi',
);

type Marker = (omitted: number) => string;
const truncatedMarker: Marker = (n) => `\n\n...[truncated ${n} chars]...\n\n`;
const assistantMarker: Marker = (n) => `\n\n...[assistant text truncated: omitted ${n} chars]...\n\n`;
const markupMarker: Marker = (n) =>
  `\n\n...[assistant text truncated: omitted ${n} chars due to repeated tool-call markup]...\n\n`;

function cutAssistantText(text: string): string {
  if (text.length > MAX_ASSISTANT_TOOL_MARKUP_CHARS) {
    let repeats = 0;
    for (const _ of text.matchAll(TOOL_MARKUP)) if (++repeats >= TOOL_MARKUP_REPEATS) break;
    if (repeats >= TOOL_MARKUP_REPEATS) return clineTruncateMiddle(text, MAX_ASSISTANT_TOOL_MARKUP_CHARS, markupMarker);
  }
  return clineTruncateMiddle(text, MAX_ASSISTANT_TEXT_CHARS, assistantMarker);
}

/** Cline's middle cut (H8): head and tail around the marker, the whole no longer than `max` (in UTF-16 units, as JS counts). */
export function clineTruncateMiddle(text: string, max: number, marker: Marker = truncatedMarker): string {
  if (text.length <= max) return text;
  const first = marker(text.length - max);
  const firstKeep = Math.max(0, Math.floor((max - first.length) / 2));
  const omitted = Math.max(0, text.length - firstKeep * 2);
  const m = marker(omitted);
  const keep = Math.max(0, Math.floor((max - m.length) / 2));
  return `${text.slice(0, keep)}${m}${keep > 0 ? text.slice(-keep) : ''}`;
}

const cutResultText = (s: string): string => clineTruncateMiddle(s, CLINE_MAX_TOOL_RESULT_CHARS);

/** Every string in a JSON value cut as a tool result's text; a Cline image (`{type: image, data, mediaType}`) left whole. */
function cutNested(v: unknown): unknown {
  if (typeof v === 'string') return cutResultText(v);
  if (Array.isArray(v)) return v.map(cutNested);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (o.type === 'image' && typeof o.data === 'string' && typeof o.mediaType === 'string') return o;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, cutNested(x)]));
  }
  return v;
}

/**
 * An item of Cline's own tools' JSON array, cut as @cline/core's truncateToolResultContent cuts it: a text
 * item's `text`, a file item's `content` (not its `path`), every string of an entry (X2: an object or array
 * that is no text, image or file item); a string, number or image item at the top left whole.
 */
function cutJsonItem(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  if (o.type === 'text') return typeof o.text === 'string' ? { ...o, text: cutResultText(o.text) } : o;
  if (o.type === 'file') return typeof o.content === 'string' ? { ...o, content: cutResultText(o.content) } : o;
  if (o.type === 'image') return o;
  return cutNested(v);
}

/** Cline's own JSON cut: a string whole, an array item by item; other JSON (Cline's tools answer with none) string by string. */
function cutClineJson(json: unknown): unknown {
  if (typeof json === 'string') return cutResultText(json);
  return Array.isArray(json) ? json.map(cutJsonItem) : cutNested(json);
}

function cutResultItem(c: ToolResultContent): ToolResultContent {
  if (c.type === 'text') return { ...c, text: cutResultText(c.text) };
  if (c.type === 'file' && c.text !== undefined) return { ...c, text: cutResultText(c.text) };
  return c;
}

/** Cline's provider layer's words for an image in an error result (@cline/llms). */
const MEDIA_OMITTED = '[media omitted: invalid or exceeds size limit]';

/**
 * An error result's blocks as Cline's provider layer sends them (@cline/llms, "error-json"): their JSON
 * text, each block as Cline keeps it; with an image among them, each text block as its bare text and
 * each image as Cline's placeholder.
 */
function errorJsonText(p: ToolResultPart, content: ToolResultContent[]): string {
  const blocks = clineContentOf({ ...p, content }) as unknown[];
  if (!content.some((c) => c.type === 'image')) return JSON.stringify(blocks);
  return JSON.stringify(content.map((c, i) => (c.type === 'text' ? c.text : c.type === 'image' ? MEDIA_OMITTED : blocks[i])));
}

/**
 * A successful result's blocks as Cline's provider layer sends them (@cline/llms): only texts and images
 * go as blocks; with a file block among them, their JSON text (each block as Cline keeps it), or, with
 * an image, the JSON of the others (each text as its bare text) and then the images as blocks.
 */
function successContent(p: ToolResultPart, content: ToolResultContent[]): ToolResultPart['content'] {
  if (content.every((c) => c.type === 'text' || c.type === 'image')) return content;
  const blocks = clineContentOf({ ...p, content }) as unknown[];
  const images = content.filter((c) => c.type === 'image');
  if (!images.length) return JSON.stringify(blocks);
  const rest = content.flatMap((c, i) => (c.type === 'image' ? [] : [c.type === 'text' ? c.text : blocks[i]]));
  return [{ type: 'text', text: JSON.stringify(rest) }, ...images];
}

/**
 * A part as Cline's provider layer sends it: a result's blocks as above (an error's as their JSON text),
 * a file block as its text in Cline's `<file_content>` tag; redacted thinking and thinking without a
 * signature left out (@cline/llms sends only signed reasoning), a reply of only them sent with no content.
 */
function sentPart(p: Part): Part[] {
  if (p.type === 'tool_result' && Array.isArray(p.content))
    return [{ ...p, content: p.isError ? errorJsonText(p, p.content) : successContent(p, p.content) }];
  if (p.type === 'file' && p.text !== undefined)
    return [{ type: 'text', text: `<file_content path="${p.name ?? 'file'}">\n${p.text}\n</file_content>` }];
  if (p.type === 'redacted_thinking' || (p.type === 'thinking' && !p.signature)) return [];
  return [p];
}

/** Thinking threadbase wrote as a text block (encode.ts, meta.sentAsText: sessions.ts) as the text Cline stores and sends. */
function asStored(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'thinking' && p.meta?.sentAsText === true)) return m;
  return {
    ...m,
    parts: m.parts.map((p) => (p.type === 'thinking' && p.meta?.sentAsText === true ? { type: 'text', text: p.thinking } : p)),
  };
}

function cutResult(p: ToolResultPart): ToolResultPart {
  const json = p.meta?.clineContent;
  if (json !== undefined) {
    // Cline's own tools answer with JSON: cut as Cline cuts a result's items, then sent as its JSON text
    const cut = cutClineJson(json);
    return { ...p, content: JSON.stringify(cut), meta: { ...p.meta, clineContent: cut } };
  }
  if (typeof p.content === 'string') return { ...p, content: cutResultText(p.content) };
  return { ...p, content: p.content.map(cutResultItem) };
}

function cutPart(p: Part, role: Message['role']): Part {
  if (p.type === 'tool_result') return cutResult(p);
  if (p.type === 'file' && p.text !== undefined && role === 'user')
    return { ...p, text: clineTruncateMiddle(p.text, MAX_FILE_CONTENT_CHARS) };
  if (p.type === 'text' && role === 'assistant') return { ...p, text: cutAssistantText(p.text) };
  return p;
}

/**
 * A call no message answers gets an error result from Cline (addMissingToolResults): after the
 * results that follow its turn, or in a message of their own before the next turn. Marked cancelled
 * (Cline's words: interrupted before a result). Read, a run that ended so has them already
 * (interrupted.ts); here for a live run's open call and a copy of a source that left one open.
 */
function withMissingResults(messages: Message[]): Message[] {
  const answered = new Set(messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : []))));
  const out: Message[] = [];
  let open: ToolResultPart[] = [];
  for (const m of messages) {
    if (m.parts.some((p) => p.type === 'tool_result')) {
      // the results first, then what else the message holds, as Cline splits it
      const results = m.parts.filter((p) => p.type === 'tool_result');
      const rest = m.parts.filter((p) => p.type !== 'tool_result');
      out.push({ ...m, parts: [...results, ...open] });
      if (rest.length) out.push({ ...m, role: 'user', parts: rest });
      open = [];
    } else {
      if (open.length) out.push({ role: 'tool', parts: open, meta: { clineRepaired: true } });
      open = [];
      out.push(m);
    }
    if (m.role !== 'assistant') continue;
    for (const p of m.parts) if (p.type === 'tool_call' && !answered.has(p.id)) open.push(clineInterruptedResult(p));
  }
  if (open.length) out.push({ role: 'tool', parts: open, meta: { clineRepaired: true } });
  return out;
}

export function clineContext(session: Session, opts: ContextOptions = {}): AnthropicLaidOutContext {
  const ctx = buildContext(session, opts);
  const messages = withMissingResults(rewriteOutdatedReads(ctx.messages.map(asStored), cutResultText));
  const cut = messages.map((m) => ({ ...m, parts: m.parts.map((p) => cutPart(p, m.role)) }));
  const sent = applyClineTextBudget(applyClineMediaBudget(cut));
  // a reply whose parts are all left out is sent with no content (the real cline; test/agents/cline-rewrites.test.ts)
  const anthropicLayout: AnthropicLayout = { emptyAssistantSent: true };
  return { ...ctx, anthropicLayout, messages: sent.map((m) => ({ ...m, parts: m.parts.flatMap(sentPart) })) };
}
