/**
 * The Markdown export keeps the blocks a renderer makes of the text, code as code, and shows the
 * rest as written: a raw HTML block (escaped, a paragraph of text) takes no lazy line and no line
 * after its end, so the code the raw text has after it stays code; a GFM table's cells are escaped
 * each, as the renderer splits a row at its pipes before it reads code spans, and indented code
 * after a table stays code; a link reference definition shows instead of vanishing; an autolink is
 * a link; a `<` or `&` a backslash escapes shows as written; a title of several lines is one heading.
 * Rendered by marked (the GFM renderer the property in markdown-escape.test.ts renders with).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { sessionToMarkdown } from '../../src/export/index.js';
import { markdownHeading, markdownText } from '../../src/export/markdown-escape.js';
import type { Entry, Session } from '../../src/model/types.js';

const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };
const render = (text: string) => marked.parse(markdownText(text));
const codeBlocks = (html: string) => [...html.matchAll(/<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) => m[1]);
/** The tags of rendered Markdown that are no element of Markdown's own (a tag of the text drawn as HTML). */
const foreignElements = (html: string) =>
  [...html.matchAll(/<([a-z][a-z0-9-]*)/g)]
    .map((m) => m[1])
    .filter((t) => !/^(p|pre|code|ul|ol|li|h[1-6]|blockquote|hr|em|strong|br|a|table|thead|tbody|tr|th|td)$/.test(t as string));

describe('a raw HTML block in the text, escaped', () => {
  it.each([
    // the quote's <div> takes no lazy line: the raw text's quote ends and the indented line is code
    ['> <div>\n    <code after=quote>', '&lt;code after=quote&gt;\n'],
    ['> - <div class="x">\n<!-- c -->\n    <code after=list>', '&lt;code after=list&gt;\n'],
    // a comment (and <pre>, <script>, <?, <!X) ends at its end: the indented line after it is code
    ['<!-- note -->\n    <code after=comment>', '&lt;code after=comment&gt;\n'],
    ['> <!-- note -->\n>     <code in=quote>', '&lt;code in=quote&gt;\n'],
    ['<pre>\nx\n</pre>\n    <code after=pre>', '&lt;code after=pre&gt;\n'],
    // a comment interrupts a paragraph, lazy or not, as it does in the raw text
    ['text\n<!-- c -->\n    <code>', '&lt;code&gt;\n'],
    ['> quoted\n<!-- c -->\n    <code>', '&lt;code&gt;\n'],
  ])('keeps the code the raw text has after it: %j', (text, code) => {
    // the raw text's code, as marked renders it
    expect(codeBlocks(marked.parse(text))).toEqual([code]);
    const html = render(text);
    expect(codeBlocks(html)).toEqual([code]);
    expect(foreignElements(html)).toEqual([]);
  });

  it('shows the HTML block as text and leaves lines that go on in it as they are', () => {
    expect(markdownText('> <div>\n    code')).toBe('> &lt;div>\n\n    code');
    expect(markdownText('<!-- c -->\nnext')).toBe('&lt;!-- c -->\n\nnext');
    // a <div> goes on to a blank line: its lines are the paragraph's
    expect(markdownText('- <div>\n    in the item')).toBe('- &lt;div>\n    in the item');
    expect(markdownText('<div>\n    not code\n</div>')).toBe('&lt;div>\n    not code\n&lt;/div>');
  });
});

describe('a paragraph line indented four past a list item', () => {
  it('goes out unindented: marked took it for code that took the blank and code lines after it for text, tags and all', () => {
    const text = '- step\n      wrapped <b>\n\n      <x-y a="1">';
    // CommonMark: the indented line is the paragraph's, the one after the blank line code
    expect(markdownText(text)).toBe('- step\n  wrapped &lt;b>\n\n      <x-y a="1">');
    const html = render(text);
    expect(codeBlocks(html)).toEqual(['&lt;x-y a=&quot;1&quot;&gt;\n']);
    expect(foreignElements(html)).toEqual([]);
    // one that would start a block unindented keeps a backslash before it
    expect(markdownText('1. a\n       - b\n       --')).toBe('1. a\n   \\- b\n   \\--');
    expect(render('1. a\n       - b\n       --')).toBe('<ol>\n<li>a\n- b\n--</li>\n</ol>\n');
  });
});

describe('GFM tables', () => {
  it('escapes each cell: a pipe in a code span ends the cell, the tag after it is no HTML', () => {
    const text = '| a | b | c |\n|---|---|---|\n| `<x>|<y>` | <i>z</i> |';
    // raw, the renderer draws the tags: the cells split at the pipe inside the backticks
    expect(foreignElements(marked.parse(text))).toEqual(['x', 'y', 'i']);
    const html = render(text);
    expect(foreignElements(html)).toEqual([]);
    expect(html).toContain('<td>`&lt;x&gt;</td>');
    expect(html).toContain('<td>&lt;y&gt;`</td>');
    // a pipe a backslash escapes stays in its cell, and in its code span
    expect(render('a | b\n-|-\n`\\|<c>` | d')).toContain('<td><code>|&lt;c&gt;</code></td>');
  });

  it('keeps indented code after a table as code, as written', () => {
    const text = 'a | b\n--|--\n<c> | d\n    <code after="table"> &amp;';
    expect(codeBlocks(marked.parse(text))).toEqual(['&lt;code after=&quot;table&quot;&gt; &amp;amp;\n']);
    expect(codeBlocks(render(text))).toEqual(['&lt;code after=&quot;table&quot;&gt; &amp;amp;\n']);
    expect(render('> x\n> a | b\n> -|-\n>     <k>')).toContain('<pre><code>&lt;k&gt;\n</code></pre>');
  });

  it('a row that opens with an HTML block tag ends the table, as in the raw text; other rows are rows', () => {
    const html = render('a | b\n--|--\n<b>c</b> | d\n<div> | e');
    expect(html).toContain('<td>&lt;b&gt;c&lt;/b&gt;</td>');
    expect(html).toMatch(/<\/table>\n<p>&lt;div&gt; \| e<\/p>/);
  });
});

describe('link reference definitions', () => {
  it.each([
    ['[docs]: https://example.com/docs', '[docs]: '],
    ['> - [a\\]b]: /u "title"', '[a]b]: /u'],
    ['   [x]:\n   /on-the-next-line', '[x]:'],
  ])('shows one as written instead of dropping it: %j', (text, shown) => {
    // raw, the definition is gone
    expect(marked.parse(text)).not.toContain(shown);
    expect(render(text)).toContain(shown);
  });

  it('leaves a line that is no definition as it is', () => {
    expect(markdownText('see [docs]: here')).toBe('see [docs]: here');
    expect(markdownText('para\n[x]: /u')).toBe('para\n[x]: /u');
  });
});

describe('autolinks', () => {
  it('keeps an autolink a link to its address, the `>` not in it', () => {
    const html = render('see <https://example.com/a?b=1&c=2> or <mailto:a@b.c> or <a@b.c>');
    expect(html).toContain('<a href="https://example.com/a?b=1&c=2">https://example.com/a?b=1&amp;c=2</a>');
    expect(html).toContain('<a href="mailto:a@b.c">mailto:a@b.c</a>');
    expect(html).toContain('<a href="mailto:a@b.c">a@b.c</a>');
    expect(html).not.toContain('%3E');
  });

  it('shows another scheme, and one in code, as written', () => {
    expect(markdownText('<javascript:alert(1)> `<https://x.y>`')).toBe('&lt;javascript:alert(1)> `<https://x.y>`');
    expect(render('<javascript:alert(1)>')).toBe('<p>&lt;javascript:alert(1)&gt;</p>\n');
  });
});

describe('a backslash before `<` or `&`', () => {
  it('shows them as written: the backslash escapes them already', () => {
    expect(markdownText('\\<b> \\&amp; \\\\<i>')).toBe('\\<b> \\&amp; \\\\&lt;i>');
    expect(render('\\<b> \\&amp; \\\\<i>')).toBe('<p>&lt;b&gt; &amp;amp; \\&lt;i&gt;</p>\n');
  });
});

function sessionTitled(title: string, subAgentTitle?: string): [Session, Parameters<typeof sessionToMarkdown>[1]] {
  const at = '2026-11-26T10:00:00.000Z';
  const entry = (id: string, parentId: string | null, message: Extract<Entry, { kind: 'message' }>['message']): Entry => ({
    kind: 'message',
    id,
    parentId,
    timestamp: at,
    message,
  });
  const session = (id: string, t: string, entries: Entry[]): Session => ({
    id,
    source: 'claude',
    title: t,
    createdAt: at,
    updatedAt: at,
    messageCount: entries.length,
    entries,
    leafId: entries.at(-1)?.id ?? null,
  });
  const parent = session('parent', title, [
    entry('u1', null, { role: 'user', parts: [{ type: 'text', text: 'go' }] }),
    entry('a1', 'u1', { role: 'assistant', parts: [{ type: 'tool_call', id: 'call1', name: 'Task', input: {} }] }),
    entry('r1', 'a1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'call1', content: 'done' }] }),
  ]);
  if (subAgentTitle === undefined) return [parent, {}];
  const child = session('child', subAgentTitle, [
    entry('c1', null, { role: 'user', parts: [{ type: 'text', text: 'sub' }] }),
    entry('c2', 'c1', { role: 'assistant', parts: [{ type: 'text', text: 'ok' }] }),
  ]);
  return [parent, { subAgents: new Map([['call1', { session: child, subAgents: new Map() }]]) }];
}

describe('a title of several lines', () => {
  it('is one heading, its lines a space apart, escaped as text', () => {
    const [s] = sessionTitled('Fix <div> markup\n    indented <b>second</b> line\n- third #');
    const md = sessionToMarkdown(s);
    const html = marked.parse(md);
    expect(html).toContain('<h1>Fix &lt;div&gt; markup indented &lt;b&gt;second&lt;/b&gt; line - third #</h1>');
    expect(codeBlocks(html).filter((c) => c?.includes('second'))).toEqual([]);
    expect(html).not.toContain('<li>third');
  });

  it('a closing run of # stays in the heading', () => {
    expect(markdownHeading('Issue #')).toBe('Issue \\#');
    expect(marked.parse(`# ${markdownHeading('#')}`)).toBe('<h1>#</h1>\n');
  });

  it("a sub-agent's title of several lines is one line in its fold and in the usage list, its tags text", () => {
    const [s, opts] = sessionTitled('parent', 'Sub <x-tag>\n\nsecond');
    const md = sessionToMarkdown(s, opts);
    const html = marked.parse(md);
    expect(foreignElements(html).filter((t) => t !== 'details' && t !== 'summary')).toEqual([]);
    expect(html).toContain('<li>sub-agent: Sub &lt;x-tag&gt; second: ');
    expect(md).toContain('<details><summary>Sub-agent session: Sub &lt;x-tag&gt; second (claude');
  });
});
