/**
 * The FTS5 side of search (what a search matches is src/stores/search-text.ts, the same in every
 * store; what this module re-exports is that module's, for this store's callers). The FTS table is
 * contentless (the text is not stored twice), so snippets are cut from the entry itself (snippetOf).
 * Chinese, Japanese and Korean have no spaces between words, so unicode61 would index a whole run
 * ("日本語のテスト") as one token that no shorter query finds: their characters are indexed one token
 * each (cjkSeparated) and a query's run becomes a phrase of them, which finds the run anywhere.
 */
import { CJK_RANGES, HAS_CJK, type SearchText, searchTerms } from '../search-text.js';

export {
  CJK_RANGES,
  entrySearchText,
  queryTerms,
  type SearchText,
  snippetOf,
} from '../search-text.js';

const CJK_CHAR = new RegExp(`[${CJK_RANGES}]`, 'gu');

/**
 * Text as the full-text index takes it: each CJK character set apart by U+0001, which unicode61
 * takes for a separator (and no text shows); other text unchanged.
 */
export function cjkSeparated(s: string): string {
  return HAS_CJK.test(s) ? s.replace(CJK_CHAR, '\u0001$&\u0001') : s;
}

/** A query's word with its CJK characters apart, for a phrase of them; other words unchanged. */
export function cjkSpaced(w: string): string {
  return HAS_CJK.test(w) ? w.replace(CJK_CHAR, ' $& ').replace(/ +/g, ' ').trim() : w;
}

/** The FTS table's columns of an entry's searchable text. */
export function ftsColumns(t: SearchText): SearchText {
  return {
    text: cjkSeparated(t.text),
    thinking: cjkSeparated(t.thinking),
    toolInput: cjkSeparated(t.toolInput),
    toolOutput: cjkSeparated(t.toolOutput),
  };
}

/**
 * FTS5 query from a user's query: each term (searchTerms) a quoted phrase (a CJK run one of its
 * characters), all required; nothing the user types is FTS5 syntax.
 */
export function ftsQuery(query: string): string {
  return searchTerms(query)
    .map((t) => `"${cjkSpaced(t.text)}"`)
    .join(' ');
}
