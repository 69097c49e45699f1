/**
 * oneLineCut (show's entry lines) measures only a long text's start, and gives what cutting the whole
 * text on one line gives: wide characters, emoji, escape sequences and runs of spaces around the place
 * where it stops measuring.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { cutToColumns, oneLine, oneLineCut } from '../../src/cli/text-width.js';

const whole = (s: string, width: number) => cutToColumns(oneLine(s), width);

it('is cutToColumns(oneLine(text)) for long texts of wide characters, emoji, controls and spaces', () => {
  const piece = fc.constantFrom(
    'a',
    'bc ',
    '漢字',
    '👩‍💻',
    '\x1b[31m',
    '\x1b]0;title\x07',
    '\n\n',
    '      ',
    'é',
    '\u0301',
    '\t',
  );
  fc.assert(
    fc.property(fc.array(piece, { minLength: 0, maxLength: 600 }), fc.integer({ min: 1, max: 120 }), (pieces, width) => {
      const s = pieces.join('');
      expect(oneLineCut(s, width)).toBe(whole(s, width));
    }),
    { numRuns: 300 },
  );
});

it('a text whose start is all spaces and controls is measured whole', () => {
  const s = `${' '.repeat(5000)}${'\x1b[0m'.repeat(300)}the words`;
  expect(oneLineCut(s, 70)).toBe('the words');
});

it('a 5 MB text is cut as its whole would be', () => {
  const s = `${'word '.repeat(1_000_000)}end`;
  expect(oneLineCut(s, 70)).toBe(whole(s, 70));
  expect(oneLineCut(s, 70).endsWith('…')).toBe(true);
});
