/**
 * The web page marks a hit's words by the query's words (assets/util.js queryTerms): every word, as
 * every store matches every word; `and`, `or`, `not` and `near` were left unmarked as if operators.
 */
import { expect, it } from 'vitest';

// the page's own module, as the browser loads it (no DOM needed for the words of a query)
const UTIL = '../../src/server/web/assets/util.js';
const { queryTerms } = (await import(UTIL)) as { queryTerms(query: string): Set<string> };

it("marks every word of the query, 'or' and 'not' too, case and accents folded", () => {
  expect([...queryTerms('cats OR dogs and NOT near Café')]).toEqual(['cats', 'or', 'dogs', 'and', 'not', 'near', 'cafe']);
  expect([...queryTerms('"ls -la" &&')]).toEqual(['ls', 'la']);
});
