import { describe, expect, it } from 'vitest';
import { prefixOf, truncate } from '../../src/model/text.js';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('prefixOf and truncate', () => {
  it('keep short text as it is and cut plain text at the limit', () => {
    expect(prefixOf('hello', 10)).toBe('hello');
    expect(prefixOf('abcdefghij', 4)).toBe('abcd');
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
    expect(truncate('abcde', 5)).toBe('abcde');
    expect(prefixOf('abc', 0)).toBe('');
  });

  it('never cut a surrogate pair in half', () => {
    // the emoji's two UTF-16 units sit at 78 and 79: a plain slice(0, 79) keeps the high half alone
    const text = `${'a'.repeat(78)}😀${'b'.repeat(20)}`;
    expect(LONE.test(text.slice(0, 79))).toBe(true);
    const t = truncate(text, 80);
    expect(LONE.test(t)).toBe(false);
    expect(t).toBe(`${'a'.repeat(78)}…`);
    expect(prefixOf(text, 80)).toBe(`${'a'.repeat(78)}😀`);
  });

  it('keep an emoji sequence and a combining accent whole', () => {
    const family = '👨‍👩‍👧'; // 8 UTF-16 units joined by ZWJ
    const text = `${'x'.repeat(10)}${family}tail`;
    for (let max = 11; max < 18; max++) expect(prefixOf(text, max)).toBe('x'.repeat(10));
    expect(prefixOf(text, 18)).toBe(`${'x'.repeat(10)}${family}`);
    const accented = 'cafe\u0301s'; // e + combining acute
    expect(prefixOf(accented, 4)).toBe('caf');
    expect(prefixOf(accented, 5)).toBe('cafe\u0301');
  });

  it('fall back to a code-point cut inside a cluster longer than the window', () => {
    const zalgo = `a${'\u0301'.repeat(100)}😀`;
    const p = prefixOf(`${'z'.repeat(5)}${zalgo}`, 60);
    expect(p.length).toBe(60);
    expect(LONE.test(p)).toBe(false);
    const pairs = '😀'.repeat(50); // no combining: every pair is its own grapheme
    expect(prefixOf(pairs, 41)).toBe('😀'.repeat(20));
  });
});
