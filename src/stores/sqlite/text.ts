/**
 * The searchable text of entries, the FTS5 query made from user words, and snippets. The FTS table
 * is contentless (the text is not stored twice), so snippets are cut here from the entry itself,
 * tokenised as FTS5's unicode61 tokenizer does (letters and digits, case and diacritics folded).
 * Chinese, Japanese and Korean have no spaces between words, so unicode61 would index a whole run
 * ("日本語のテスト") as one token that no shorter query finds: their characters are indexed one token
 * each (cjkSeparated) and a query's run becomes a phrase of them, which finds the run anywhere.
 */
import type { Entry } from '../../model/types.js';

export interface SearchText {
  text: string;
  thinking: string;
  toolInput: string;
  toolOutput: string;
}

/** Text of one entry split the way the FTS table indexes it. */
export function entrySearchText(e: Entry): SearchText {
  const out: SearchText = { text: '', thinking: '', toolInput: '', toolOutput: '' };
  const add = (k: keyof SearchText, s: string) => {
    if (s) out[k] = out[k] ? `${out[k]}\n${s}` : s;
  };
  if (e.kind === 'compaction' || e.kind === 'branch_summary') add('text', e.summary);
  if (e.kind !== 'message') return out;
  for (const p of e.message.parts) {
    if (p.type === 'text') add('text', p.text);
    else if (p.type === 'thinking') add('thinking', p.thinking);
    else if (p.type === 'file' && p.text) add('text', p.text);
    else if (p.type === 'tool_call') add('toolInput', `${p.name} ${JSON.stringify(p.input)}`);
    else if (p.type === 'tool_result') {
      if (typeof p.content === 'string') add('toolOutput', p.content);
      else for (const c of p.content) if (c.type === 'text') add('toolOutput', c.text);
    }
  }
  return out;
}

/**
 * The characters of scripts written without spaces between words: Han (with 々 and 〇), kana and
 * Hangul, by block. The same ranges as the PostgreSQL store's migration (CJK_CLASS there).
 */
export const CJK_RANGES =
  '\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3040-\u30FF\u3100-\u318F\u31A0-\u31BF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF' +
  '\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\u{20000}-\u{3134F}';
const CJK_CHAR = new RegExp(`[${CJK_RANGES}]`, 'gu');
const HAS_CJK = new RegExp(`[${CJK_RANGES}]`, 'u');

/**
 * Text as the full-text index takes it: each CJK character set apart by U+0001, which both
 * unicode61 and PostgreSQL's parser take for a separator (and no text shows); other text unchanged.
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

/** FTS5 query from user words: each word a quoted phrase (a CJK run one of its characters), all required. */
export function ftsQuery(query: string): string {
  const words = query.match(/[^\s"]+|"[^"]*"/g) ?? [];
  return words
    .map((w) => w.replace(/^"|"$/g, '').replace(/"/g, '""'))
    .filter((w) => w.length > 0)
    .map((w) => `"${cjkSpaced(w)}"`)
    .join(' ');
}

/** A token as the index has it: a CJK character alone, else a run of letters and digits. */
const TOKEN = new RegExp(`[${CJK_RANGES}]|(?:(?![${CJK_RANGES}])[\\p{L}\\p{N}\\p{Co}])+`, 'gu');

/** A token folded as unicode61 folds it (remove_diacritics 1 is close enough for highlighting). */
function fold(token: string): string {
  // unicode61 leaves kana's voicing marks on (が is not か)
  if (HAS_CJK.test(token)) return token;
  return token.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The folded tokens of a user query (what FTS5 matches). */
export function queryTerms(query: string): Set<string> {
  return new Set((query.match(TOKEN) ?? []).map(fold));
}

/**
 * The best window of about `size` tokens of an entry's text around the query's terms, matches in
 * [brackets], '…' where text was cut: the column with the most matches wins, as snippet(-1) picks.
 */
export function snippetOf(text: SearchText, terms: ReadonlySet<string>, size = 16): string {
  let best: { column: string; tokens: { start: number; end: number; hit: boolean }[]; hits: number } | undefined;
  for (const column of [text.text, text.thinking, text.toolInput, text.toolOutput]) {
    if (!column) continue;
    const tokens: { start: number; end: number; hit: boolean }[] = [];
    let hits = 0;
    for (const m of column.matchAll(TOKEN)) {
      const hit = terms.has(fold(m[0]));
      if (hit) hits++;
      tokens.push({ start: m.index, end: m.index + m[0].length, hit });
    }
    if (!best || hits > best.hits) best = { column, tokens, hits };
  }
  if (!best?.tokens.length) return '';
  const { column, tokens } = best;
  // A CJK character is a token but about a third of a word: the window is `size` words long.
  const weight = tokens.map((t) => (t.end - t.start <= 2 && HAS_CJK.test(column.slice(t.start, t.end)) ? 1 : 3));
  const budget = size * 3;
  /** The end of the window that starts at token i. */
  const windowEnd = (i: number) => {
    let w = 0;
    let j = i;
    while (j < tokens.length && w < budget) w += weight[j++] as number;
    return j;
  };
  // Start a little (two words) before the first window with the most hits.
  let from = 0;
  let most = -1;
  for (let i = 0; i < tokens.length; i++) {
    if (!tokens[i]?.hit) continue;
    let n = 0;
    for (let j = i; j < windowEnd(i); j++) if (tokens[j]?.hit) n++;
    if (n > most) {
      most = n;
      from = i;
    }
  }
  for (let back = 0; from > 0 && back < 6; ) back += weight[--from] as number;
  // no later than the start of the last whole window
  let last = tokens.length;
  for (let w = 0; last > 0 && w < budget; ) w += weight[--last] as number;
  from = Math.min(from, last);
  const to = windowEnd(from);
  let out = from > 0 ? '…' : '';
  // From the column's start when nothing is cut, so leading punctuation ("(Bash completed…") stays.
  let at = from > 0 ? (tokens[from] as { start: number }).start : 0;
  for (let i = from; i < to; i++) {
    const t = tokens[i] as { start: number; end: number; hit: boolean };
    const gap = column.slice(at, t.start);
    // a CJK word's characters, each a token, are one highlight: [日本語], not [日][本][語]
    if (t.hit && !gap && out.endsWith(']') && i > from && tokens[i - 1]?.hit)
      out = `${out.slice(0, -1)}${column.slice(t.start, t.end)}]`;
    else out += gap + (t.hit ? `[${column.slice(t.start, t.end)}]` : column.slice(t.start, t.end));
    at = t.end;
  }
  if (to < tokens.length) out += '…';
  else out += column.slice(at);
  return out;
}
