/**
 * The searchable text of entries, the FTS5 query made from user words, and snippets. The FTS table
 * is contentless (the text is not stored twice), so snippets are cut here from the entry itself,
 * tokenised as FTS5's unicode61 tokenizer does (letters and digits, case and diacritics folded).
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

/** FTS5 query from user words: each word a quoted phrase, all required. */
export function ftsQuery(query: string): string {
  const words = query.match(/[^\s"]+|"[^"]*"/g) ?? [];
  return words
    .map((w) => w.replace(/^"|"$/g, '').replace(/"/g, '""'))
    .filter((w) => w.length > 0)
    .map((w) => `"${w}"`)
    .join(' ');
}

const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** A token folded as unicode61 folds it (remove_diacritics 1 is close enough for highlighting). */
function fold(token: string): string {
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
  // Start a little before the first window with the most hits.
  let from = 0;
  let most = -1;
  for (let i = 0; i < tokens.length; i++) {
    if (!tokens[i]?.hit) continue;
    let n = 0;
    for (let j = i; j < Math.min(tokens.length, i + size); j++) if (tokens[j]?.hit) n++;
    if (n > most) {
      most = n;
      from = i;
    }
  }
  from = Math.max(0, Math.min(from - 2, tokens.length - size));
  const to = Math.min(tokens.length, from + size);
  let out = from > 0 ? '…' : '';
  // From the column's start when nothing is cut, so leading punctuation ("(Bash completed…") stays.
  let at = from > 0 ? (tokens[from] as { start: number }).start : 0;
  for (let i = from; i < to; i++) {
    const t = tokens[i] as { start: number; end: number; hit: boolean };
    out += column.slice(at, t.start);
    out += t.hit ? `[${column.slice(t.start, t.end)}]` : column.slice(t.start, t.end);
    at = t.end;
  }
  if (to < tokens.length) out += '…';
  else out += column.slice(at);
  return out;
}
