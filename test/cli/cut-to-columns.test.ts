/**
 * cutToColumns measures a grapheme at a time and stops at the cut, yet cuts where measuring the whole
 * text with string-width says: at whole graphemes, the longest start that leaves a column for '…'.
 */
import fc from 'fast-check';
import stringWidth from 'string-width';
import { expect, it } from 'vitest';
import { cutToColumns } from '../../src/cli/text-width.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The cut as its definition reads: the whole text's width, then graphemes while their widths fit
 * (one by one: an escape sequence's letters count there, as they did before).
 */
function cutByDefinition(s: string, width: number): string {
  if (stringWidth(s) <= width) return s;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(s)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

const piece = fc.constantFrom(
  'a',
  'bc ',
  'word ',
  '漢字',
  '→',
  'λ',
  '👩‍💻',
  '🇩🇪',
  'é',
  'e\u0301',
  '\u0301',
  '\u200b',
  '\x1b[31m',
  '\t',
);

it('cuts where the whole text measured by string-width says, for texts of any script', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 80 }), fc.integer({ min: -1, max: 90 }), (pieces, width) => {
      const s = pieces.join('');
      const cut = cutToColumns(s, width);
      expect(cut).toBe(cutByDefinition(s, width));
      if (width >= 1 && !s.includes('\x1b')) expect(stringWidth(cut)).toBeLessThanOrEqual(width);
    }),
    { numRuns: 2000 },
  );
});

it('a long ASCII start is cut without measuring the rest', () => {
  const s = `${'x'.repeat(100)}${'漢'.repeat(10)}`;
  expect(cutToColumns(s, 10)).toBe(`${'x'.repeat(9)}…`);
  expect(cutToColumns(s, 100)).toBe(`${'x'.repeat(99)}…`);
  expect(cutToColumns(s, 120)).toBe(s);
  // 100 + 9 × 2 columns and the '…'
  expect(cutToColumns(s, 119)).toBe(`${'x'.repeat(100)}${'漢'.repeat(9)}…`);
});
