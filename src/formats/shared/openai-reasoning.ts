/**
 * OpenAI Responses reasoning as the readers give it: a thinking part with `meta.encryptedContent` and the
 * item id in `meta.codexItemId` (Codex, pi, AI SDK readers) or in OpenCode's `meta.providerMetadata.openai.itemId`.
 * OpenCode (and the AI SDK) give an item of several summary parts as a part per summary part, all with
 * the item id; writers that keep one item per reasoning item join them again.
 */
import type { Part, ThinkingPart } from '../../model/types.js';

function field(v: unknown, key: string): unknown {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

/** The OpenAI item id of a reasoning part, wherever its reader kept it. */
export function openaiItemId(p: ThinkingPart): string | undefined {
  if (typeof p.meta?.codexItemId === 'string') return p.meta.codexItemId;
  const id = field(field(p.meta?.providerMetadata, 'openai'), 'itemId');
  return typeof id === 'string' ? id : undefined;
}

/** A part's summary parts: meta.summaryParts when kept, else its text as one. */
function summariesOf(p: ThinkingPart): string[] {
  const parts = p.meta?.summaryParts;
  return Array.isArray(parts) && parts.every((x) => typeof x === 'string') ? parts : [p.thinking];
}

/**
 * Adjacent unsigned thinking parts of one OpenAI item id, one of them with encrypted content, as one
 * thinking part: texts joined by a blank line (as codex and pi-ai join summary parts), every summary
 * part in meta.summaryParts, the item id in meta.codexItemId and the (last) encrypted content.
 */
export function joinOpenAIReasoning(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  let run: ThinkingPart[] = [];
  const flush = () => {
    const [first] = run;
    if (first === undefined) return;
    const encrypted = run.flatMap((p) => (typeof p.meta?.encryptedContent === 'string' ? [p.meta.encryptedContent] : [])).at(-1);
    if (run.length === 1 || encrypted === undefined) out.push(...run);
    else {
      const summaryParts = run.flatMap(summariesOf);
      out.push({
        type: 'thinking',
        thinking: run.map((p) => p.thinking).join('\n\n'),
        meta: { ...first.meta, codexItemId: openaiItemId(first), summaryParts, encryptedContent: encrypted },
      });
    }
    run = [];
  };
  for (const p of parts) {
    const id = p.type === 'thinking' && p.signature === undefined ? openaiItemId(p) : undefined;
    const prev = run[0];
    if (id !== undefined && p.type === 'thinking' && (prev === undefined || openaiItemId(prev) === id)) {
      run.push(p);
      continue;
    }
    flush();
    if (id !== undefined && p.type === 'thinking') run.push(p);
    else out.push(p);
  }
  flush();
  return out;
}
