/**
 * What a search matches, the same in every store: the SQLite index (FTS5), the memory store and the web
 * viewer's scan of a store without an index (here, token by token), and PostgreSQL (its websearch query
 * built from the same terms).
 *
 * - An entry's searchable text is its messages' text, thinking, tool inputs (with the tool's name) and
 *   tool outputs, and a compaction's or branch summary's summary (entrySearchText).
 * - A query is words and "quoted phrases" (searchTerms); every one is required, in any order. A phrase
 *   is its words in a row. Nothing else is an operator: `-word`, `OR`, `NOT`, `*` are words or
 *   punctuation, so `ls -la` finds the command. A word with punctuation inside (`foo.bar`,
 *   `needle-xylophone`) is a phrase of its words.
 * - Words are runs of letters and digits (FTS5's unicode61 tokens), case and diacritics folded.
 *   Chinese, Japanese and Korean have no spaces between words: each of their characters is a token,
 *   so a query's run of them is a phrase of its characters and finds the run anywhere.
 * - `--tool NAME` (any case) keeps the entries of that tool: its calls and their results.
 */
import type { Entry, Message } from '../model/types.js';

export interface SearchText {
  text: string;
  thinking: string;
  toolInput: string;
  toolOutput: string;
}

/** Text of one entry split the way the SQLite store's FTS table indexes it. */
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
 * The names of the tools a message calls or holds results of; a result without its tool's name is
 * named by its call (callNames: call id → name, filled from the calls seen so far, in entry order).
 */
export function toolNamesOf(m: Message, callNames: Map<string, string>): Set<string> {
  const names = new Set<string>();
  for (const p of m.parts) {
    if (p.type === 'tool_call') {
      names.add(p.name);
      callNames.set(p.id, p.name);
    } else if (p.type === 'tool_result') {
      const name = p.name ?? callNames.get(p.callId);
      if (name) names.add(name);
    }
  }
  return names;
}

/**
 * The ids of the calls whose results in `entries` do not name their tool (Claude Code's) and are not
 * among them: an append (a sync of a session at work) often brings a result whose call an earlier one
 * stored, and the tools column names a result's tool by its call (storedCallNames in each store).
 */
export function callsStoredBefore(entries: readonly Entry[]): Set<string> {
  const calls = new Set<string>();
  const wanted = new Set<string>();
  for (const e of entries) {
    if (e.kind !== 'message') continue;
    for (const p of e.message.parts) {
      if (p.type === 'tool_call') calls.add(p.id);
      else if (p.type === 'tool_result' && p.name === undefined && !calls.has(p.callId)) wanted.add(p.callId);
    }
  }
  return wanted;
}

/** The tool name of call `callId` in a stored entry, if the entry holds that call. */
export function callNameIn(e: Entry, callId: string): string | undefined {
  if (e.kind !== 'message') return undefined;
  for (const p of e.message.parts) if (p.type === 'tool_call' && p.id === callId) return p.name;
  return undefined;
}

/**
 * The characters of scripts written without spaces between words: Han (with 々 and 〇), kana and
 * Hangul, by block. The same ranges as the PostgreSQL store's migration (CJK_CLASS there).
 */
export const CJK_RANGES =
  '\u1100-\u11FF\u2E80-\u2FDF\u3005\u3007\u3040-\u30FF\u3100-\u318F\u31A0-\u31BF\u31F0-\u31FF\u3400-\u4DBF\u4E00-\u9FFF' +
  '\uA960-\uA97F\uAC00-\uD7FF\uF900-\uFAFF\uFF66-\uFF9F\u{20000}-\u{3134F}';
export const HAS_CJK = new RegExp(`[${CJK_RANGES}]`, 'u');

/** A token as the index has it: a CJK character alone, else a run of letters and digits. */
const TOKEN = new RegExp(`[${CJK_RANGES}]|(?:(?![${CJK_RANGES}])[\\p{L}\\p{N}\\p{Co}])+`, 'gu');

/** Text with case and diacritics folded as unicode61 folds a token (remove_diacritics 1 is close enough). */
const folded = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** A token folded as unicode61 folds it. */
function fold(token: string): string {
  // unicode61 leaves kana's voicing marks on (が is not か)
  return HAS_CJK.test(token) ? token : folded(token);
}

/** The folded tokens of a text, in order: the words an index holds of it (the PostgreSQL store's lexemes). */
export const tokensOf = (s: string): string[] => (s.match(TOKEN) ?? []).map(fold);

/** How many hits a search gives when its options name no limit, in every store. */
export const DEFAULT_SEARCH_LIMIT = 50;

/** A search's limit: a positive one as given (whole), else DEFAULT_SEARCH_LIMIT. */
export function searchLimitOf(limit: number | undefined): number {
  return limit !== undefined && limit >= 1 ? Math.floor(limit) : DEFAULT_SEARCH_LIMIT;
}

/** One required term of a query: a word or a quoted phrase as typed, and the folded tokens it stands for. */
export interface SearchTerm {
  text: string;
  tokens: readonly string[];
}

/**
 * The terms of a user's query: each `"quoted phrase"` (an unclosed quote runs to the end) and each
 * other run of non-space characters, as typed; a term with no letters or digits (`-`, `&&`) is left out.
 */
export function searchTerms(query: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (const m of query.matchAll(/"([^"]*)"?|[^\s"]+/g)) {
    const text = m[1] ?? m[0];
    const tokens = tokensOf(text);
    if (tokens.length) terms.push({ text, tokens });
  }
  return terms;
}

/** The folded tokens of a user query (what a snippet marks). */
export function queryTerms(query: string): Set<string> {
  return new Set(tokensOf(query));
}

/** How often `tokens` holds `phrase`, its tokens in a row. */
function occurrences(tokens: readonly string[], phrase: readonly string[]): number {
  let n = 0;
  for (let i = 0; i + phrase.length <= tokens.length; i++) if (phrase.every((t, j) => tokens[i + j] === t)) n++;
  return n;
}

/**
 * How often an entry's text holds the query's terms, 0 when it lacks any of them. A phrase matches
 * within one column (text, thinking, tool input or output), as FTS5 matches it.
 */
export function termMatches(text: SearchText, terms: readonly SearchTerm[]): number {
  if (!terms.length) return 0;
  const columns = [text.text, text.thinking, text.toolInput, text.toolOutput].filter(Boolean);
  // most entries lack a word: looked for in the folded text first, the text tokenised only when it may match
  const all = folded(columns.join('\n'));
  if (!terms.every((t) => t.tokens.every((k) => all.includes(folded(k))))) return 0;
  const tokenized = columns.map(tokensOf);
  let total = 0;
  for (const t of terms) {
    const n = tokenized.reduce((sum, tokens) => sum + occurrences(tokens, t.tokens), 0);
    if (!n) return 0;
    total += n;
  }
  return total;
}

/** An entry of a session that a query finds, with how often it holds the query's terms. */
export interface EntryMatch {
  entry: Entry;
  text: SearchText;
  score: number;
}

/**
 * The entries of one session (in order) that hold every term of a query, for the stores that search
 * without an index; `tool` (any case) keeps the entries of that tool, its calls and their results.
 */
export function* sessionMatches(entries: readonly Entry[], terms: readonly SearchTerm[], tool?: string): Generator<EntryMatch> {
  const callNames = new Map<string, string>();
  const wanted = tool?.toLowerCase();
  for (const entry of entries) {
    const names = entry.kind === 'message' ? toolNamesOf(entry.message, callNames) : new Set<string>();
    if (wanted !== undefined && ![...names].some((n) => n.toLowerCase() === wanted)) continue;
    const text = entrySearchText(entry);
    const score = termMatches(text, terms);
    if (score) yield { entry, text, score };
  }
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
