/**
 * A tool's name in the Markdown export (and the `markdown` context format) is inline code that shows
 * the name as written, backticks in it or at its end included (CommonMark's code spans: a longer
 * fence, a space of padding). It went out as `name`: a name ending in a backtick closed the span early
 * and left a stray backtick, one holding two in a row ended it in the middle. Rendered by marked.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeSpan, partToMarkdown } from '../../src/convert/markdown.js';
import { sessionToMarkdown } from '../../src/export/index.js';
import type { Session } from '../../src/model/types.js';

const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };

const unescaped = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The text of every code span marked renders in `md`, in order. */
const codeSpans = (md: string) => [...marked.parse(md).matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => unescaped(m[1] ?? ''));

const call = (name: string) => ({ type: 'tool_call' as const, id: 'call_1', name, input: { a: 1 } });

describe('Markdown: a tool name as inline code', () => {
  it.each(['run`', '`run', 'a``b', '`', ' spaced ', 'mcp__x__y', 'a `b` c'])('shows %j as written', (name) => {
    const md = partToMarkdown(call(name));
    expect(codeSpans(md.split('\n')[0] ?? '')).toEqual([name]);
    // the head is one line, ending with the call's id: nothing of the name ran out of the span
    expect(md.split('\n')[0]).toMatch(/ \(call_1\)$/);
  });

  it('any name of backticks, spaces and letters is shown as written (line breaks as spaces)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', ' ', 'a', '\n'), minLength: 1, maxLength: 12 }), (name) => {
        const shown = name.replace(/\n/g, ' ');
        // a name of spaces alone: a renderer may show it as an empty span; anything else exactly
        fc.pre(/[^ ]/.test(shown));
        expect(codeSpans(`x ${codeSpan(name)} y`)).toEqual([shown]);
      }),
    );
  });

  it('the session export shows the name as written', () => {
    const session: Session = {
      id: 's-tick',
      source: 'threadbase',
      createdAt: '2026-11-26T10:00:00.000Z',
      updatedAt: '2026-11-26T10:00:01.000Z',
      messageCount: 1,
      entries: [
        {
          id: 'a1',
          parentId: null,
          timestamp: '2026-11-26T10:00:01.000Z',
          kind: 'message',
          message: { role: 'assistant', parts: [call('shell`')] },
        },
      ],
    };
    const line = sessionToMarkdown(session)
      .split('\n')
      .find((l) => l.startsWith('**tool call**'));
    expect(codeSpans(line ?? '')).toEqual(['shell`']);
  });
});
