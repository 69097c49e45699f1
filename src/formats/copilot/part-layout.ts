/**
 * A reply's parts in Copilot CLI's assistant.message, which records its text as one `content`, its
 * thinking as `reasoningText` (unsigned) or `reasoningBlocks` (Anthropic blocks it sends back) and its
 * calls as `toolRequests`. Seen with the real 1.0.102 against the stand-in (replies of several thinking
 * and text blocks, with and without calls): `content` is the text blocks joined with nothing;
 * `reasoningBlocks.blocks` holds the thinking alone when the blocks come as thinking, at most one text,
 * then calls; else `reasoningBlocks.orderedBlocks` holds every block in order (a call as
 * `{type: "tool_use", id}`), and Copilot CLI sends those blocks back as they are. A reply without
 * thinking blocks is sent as its `content`, then its calls. Where the fields cannot tell the parts
 * apart (several texts or unsigned thinking parts, or another order), threadbase keeps their layout in
 * the message's `threadbase` field (`partLayout`) and reads them back by it.
 */
import type { Part, ToolCallPart } from '../../model/types.js';

/** What a block of a reply is to Copilot CLI. */
export type BlockKind = 'reasoning' | 'text' | 'call';

/**
 * Whether Copilot CLI records blocks of these kinds as `orderedBlocks`: unless they are reasoning
 * first, then at most one text, then calls.
 */
export function needsOrderedBlocks(kinds: readonly BlockKind[]): boolean {
  const rank = { reasoning: 0, text: 1, call: 2 } as const;
  let stage = 0;
  let texts = 0;
  for (const k of kinds) {
    if (rank[k] < stage) return true;
    if (k === 'text' && ++texts > 1) return true;
    stage = rank[k];
  }
  return false;
}

/** One part of a reply written without thinking blocks: a text or unsigned thinking of that length, or the next call. */
export type LaidOutPart = ['text', number] | ['thinking', number] | ['call'];

/** The separator threadbase joins a reply's unsigned thinking parts with in `reasoningText`. */
export const THINKING_SEPARATOR = '\n\n';

/**
 * The layout to keep of a reply written without thinking blocks, whose parts (each text, unsigned
 * thinking or call, in order) the fields alone give back otherwise: undefined when they do (at most one
 * text and one thinking, thinking first, calls last).
 */
export function partLayoutOf(parts: readonly LaidOutPart[]): LaidOutPart[] | undefined {
  const thinking = parts.filter((p) => p[0] === 'thinking').length;
  const kinds = parts.map((p): BlockKind => (p[0] === 'thinking' ? 'reasoning' : p[0]));
  return thinking > 1 || needsOrderedBlocks(kinds) ? [...parts] : undefined;
}

function isLaidOutPart(v: unknown): v is LaidOutPart {
  if (!Array.isArray(v)) return false;
  if (v.length === 1) return v[0] === 'call';
  return v.length === 2 && (v[0] === 'text' || v[0] === 'thinking') && Number.isInteger(v[1]) && (v[1] as number) >= 0;
}

/**
 * A reply's parts by the layout threadbase kept: its `content` and `reasoningText` cut at the lengths
 * it gives, its calls in their order; undefined when the layout does not fit them (the fields changed).
 */
export function laidOutParts(
  layout: unknown,
  content: string,
  reasoningText: string,
  calls: readonly ToolCallPart[],
): Part[] | undefined {
  if (!Array.isArray(layout) || !layout.every(isLaidOutPart)) return undefined;
  const items = layout as LaidOutPart[];
  const lengths = (kind: 'text' | 'thinking') => items.flatMap((p) => (p[0] === kind ? [p[1]] : []));
  const texts = lengths('text');
  const thoughts = lengths('thinking');
  const sum = (ns: number[]) => ns.reduce((a, b) => a + b, 0);
  if (sum(texts) !== content.length) return undefined;
  if (sum(thoughts) + THINKING_SEPARATOR.length * Math.max(0, thoughts.length - 1) !== reasoningText.length) return undefined;
  if (items.filter((p) => p[0] === 'call').length !== calls.length) return undefined;
  let text = 0;
  let thought = 0;
  let call = 0;
  return items.map((p): Part => {
    if (p[0] === 'call') return calls[call++] as ToolCallPart;
    if (p[0] === 'text') {
      const part: Part = { type: 'text', text: content.slice(text, text + p[1]) };
      text += p[1];
      return part;
    }
    const part: Part = { type: 'thinking', thinking: reasoningText.slice(thought, thought + p[1]) };
    thought += p[1] + THINKING_SEPARATOR.length;
    return part;
  });
}

/**
 * Where a reply's unsigned thinking parts stood beside its thinking blocks: each one's place among the reply's
 * parts, its length in `reasoningText` (there joined by THINKING_SEPARATOR) and its meta. Copilot CLI's
 * `reasoningText` is its readable copy of the reasoning, and resumed it sends the blocks alone (seen with the
 * real 1.0.102: test/agents/copilot-unsigned-thinking.test.ts), so thinking it could not send is kept there.
 */
export type UnsignedThinkingAt = { at: number; length: number; meta?: Record<string, unknown> };

const isUnsignedAt = (v: unknown): v is UnsignedThinkingAt =>
  typeof v === 'object' &&
  v !== null &&
  Number.isInteger((v as UnsignedThinkingAt).at) &&
  Number.isInteger((v as UnsignedThinkingAt).length) &&
  (v as UnsignedThinkingAt).length >= 0;

/**
 * The reply's parts with its unsigned thinking back in place (`layout`: encode.ts's `threadbase.unsignedThinking`,
 * cut from `reasoningText`); the parts as they were when the layout does not fit them (the fields changed).
 */
export function withUnsignedThinking(parts: Part[], layout: unknown, reasoningText: string): Part[] {
  if (!Array.isArray(layout) || layout.length === 0 || !layout.every(isUnsignedAt)) return parts;
  const items = layout as UnsignedThinkingAt[];
  const total = items.reduce((n, p) => n + p.length, 0) + THINKING_SEPARATOR.length * (items.length - 1);
  if (total !== reasoningText.length) return parts;
  const out = [...parts];
  let from = 0;
  for (const item of items) {
    if (item.at > out.length) return parts;
    const meta = typeof item.meta === 'object' && item.meta !== null ? { meta: item.meta } : {};
    out.splice(item.at, 0, { type: 'thinking', thinking: reasoningText.slice(from, from + item.length), ...meta });
    from += item.length + THINKING_SEPARATOR.length;
  }
  return out;
}
