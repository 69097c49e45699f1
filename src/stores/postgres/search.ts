/**
 * The PostgreSQL side of search (what a search matches is src/stores/search-text.ts, the same in
 * every store). An entry's tsvector is built here from the same folded tokens the SQLite index and
 * the memory store match (tokensOf), not by PostgreSQL's parser and dictionaries: those read
 * `quokka.txt` as one word, and 'english' stems (`inspected` found `inspect`) and drops stop words
 * (`the` found nothing), so the stores answered one query differently. A query is a tsquery of the
 * same tokens: a term's tokens a phrase, every term required.
 */
import type pg from 'pg';
import type { Entry } from '../../model/types.js';
import {
  callNameIn,
  callsStoredBefore,
  entrySearchText,
  type SearchText,
  searchTerms,
  tokensOf,
  toolNamesOf,
} from '../search-text.js';
import { columnText } from './column-text.js';

/** PostgreSQL's bounds on a tsvector: positions up to 16383, 256 of them per lexeme, lexemes under 2 KiB. */
const MAX_POSITION = 16383;
const MAX_POSITIONS_PER_LEXEME = 256;
const MAX_LEXEME_BYTES = 2046;
/** The tsvector's lexemes and positions stay under its 1 MiB (with room for its per-lexeme headers). */
const MAX_VECTOR_BYTES = 900_000;

/** A lexeme as tsvector and tsquery text quote it. */
const quoted = (token: string): string => `'${token.replace(/['\\]/g, '\\$&')}'`;

/**
 * The tsvector (as text) of an entry's searchable text: each column's tokens at their positions, a
 * position left out between columns so that a phrase matches within one, as FTS5 matches it. Past
 * PostgreSQL's bounds a token's further positions are dropped (the word is still found; a phrase that
 * far into a long output may not be), and once the vector is near 1 MiB no further words go in.
 */
export function searchVector(text: SearchText): string {
  const positions = new Map<string, number[]>();
  let bytes = 0;
  let at = 0;
  for (const column of [text.text, text.thinking, text.toolInput, text.toolOutput]) {
    if (!column) continue;
    for (const token of tokensOf(column)) {
      at = Math.min(at + 1, MAX_POSITION);
      let list = positions.get(token);
      if (!list) {
        const size = Buffer.byteLength(token);
        if (size > MAX_LEXEME_BYTES || bytes + size + 8 > MAX_VECTOR_BYTES) continue;
        bytes += size + 6;
        list = [];
        positions.set(token, list);
      }
      if (list.length < MAX_POSITIONS_PER_LEXEME && list.at(-1) !== at && bytes + 2 <= MAX_VECTOR_BYTES) {
        list.push(at);
        bytes += 2;
      }
    }
    at = Math.min(at + 1, MAX_POSITION);
  }
  return [...positions].map(([token, list]) => `${quoted(token)}:${list.join(',')}`).join(' ');
}

/** The tsquery (as text) of a user's query: each term's tokens a phrase, all terms required; '' for none. */
export function searchQuery(query: string): string {
  return searchTerms(query)
    .map((t) => (t.tokens.length > 1 ? `(${t.tokens.map(quoted).join(' <-> ')})` : quoted(t.tokens[0] as string)))
    .join(' & ');
}

/** The tools column of an entry: the tools it calls or holds results of, a result named by its call (callNames). */
export function entryTools(e: Entry, callNames: Map<string, string>): string[] {
  return e.kind === 'message' ? [...new Set([...toolNamesOf(e.message, callNames)].map(columnText))] : [];
}

/** An entry's search columns: its tsvector text and its tools (callNames: the calls seen so far). */
export function searchColumns(e: Entry, callNames: Map<string, string>): { tsv: string; tools: string[] } {
  return { tsv: searchVector(entrySearchText(e)), tools: entryTools(e, callNames) };
}

/**
 * The tool names of the calls, stored in the session, of the results in `entries` that do not name
 * their tool and whose call is not among them (callsStoredBefore), the newest call of an id first.
 */
export async function storedCallNames(
  c: pg.PoolClient,
  sessionId: string,
  entries: readonly Entry[],
): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const id of callsStoredBefore(entries)) {
    // the call's entry holds its id as a JSON string (body is the entry's JSON); read from the newest
    // back (an append's call is most often just before it, and an id an agent used again is the newest's)
    const holding = (limit: string) =>
      c.query<{ body: string }>(
        `SELECT body FROM tb_entries WHERE session_id = $1 AND tools <> '{}' AND strpos(body, $2) > 0
          ORDER BY seq DESC ${limit}`,
        [sessionId, JSON.stringify(id)],
      );
    for (const limit of ['LIMIT 4', '']) {
      const name = (await holding(limit)).rows
        .map((r) => callNameIn(JSON.parse(r.body) as Entry, id))
        .find((n) => n !== undefined);
      if (name !== undefined) {
        names.set(id, name);
        break;
      }
    }
  }
  return names;
}
