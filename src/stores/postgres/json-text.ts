/** SQL over the JSON text PostgreSQL's store keeps (session info, entry bodies). */

/**
 * A JSON text column as jsonb takes it: jsonb (and json's operators) refuse a \u0000 escape and an
 * unpaired surrogate's, which info keeps for a title or project a column cannot hold, and one such
 * session made every `source` filter of its tenant fail. Escaped backslashes are made '/' first, so
 * no escape is misread; both changes only touch strings, not the keys read. (No '?' in here: the
 * filters' placeholders.) Only a text with an escape is rewritten.
 */
export function jsonbReadable(column: string): string {
  return String.raw`CASE WHEN strpos(${column}, '\u') > 0
    THEN regexp_replace(regexp_replace(${column}, '\\\\', '/', 'g'), '\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})', '', 'g')
    ELSE ${column} END`;
}
