/**
 * Cutting text for titles, listings and previews without breaking a character: a cut through a
 * surrogate pair leaves a lone surrogate, which PostgreSQL's jsonb refuses, UTF-8 turns into U+FFFD
 * and a terminal shows as garbage; a cut through an emoji sequence or before a combining accent
 * shows half a character.
 */

// Made on first use: creating one loads ICU's break rules (≈ 13 ms), which a command that cuts
// nothing (a warm `sync`) must not pay at start-up.
let graphemes: Intl.Segmenter | undefined;
/** How far back from the cut graphemes are looked for (longer clusters are cut between code points). */
const WINDOW = 32;

/** The longest prefix of `text` of at most `max` UTF-16 units that ends between two graphemes. */
export function prefixOf(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  const from = Math.max(0, max - WINDOW);
  let cut = -1;
  // the window reaches past the cut so the segmenter sees the whole cluster the cut falls in
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const { index } of graphemes.segment(text.slice(from, max + WINDOW))) {
    if (from + index > max) break;
    if (from + index > from || from === 0) cut = from + index;
  }
  if (cut > 0) return text.slice(0, cut);
  // one cluster longer than the window: at least never half a surrogate pair
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** `text` cut to at most `max` UTF-16 units with '…' where it was cut (between graphemes). */
export function truncate(text: string, max: number, ellipsis = '…'): string {
  return text.length <= max ? text : `${prefixOf(text, max - ellipsis.length)}${ellipsis}`;
}
