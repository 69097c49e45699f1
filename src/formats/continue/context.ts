/**
 * What the Continue CLI sends on resume, in the model's terms (convertFromUnifiedHistory in its core,
 * 1.5.47, checked against the requests the real cn sent): every item's message (its summary item too,
 * an assistant turn, as threadbase writes one too; its CLI sends the history before a summary as
 * well, though its own compaction leaves none), a user's context items before its text, then one
 * result per state of an assistant's item's calls, in the order of the states, its outputs' texts
 * joined ("Tool cancelled" for a state without output; a call with no state gets no result, cn goes
 * by the states); a `tool` item as a result where it stands (its call's state or not, its call missing
 * or not). A `thinking` item's content goes as
 * the model's text (a redacted one has none); thinking of any other origin and system messages are
 * never sent (cn sends its own system prompt first; the Anthropic adapter takes only the first system
 * message). Registered as Continue's ResumeContext.
 */
import { declinedMarkOf } from '../../convert/declined.js';
import { providerCallsAsNotes } from '../../convert/provider-tools.js';
import { buildContext, type Context, type ContextOptions, pathToLeaf } from '../../model/tree.js';
import type { Message, Part, Session, ToolResultPart } from '../../model/types.js';
import { continueDeclinedMark, PERMISSION_DENIED, TOOL_CANCELLED } from './denials.js';
import { isObject, NO_STATE, STATE_ORDER, TOOL_ITEM } from './history.js';

export { TOOL_CANCELLED };

function resultText(r: ToolResultPart): string {
  if (typeof r.content === 'string') return r.content;
  return r.content
    .map((c) => (c.type === 'text' ? c.text : c.type === 'file' && c.text !== undefined ? c.text : `[${c.type} omitted]`))
    .join('\n');
}

/**
 * A result's text as cn sends it from its state or its `tool` item: a refused or cancelled call's in cn's
 * words (encode.ts writes them so: the refusal's output, no output for a cancelled one; a `tool` item of
 * those words), unless already.
 */
function sentText(r: ToolResultPart): string {
  const text = resultText(r);
  const mark = declinedMarkOf(r);
  if (!mark || continueDeclinedMark(text) === mark) return text;
  return mark === 'refused' ? PERMISSION_DENIED : TOOL_CANCELLED;
}

/** A user's parts as Continue sends them: its context items in one text with its own when that is one text. */
function userParts(parts: readonly Part[]): Part[] {
  const sent = parts.filter((p) => p.type === 'text' || p.type === 'image');
  const [first, second, ...rest] = sent;
  if (first?.type === 'text' && first.meta?.continueContextItems && second?.type === 'text' && rest.length === 0)
    return [{ type: 'text', text: first.text + second.text }];
  return sent.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : p));
}

export function continueContext(session: Session, opts: ContextOptions = {}): Context {
  const ctx = buildContext(session, opts);
  // Continue's own summary item is an assistant turn (its compaction)
  const path = pathToLeaf(session, opts.leafId);
  const compaction = path.findLast((e) => e.kind === 'compaction');
  const ownSummary =
    compaction?.rawSource === 'continue' &&
    isObject(compaction.raw) &&
    isObject(compaction.raw.message) &&
    compaction.raw.message.role === 'assistant';
  const results = new Map<string, ToolResultPart>();
  // a `tool` item's result is sent where it stands, not as its call's state's (cn sends both)
  for (const m of ctx.messages)
    for (const p of m.parts) if (p.type === 'tool_result' && !p.meta?.[TOOL_ITEM]) results.set(p.callId, p);
  const placed = new Set<string>();
  /** calls whose item has no state for them (history.ts) */
  const stateless = new Set<string>();
  const out: Message[] = [];
  for (const given of ctx.messages) {
    if (given.role === 'system') continue;
    if (given.meta?.compactionSummary) {
      out.push({ ...given, role: ownSummary ? 'assistant' : 'user' });
      continue;
    }
    if (given.role === 'assistant') {
      const m = providerCallsAsNotes(given);
      const parts = m.parts.flatMap((p): Part[] => {
        if (p.type === 'text' || p.type === 'tool_call') return [p];
        // a thinking item of Continue's own: its content goes as text (a redacted one has none)
        if (p.type === 'thinking' && p.meta?.continueSentAsText && p.thinking) return [{ type: 'text', text: p.thinking }];
        return [];
      });
      if (parts.length === 0) continue;
      const { usage: _u, ...rest } = m;
      out.push({ ...rest, parts });
      const calls = parts.flatMap((p) => {
        if (p.type !== 'tool_call') return [];
        // no state on its item: cn sends no result for it; a `tool` item's result goes where it stands
        if (p.meta?.[NO_STATE]) {
          stateless.add(p.id);
          return [];
        }
        return [p];
      });
      if (calls.length === 0) continue;
      // in the order of the states (convertFromUnifiedHistory walks them), where read so
      const order = given.meta?.[STATE_ORDER];
      if (Array.isArray(order)) calls.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
      out.push({
        role: 'tool',
        parts: calls.map((c): ToolResultPart => {
          const r = results.get(c.id);
          if (r) placed.add(c.id);
          return { type: 'tool_result', callId: c.id, name: c.name, content: r ? sentText(r) : TOOL_CANCELLED };
        }),
      });
      continue;
    }
    // results went with their calls; one without its call is the text it was written as
    const ownResults: ToolResultPart[] = [];
    const parts = given.parts.flatMap((p): Part[] => {
      if (p.type !== 'tool_result') return [p];
      // a `tool` item: a result where it stands, whether its call has a state, none, or is missing (seen)
      if (p.meta?.[TOOL_ITEM] || stateless.has(p.callId)) {
        ownResults.push({ type: 'tool_result', callId: p.callId, ...(p.name ? { name: p.name } : {}), content: sentText(p) });
        return [];
      }
      if (placed.has(p.callId)) return [];
      return [{ type: 'text', text: `[tool result for ${p.callId}]\n${resultText(p)}` }];
    });
    if (ownResults.length) out.push({ role: 'tool', parts: ownResults });
    const sent = userParts(parts);
    if (sent.length) out.push({ role: 'user', parts: sent });
  }
  return { ...ctx, messages: out };
}
