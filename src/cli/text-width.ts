/**
 * Text measured as a terminal shows it: wide (CJK) characters and most emoji take two columns,
 * combining marks none (string-width), so columns after a title line up and a cut title fits.
 */
import { stringWidth } from './lazy-string-width.js';

// made when a text is first cut: its making (≈ 10 ms) is paid by no command that cuts none
let graphemes: Intl.Segmenter | undefined;

export { stringWidth };

/**
 * A terminal's escape sequences (CSI such as colours, OSC such as a window title, other ESC pairs)
 * and other control characters: what a session's text may hold (a tool's coloured output) and a
 * one-line view must not print, as cut there it left the terminal coloured for the lines after it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROLS = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|[\x00-\x08\x0e-\x1f\x7f-\x9f]/g;

/** `s` on one line with no escape sequence or control character: whitespace runs one space. */
export function oneLine(s: string): string {
  return s.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
}

/** `s` padded with spaces to `width` columns on the right (as String.padEnd, in columns). */
export function padEndColumns(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - stringWidth(s)));
}

/** `s` padded with spaces to `width` columns on the left. */
export function padStartColumns(s: string, width: number): string {
  return ' '.repeat(Math.max(0, width - stringWidth(s))) + s;
}

/** `s`'s graphemes (a character with its combining marks, an emoji sequence): where a cut may fall. */
export function graphemesOf(s: string): string[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(graphemes.segment(s), ({ segment }) => segment);
}

/**
 * `s` cut to its last `width` columns, starting with '…' when cut: a path's end (its project's name)
 * says more than its start.
 */
export function cutStartToColumns(s: string, width: number): string {
  if (stringWidth(s) <= width) return s;
  if (width <= 0) return '';
  const kept: string[] = [];
  let used = 0;
  const parts = graphemesOf(s);
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = graphemeWidth(parts[i] as string);
    if (used + w > width - 1) break;
    kept.push(parts[i] as string);
    used += w;
  }
  return `…${kept.reverse().join('')}`;
}

const NOT_PRINTABLE_ASCII = /[^\u0020-\u007E]/;

/** Widths of the other graphemes met: a session repeats few (arrows, box lines, one script's letters). */
const widthOf = new Map<string, number>();

/** The columns of one grapheme: a printable ASCII character one, without asking string-width. */
function graphemeWidth(g: string): number {
  if (g.length === 1) {
    const c = g.charCodeAt(0);
    if (c >= 0x20 && c <= 0x7e) return 1;
  }
  let w = widthOf.get(g);
  if (w === undefined) {
    if (widthOf.size >= 4096) widthOf.clear();
    w = stringWidth(g);
    widthOf.set(g, w);
  }
  return w;
}

/**
 * `s` cut to at most `width` columns, ending in '…' when cut; never inside a character, an emoji
 * sequence or before a combining mark (whole graphemes only). Measured a grapheme at a time and only
 * as far as `width`: string-width over each whole line was most of `show`'s one-line views.
 */
export function cutToColumns(s: string, width: number): string {
  const ascii = s.search(NOT_PRINTABLE_ASCII);
  const run = ascii < 0 ? s.length : ascii;
  // a printable-ASCII start wider than the cut: a column a character, nothing to segment
  if (run > width) return width <= 0 ? '' : `${s.slice(0, width - 1)}…`;
  if (ascii < 0) return s;
  // string-width takes an escape sequence out of the whole text, which its graphemes one by one don't
  if (s.includes('\x1b')) return cutMeasuredWhole(s, width);
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let used = 0;
  let cutAt = -1;
  for (const { segment, index } of graphemes.segment(s)) {
    const w = graphemeWidth(segment);
    if (cutAt < 0 && used + w > width - 1) cutAt = index;
    used += w;
    if (used > width) return width <= 0 ? '' : `${s.slice(0, cutAt)}…`;
  }
  return s;
}

/** cutToColumns of a text holding escape sequences: measured whole, as string-width measures it. */
function cutMeasuredWhole(s: string, width: number): string {
  if (stringWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(s)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/**
 * `s` on one line (oneLine) cut to `width` columns (cutToColumns), measuring only its start when that
 * is already too wide: `show` measured each whole message (0.44 s of its 2.8 s on a 30 MB session).
 */
export function oneLineCut(s: string, width: number): string {
  // a column takes at least one UTF-16 unit; the slack covers what oneLine drops (controls, runs of spaces)
  const room = width * 4 + 256;
  if (s.length > room) {
    const head = oneLine(s.slice(0, room));
    const cut = cutToColumns(head, width);
    if (cut !== head) return cut;
  }
  return cutToColumns(oneLine(s), width);
}
