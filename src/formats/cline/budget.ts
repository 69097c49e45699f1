/**
 * Cline's budget of all text in a request (@cline/core 0.0.86 MessageBuilder.truncateToTotalTextBudget,
 * 6,000,000 UTF-8 bytes, CLINE_MESSAGE_BUILDER_MAX_TOTAL_TEXT_BYTES): past it, the largest texts are cut
 * first (assistant texts, tool result texts, files and the strings of its own tools' JSON, its text and
 * file items among them, then the strings of tool call inputs), each to what brings the request within
 * the budget but not under its floor (40,000 bytes for an assistant text, 2,000 for the others), head
 * and tail around a marker. Past it, a string item of its own tools' JSON is sent as an object of its
 * characters (Cline's copy of each item, {...item}).
 */
import type { Message } from '../../model/types.js';
import { clineTruncateMiddle } from './context.js';

export const CLINE_MAX_TOTAL_TEXT_BYTES = 6_000_000;
const MIN_ASSISTANT_BYTES = 40_000;
const MIN_OTHER_BYTES = 2_000;
const resultMarker = (n: number): string => `\n\n...[truncated ${n} chars to fit provider request budget]...\n\n`;
const assistantMarker = (n: number): string =>
  `\n\n...[assistant text truncated: omitted ${n} chars to fit provider request budget]...\n\n`;

const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const isImage = (v: Obj): boolean => v.type === 'image' && typeof v.data === 'string' && typeof v.mediaType === 'string';
/** An entry of Cline's own JSON: an object that is no text, image or file block. */
const isEntry = (v: unknown): v is Obj => isObj(v) && v.type !== 'text' && v.type !== 'image' && v.type !== 'file';

/** The bytes of every string in a JSON value, images left out (U7). */
function nestedBytes(v: unknown): number {
  if (typeof v === 'string') return bytes(v);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + nestedBytes(x), 0);
  if (isObj(v)) return isImage(v) ? 0 : Object.values(v).reduce((n: number, x) => n + nestedBytes(x), 0);
  return 0;
}

interface Candidate {
  bytes: number;
  min: number;
  marker: (n: number) => string;
  get(): string;
  set(s: string): void;
}
/** The string at `holder[key]` as a candidate, cut in place. */
function candidate<K extends PropertyKey>(
  holder: Partial<Record<K, unknown>>,
  key: K,
  min = MIN_OTHER_BYTES,
  marker = resultMarker,
): Candidate {
  const get = () => holder[key] as string;
  const set = (s: string) => {
    holder[key] = s;
  };
  return { bytes: bytes(get()), min, marker, get, set };
}

/** Each string of a JSON value (images left out) as a candidate (H7). */
function nestedCandidates(v: unknown, out: Candidate[]): void {
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (typeof x === 'string') out.push(candidate(v, i));
      else nestedCandidates(x, out);
    });
  } else if (isObj(v) && !isImage(v)) {
    for (const k of Object.keys(v)) {
      const x = v[k];
      if (typeof x === 'string') out.push(candidate(v, k));
      else nestedCandidates(x, out);
    }
  }
}

/** The longest cut of `text` whose bytes fit `max` (ab: a binary search over the characters kept). */
function cutToBytes(text: string, max: number, marker: (n: number) => string): string {
  if (bytes(text) <= max) return text;
  let lo = 0;
  let hi = text.length;
  let best = clineTruncateMiddle(text, 0, marker);
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const cut = clineTruncateMiddle(text, mid, marker);
    if (bytes(cut) <= max) {
      best = cut;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** The messages within Cline's budget of all text; the same messages when they are within it already. */
export function applyClineTextBudget(messages: Message[], max: number = CLINE_MAX_TOTAL_TEXT_BYTES): Message[] {
  let total = 0;
  for (const m of messages)
    for (const p of m.parts) {
      if (p.type === 'text') total += bytes(p.text);
      else if (p.type === 'thinking') total += bytes(p.thinking);
      else if (p.type === 'file') total += bytes(p.text ?? '');
      else if (p.type === 'tool_call') total += nestedBytes(p.input);
      else if (p.type === 'tool_result') {
        const json = p.meta?.clineContent;
        const content = Array.isArray(json) ? json : p.content;
        if (typeof content === 'string') total += bytes(content);
        else
          for (const c of content as unknown[]) {
            // an array item is an entry too (X2): its strings count
            if (Array.isArray(c)) total += nestedBytes(c);
            if (!isObj(c)) continue;
            if (c.type === 'text') total += bytes(String(c.text));
            else if (c.type === 'file') total += bytes(String(c.content ?? c.text ?? ''));
            else if (isEntry(c)) total += nestedBytes(c);
          }
      }
    }
  if (total <= max) return messages;

  const copy = structuredClone(messages);
  // Cline copies each item of a result before it cuts ({...item}, rb): a string item becomes an object of
  // its characters, a number, boolean or null an empty object (seen against the real cline)
  for (const m of copy)
    for (const p of m.parts) {
      const json = p.type === 'tool_result' ? p.meta?.clineContent : undefined;
      if (p.type === 'tool_result' && p.meta && Array.isArray(json))
        p.meta.clineContent = json.map((c: unknown) => (c !== null && typeof c === 'object' ? c : Object.assign({}, c)));
    }
  const texts: Candidate[] = [];
  const inputs: Candidate[] = [];
  for (const m of copy)
    for (const p of m.parts) {
      if (p.type === 'tool_call') nestedCandidates(p.input, inputs);
      else if (p.type === 'text' && m.role === 'assistant')
        texts.push(candidate(p, 'text', MIN_ASSISTANT_BYTES, assistantMarker));
      else if (p.type === 'tool_result') {
        const json = p.meta?.clineContent;
        if (Array.isArray(json)) {
          // its text and file items are cut as a result's blocks, its entries string by string
          for (const c of json) {
            if (Array.isArray(c)) nestedCandidates(c, texts);
            if (!isObj(c)) continue;
            if (c.type === 'text' && typeof c.text === 'string') texts.push(candidate(c, 'text'));
            else if (c.type === 'file' && typeof c.content === 'string') texts.push(candidate(c, 'content'));
            else if (isEntry(c)) nestedCandidates(c, texts);
          }
        } else if (typeof p.content === 'string') texts.push(candidate(p, 'content'));
        else
          for (const c of p.content)
            if (c.type === 'text') texts.push(candidate(c, 'text'));
            else if (c.type === 'file' && c.text !== undefined) texts.push(candidate(c, 'text'));
      }
    }
  const byLength = (a: Candidate, b: Candidate) => b.bytes - a.bytes;
  for (const c of [...texts.sort(byLength), ...inputs.sort(byLength)]) {
    if (total <= max) break;
    if (c.bytes <= c.min) continue;
    const cut = cutToBytes(c.get(), Math.max(c.min, c.bytes - (total - max)), c.marker);
    c.set(cut);
    total -= c.bytes - bytes(cut);
  }
  // Cline's own JSON goes as its JSON text
  for (const m of copy)
    for (const p of m.parts)
      if (p.type === 'tool_result' && Array.isArray(p.meta?.clineContent)) p.content = JSON.stringify(p.meta.clineContent);
  return copy;
}
