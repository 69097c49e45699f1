/**
 * Cline's image budget in every request (@cline/core 0.0.86 MessageBuilder.applyMediaBudget with
 * @cline/shared's defaults, which the CLI does not change): in order, each image (in a message, in a tool
 * result, nested in its own tools' JSON) is kept only if its media type is png, jpeg, gif or webp, its
 * data canonical base64 (or a base64 data URL) of at most 5 MiB encoded and 6 MiB decoded, and the
 * images kept so far stay within 8 MiB encoded; otherwise it goes as Cline's placeholder text.
 */
import type { Message, Part, ToolResultContent, ToolResultPart } from '../../model/types.js';

export const CLINE_MEDIA_OMITTED = '[media omitted: invalid or exceeds size limit]';
const SUPPORTED = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const MAX_ENCODED = 5_242_880;
const MAX_DECODED = 6_291_456;
const MAX_TOTAL = 8_388_608;

type Kept = { data: string; mediaType: string } | undefined;

function canonicalBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  return /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}
const decodedLength = (s: string): number => (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);

/** One request's budget: what it has kept so far. */
class MediaBudget {
  private total = 0;

  /** The image as Cline sends it (its base64 trimmed, a data URL's type taken), or undefined for the placeholder. */
  take(mediaType: string | undefined, data: unknown): Kept {
    if (typeof data !== 'string' || typeof mediaType !== 'string') return undefined;
    let type = mediaType.toLowerCase();
    let b64 = data.trim();
    const url = /^data:([^,]{1,128}),/i.exec(b64);
    if (url) {
      const head = (url[1] as string).toLowerCase();
      const bare = head.endsWith(';base64') ? head.slice(0, -';base64'.length) : '';
      if (bare && !bare.includes(';')) {
        if (type && type !== bare) return undefined;
        type = bare;
        b64 = b64.slice(url[0].length);
      }
    }
    if (!SUPPORTED.has(type) || b64.length === 0 || b64.length > MAX_ENCODED || !canonicalBase64(b64)) return undefined;
    if (decodedLength(b64) > MAX_DECODED || this.total + b64.length > MAX_TOTAL) return undefined;
    this.total += b64.length;
    return { data: b64, mediaType: type };
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Images nested in Cline's own JSON: each kept or made the placeholder string (limitNestedMedia). */
function limitNested(v: unknown, budget: MediaBudget): unknown {
  if (Array.isArray(v)) return v.map((x) => limitNested(x, budget));
  if (!isObj(v)) return v;
  if (v.type === 'image') {
    const kept = budget.take(v.mediaType as string | undefined, v.data);
    return kept ? { ...v, ...kept } : CLINE_MEDIA_OMITTED;
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, limitNested(x, budget)]));
}

function limitResultItem(c: ToolResultContent, budget: MediaBudget): ToolResultContent {
  if (c.type !== 'image' || c.data === undefined) return c;
  const kept = budget.take(c.mediaType, c.data);
  return kept ? { ...c, ...kept } : { type: 'text', text: CLINE_MEDIA_OMITTED };
}

function limitResult(p: ToolResultPart, budget: MediaBudget): ToolResultPart {
  const json = p.meta?.clineContent;
  if (Array.isArray(json)) {
    // an image item is made a text block, an image inside an entry a string
    const limited = json.map((e) => {
      if (isObj(e) && e.type === 'image') {
        const kept = budget.take(e.mediaType as string | undefined, e.data);
        return kept ? { ...e, ...kept } : { type: 'text', text: CLINE_MEDIA_OMITTED };
      }
      return isObj(e) && (e.type === 'text' || e.type === 'file') ? e : limitNested(e, budget);
    });
    return { ...p, content: JSON.stringify(limited), meta: { ...p.meta, clineContent: limited } };
  }
  if (typeof p.content === 'string') return p;
  return { ...p, content: p.content.map((c) => limitResultItem(c, budget)) };
}

/** The messages with Cline's image budget applied, in order. */
export function applyClineMediaBudget(messages: Message[]): Message[] {
  const budget = new MediaBudget();
  const limitPart = (p: Part): Part => {
    // an image without data is an Anthropic source block, which Cline drops on its own
    if (p.type === 'image' && p.data !== undefined) {
      const kept = budget.take(p.mediaType, p.data);
      return kept ? { ...p, ...kept } : { type: 'text', text: CLINE_MEDIA_OMITTED };
    }
    return p.type === 'tool_result' ? limitResult(p, budget) : p;
  };
  return messages.map((m) => ({ ...m, parts: m.parts.map(limitPart) }));
}
