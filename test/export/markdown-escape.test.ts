/**
 * The Markdown export shows text as written: a tag in it (Claude Code's `<system-reminder>`, a
 * `<div>` the user pasted) is no HTML for the renderer, an entity (`&amp;`) no character, while code
 * blocks and code spans stay verbatim (a renderer shows those as written already) and the Markdown
 * itself still renders. Before, the text went out raw: a renderer swallowed the reminder and drew the
 * div. Rendered by marked (a GFM renderer) and read back in chromium as a reader sees it.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionToMarkdown } from '../../src/export/index.js';
import { markdownText } from '../../src/export/markdown-escape.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { type Browser, launchBrowser, skipBrowser } from '../e2e/browser.js';

const REMINDER = '<system-reminder>\nThe date is 2026-11-26.\n</system-reminder>';
const USER_TEXT = `${REMINDER}\nPlease fix <div class="x">this</div> & keep &amp; as typed.\nUse \`<br>\` here.\n\n\`\`\`html\n<div>kept</div>\n&amp;\n\`\`\`\n\n**bold** stays bold.`;
const THINKING = 'Maybe a <details> element? Check `<tag>` use.';

function fixtureSession(): Session {
  const t = (s: number) => `2026-11-26T10:00:0${s}.000Z`;
  const msg = (id: string, parentId: string | null, s: number, message: Message): Entry => ({
    kind: 'message',
    id,
    parentId,
    timestamp: t(s),
    message,
  });
  const entries = [
    msg('u1', null, 1, { role: 'user', parts: [{ type: 'text', text: USER_TEXT }] }),
    msg('a1', 'u1', 2, {
      role: 'assistant',
      parts: [
        { type: 'thinking', thinking: THINKING },
        { type: 'text', text: 'Done: replaced <div> with <section>.' },
      ],
    }),
  ];
  return {
    id: 'tags-session',
    source: 'claude',
    title: 'Fix <div> markup',
    createdAt: t(1),
    updatedAt: t(2),
    messageCount: 2,
    entries,
    leafId: 'a1',
  };
}

describe('markdownText', () => {
  it('escapes a tag and an entity, keeps Markdown and plain & as they are', () => {
    expect(markdownText('<system-reminder>x</system-reminder> & **b** &amp; &#60; a>b')).toBe(
      '&lt;system-reminder>x&lt;/system-reminder> & **b** &amp;amp; &amp;#60; a>b',
    );
  });

  it('keeps fenced code verbatim: backticks, tildes, a longer closing fence, an unclosed fence', () => {
    expect(markdownText('a <b>\n```\n<div>&amp;\n```\n<i>')).toBe('a &lt;b>\n```\n<div>&amp;\n```\n&lt;i>');
    expect(markdownText('~~~~\n<x>\n~~~\n<y>\n~~~~~\n<z>')).toBe('~~~~\n<x>\n~~~\n<y>\n~~~~~\n&lt;z>');
    expect(markdownText('```js\n<x>\n``` not a close\n<y>')).toBe('```js\n<x>\n``` not a close\n<y>');
  });

  it('keeps inline code verbatim; a backtick with no match is text', () => {
    expect(markdownText('use `<br>` and ``a ` <b>`` then <c>')).toBe('use `<br>` and ``a ` <b>`` then &lt;c>');
    expect(markdownText('a ` <b>')).toBe('a ` &lt;b>');
    // a code span ends with its paragraph
    expect(markdownText('a ` <b>\n\n<c> `')).toBe('a ` &lt;b>\n\n&lt;c> `');
  });

  it('a backslash before a backtick escapes it: no code span opens there, the tag after it is escaped', () => {
    expect(markdownText('\\`<b>\\` and `<kept>`')).toBe('\\`&lt;b>\\` and `<kept>`');
    // the run's other backticks still open one
    expect(markdownText('\\``<c>` <d>')).toBe('\\``<c>` &lt;d>');
    expect(markdownText('\\\\`<e>`')).toBe('\\\\`<e>`');
  });
});

// marked: the GFM renderer pi's TUI depends on, which passes raw HTML through as GitHub's does
const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };
/** The code blocks of rendered Markdown, as the renderer wrote them. */
const codeBlocks = (html: string) => [...html.matchAll(/<pre><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) => m[1]);
/** The elements of rendered Markdown, by tag name. */
const elements = (html: string) => new Set([...html.matchAll(/<([a-z][a-z0-9-]*)/g)].map((m) => m[1]));

/** Text with code indented four spaces or a tab (not fenced): its lines are code as written, tags and entities too. */
const INDENTED = [
  'Run this:\n\n    <div class="x">&amp; a\\b</div>\n    if (a < b && c) {}\n\nthen <b>done</b>',
  '\t<tab> &amp;\n\n\tstill code <i>\n\nafter <em>',
  '# Heading\n    <code after="heading">',
  '```\nfenced <f>\n```\n    <code after="fence">',
  '- item <i>\n\n    paragraph of the item <b>\n\n        <code in="item">\n\nout of the list <d>',
  '1. one\n\n   - nested\n\n     nested paragraph <e>\n\n         <code in="nested">\n\n   back in one <g>\n\n       <code in="one">',
  '10.   wide marker <w>\n\n    <code after="a list it ended">',
];

describe('indented code in the Markdown export', () => {
  it('keeps an indented code block verbatim; an indented line inside a paragraph is text', () => {
    expect(markdownText('a <b>\n\n    <div>&amp;\n\n    <x>\n\n<i>')).toBe('a &lt;b>\n\n    <div>&amp;\n\n    <x>\n\n&lt;i>');
    expect(markdownText('\t<t>\n  <u>')).toBe('\t<t>\n  &lt;u>');
    // no blank line before it: a paragraph's continuation, not code
    expect(markdownText('para\n    <not code>')).toBe('para\n    &lt;not code>');
    // in a list item the code is indented four past the item's content
    expect(markdownText('- x\n\n    <para>\n\n      <code>')).toBe('- x\n\n    &lt;para>\n\n      <code>');
  });

  it('after a line of the caller (`# title`, `> error:`) the first line is no code block', () => {
    expect(markdownText('    <b> title', 'inline')).toBe('    &lt;b> title');
    expect(markdownText('    <b> text')).toBe('    <b> text');
  });

  it.each(INDENTED)('rendered by marked, its code is the text as written and no tag of the text is HTML: %j', (text) => {
    const escaped = marked.parse(markdownText(text));
    // the raw text's code blocks as the renderer shows them: it escapes code itself
    expect(codeBlocks(escaped)).toEqual(codeBlocks(marked.parse(text)));
    expect(codeBlocks(escaped).length).toBeGreaterThan(0);
    expect(codeBlocks(escaped).join('')).not.toContain('&amp;lt;');
    // the text's own tags are text: only the renderer's elements
    expect([...elements(escaped)].filter((t) => !/^(p|pre|code|ul|ol|li|h1)$/.test(t))).toEqual([]);
  });

  it('a session exported to Markdown shows indented code as written, the title as text', () => {
    const session = fixtureSession();
    const md = sessionToMarkdown({
      ...session,
      title: '    <b>indented</b> title',
      entries: session.entries.map((e) =>
        e.kind === 'message' && e.id === 'a1'
          ? { ...e, message: { ...e.message, parts: [{ type: 'text', text: INDENTED[0] as string }] } }
          : e,
      ),
    });
    const html = marked.parse(md);
    expect(codeBlocks(html)).toContain(codeBlocks(marked.parse(INDENTED[0] as string))[0]);
    expect(html).toContain('<h1>&lt;b&gt;indented&lt;/b&gt; title</h1>');
  });
});

/** Code in block quotes and list items, where a renderer finds it (CommonMark's containers): each once escaped as text. */
const CONTAINED = [
  // a quote's indented code (four past its `> `), a fence in a quote, a quote opening on indented code; a lazy line is text
  '> quoted <q>\n>\n>     <code in="quote"> &amp;\n\n> ```\n> <fenced in="quote">\n> ```\n\n>     <code opening="quote">\n\n> para <p>\n    <lazy not="code">',
  // a fence indented four in an item is the item's fence
  '- item <i>\n\n    ~~~\n    <tilde in="item">\n    ~~~\n\n1.  one <o>\n\n    ```\n    <fenced in="item" a=`b`>\n    ```',
  // a heading or a thematic break ends a list without a blank line: the code after them is at the top
  '- a <a>\n# heading <h>\n    <code after="heading">',
  '- a\n  - b <b>\n---\n    <code after="break">',
  // quotes and items nested: code four past the innermost content
  '> - item <i>\n>\n>       <code in="item in quote">\n>\n>   > inner <n>\n>   >\n>   >     <code in="quote in item">',
];

/** The elements of the renderer's own Markdown: any other is a tag of the text. */
const MARKDOWN_ELEMENTS = /^(p|pre|code|ul|ol|li|h[1-6]|blockquote|hr|em|strong|br|a|table|thead|tbody|tr|th|td)$/;

describe('code in block quotes and list items in the Markdown export', () => {
  it.each(CONTAINED)('rendered by marked, its code is the text as written and no tag of the text is HTML: %j', (text) => {
    const escaped = marked.parse(markdownText(text));
    expect(codeBlocks(escaped)).toEqual(codeBlocks(marked.parse(text)));
    expect(codeBlocks(escaped).length).toBeGreaterThan(0);
    expect(codeBlocks(escaped).join('')).not.toContain('&amp;lt;');
    expect([...elements(escaped)].filter((t) => !MARKDOWN_ELEMENTS.test(t))).toEqual([]);
  });

  // Generated mixes of paragraphs, fences, indented code, quotes and list items, nested (their last line lazy at times),
  // GFM tables, raw HTML blocks with lines after them, with tags, entities, autolinks, escapes and link definitions in
  // text and code. Compared with the raw text's rendering: the escaped text has its blocks, an HTML block a paragraph.
  // Tabs only at the top: marked counts a tab after `>` or an item's marker unlike CommonMark.
  it('keeps every code block of generated Markdown verbatim and escapes every tag outside code', () => {
    const word = fc.constantFrom(
      'text',
      '<div>',
      '</div>',
      '<b>x</b>',
      '<x-y a="1">',
      '&amp;',
      '&lt;',
      'a & b',
      '`<i>`',
      '**bold**',
      'if (a < b)',
      '<https://e.com/?a=1&b=2>',
      '<a@b.c>',
      '\\<b>',
      '\\&amp;',
      '`x|<p>`',
      '[r]: /u',
      '<!-- c -->',
    );
    const line = fc.array(word, { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
    /** Blocks (nested ones as their lines): blocks in a container are a blank line apart. */
    const joined = (blocks: string[][]) => blocks.flatMap((b, k) => [...(k ? [''] : []), ...b]);
    const headerWord = fc.constantFrom('text', '**bold**', '&amp;', '`<i>`', 'a & b', 'if (a < b)');
    const indentedLine = fc.tuple(fc.constantFrom('', '    '), line).map(([indent, l]) => indent + l);
    const { block } = fc.letrec<{ block: string[] }>((tie) => ({
      block: fc.oneof(
        { depthSize: 'small' },
        fc.array(line, { minLength: 1, maxLength: 2 }),
        // a raw HTML block a blank line ends and lines of it, or one its line ends and lines after it, code when indented
        fc
          .tuple(fc.constantFrom('<div>', '<x-y a="1">', '</p>'), fc.array(indentedLine, { maxLength: 2 }))
          .map(([html, lines]) => [html, ...lines]),
        fc
          .tuple(
            fc.constantFrom('<!-- c -->', '<pre>x</pre>'),
            fc.oneof(
              fc.array(
                line.map((l) => `    ${l}`),
                { maxLength: 2 },
              ),
              line.map((l) => [l]),
            ),
          )
          .map(([html, lines]) => [html, ...lines]),
        // a GFM table, indented code right after it at times. Its header of words with no pipe and no tag: one that is
        // no table's (more cells than the delimiter's, an HTML block) marked reads as a paragraph past blank lines
        fc
          .tuple(
            fc.constantFrom('--|--', '| --- | :-: |'),
            fc.tuple(headerWord, headerWord),
            fc.array(fc.tuple(line, line), { maxLength: 2 }),
            fc.option(line.map((l) => `    ${l}`)),
          )
          .map(([delimiter, header, rows, code]) => [
            header.join(' | '),
            delimiter,
            ...rows.map((r) => r.join(' | ')),
            ...(code === null ? [] : [code]),
          ]),
        fc
          .tuple(fc.constantFrom('```', '~~~', '````'), fc.array(line, { maxLength: 2 }))
          .map(([fence, lines]) => [fence, ...lines, fence]),
        fc
          .tuple(fc.constantFrom('    ', '      '), fc.array(line, { minLength: 1, maxLength: 2 }))
          .map(([indent, lines]) => lines.map((l) => indent + l)),
        fc.array(tie('block'), { minLength: 1, maxLength: 2 }).map((bs) => joined(bs).map((l) => (l ? `> ${l}` : '>'))),
        fc
          .tuple(fc.constantFrom('- ', '* ', '1. ', '10) ', '-   '), fc.array(tie('block'), { minLength: 1, maxLength: 2 }))
          .map(([marker, bs]) => joined(bs).map((l, k) => (k === 0 ? marker + l : l ? ' '.repeat(marker.length) + l : ''))),
      ),
    }));
    // a quote's line and a line with no `>` after it: lazy, or (after an HTML block) the line after the quote. Last
    // in the text: marked, unlike CommonMark, takes an indented line after a quote's HTML block for the quote's code
    const lazyAfterQuote = fc
      .tuple(fc.constantFrom('<div>', '<!-- c -->', 'text <b>', '<x-y a="1">'), indentedLine)
      .map(([quoted, after]) => [`> ${quoted}`, after]);
    const topTabCode = fc.array(line, { minLength: 1, maxLength: 2 }).map((lines) => lines.map((l) => `\t${l}`));
    const text = fc
      .tuple(fc.array(fc.oneof(block, topTabCode), { minLength: 1, maxLength: 3 }), fc.option(lazyAfterQuote))
      .map(([blocks, last]) => [...blocks, ...(last ? [last] : [])].map((b) => b.join('\n')).join('\n\n'));
    fc.assert(
      fc.property(text, (t) => {
        const escaped = marked.parse(markdownText(t));
        expect(codeBlocks(escaped)).toEqual(codeBlocks(marked.parse(t)));
        expect([...elements(escaped)].filter((e) => !MARKDOWN_ELEMENTS.test(e))).toEqual([]);
        // no link definition of the text vanishes: it shows where text with no definition in it shows it
        const definitions = (html: string) => html.match(/\[r\]\\?:/g)?.length ?? 0;
        expect(definitions(escaped)).toBe(definitions(marked.parse(t.replaceAll('[r]:', '[r]\\:'))));
      }),
      { numRuns: 500 },
    );
  });
});

describe.skipIf(skipBrowser)('the Markdown export of text holding tags, rendered', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the tags as written and the code as written', async () => {
    const md = sessionToMarkdown(fixtureSession());
    const { page } = browser;
    await page.setContent(`<body>${marked.parse(md)}</body>`);
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain('Fix <div> markup');
    expect(text).toContain('<system-reminder>');
    expect(text).toContain('</system-reminder>');
    expect(text).toContain('Please fix <div class="x">this</div> & keep &amp; as typed.');
    expect(text).toContain('replaced <div> with <section>.');
    // no element of the text's tags: they are text
    await expect(page.locator('system-reminder, section, body > div, p div').count()).resolves.toBe(0);
    // the code block and span as written, and the Markdown rendered
    await expect(page.locator('pre code').textContent()).resolves.toBe('<div>kept</div>\n&amp;\n');
    await expect(page.locator('code', { hasText: '<br>' }).count()).resolves.toBe(1);
    await expect(page.locator('strong', { hasText: 'bold' }).count()).resolves.toBe(1);
    // the thinking folded, its tag text
    const thinking = page.locator('details', { has: page.locator('summary:text-is("thinking")') });
    await expect(thinking.textContent()).resolves.toContain('Maybe a <details> element?');
    await expect(page.locator('details details').count()).resolves.toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
