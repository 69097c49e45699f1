/** Snippets cut from an entry's text around the query's terms (src/stores/sqlite/text.ts). */
import { describe, expect, it } from 'vitest';
import { queryTerms, type SearchText, snippetOf } from '../../src/stores/sqlite/text.js';

const only = (toolOutput: string): SearchText => ({ text: '', thinking: '', toolInput: '', toolOutput });

describe('snippetOf', () => {
  it('keeps what comes before the first word when the snippet starts at the beginning', () => {
    expect(snippetOf(only('(Bash completed with no output)'), queryTerms('bash'))).toBe('([Bash] completed with no output)');
    expect(snippetOf(only('  "quoted" word'), queryTerms('word'))).toBe('  "quoted" [word]');
  });

  it('marks a cut with … on either side and keeps the matches in brackets', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    words[20] = 'needle';
    const s = snippetOf(only(`(${words.join(' ')})`), queryTerms('needle'), 8);
    expect(s).toBe('…w18 w19 [needle] w21 w22 w23 w24 w25…');
  });
});
