/**
 * The Markdown export shows names as written: a file's name and media type, a tool call's id (on the
 * call and on its result), the session's id and project. They went out bare, so `a*b_[c].md` rendered
 * as emphasis and a link and an id holding a backtick opened a code span that ate the rest of the
 * line. Rendered by marked, and as property: any name of Markdown's characters reads back as written.
 */
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextToMarkdown, markdownLiteral } from '../../src/convert/markdown.js';
import { sessionToMarkdown } from '../../src/export/index.js';
import type { Session } from '../../src/model/types.js';

const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };

/** The text a reader sees of rendered HTML: its tags dropped, entities read. */
const shownText = (html: string) =>
  html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
/** The elements marked made of a line: none but the paragraph's, for a name shown as written. */
const elementsOf = (html: string) => [...html.matchAll(/<([a-z][a-z0-9]*)/g)].map((m) => m[1]);

const FILE = 'a*b_[c].md';
const CALL = 'call`1*x_[y]<b>&amp;~~z~~|';
const ID = 's*1*_[x](y)`';
const PROJECT = '/w/_my*app_/';

const session: Session = {
  id: ID,
  source: 'threadbase',
  title: 'names',
  project: PROJECT,
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:02.000Z',
  messageCount: 3,
  entries: [
    {
      id: 'u1',
      parentId: null,
      timestamp: '2026-11-20T10:00:00.000Z',
      kind: 'message',
      message: {
        role: 'user',
        parts: [
          { type: 'text', text: 'read this' },
          { type: 'file', name: FILE, mediaType: 'text/x-*weird*', text: 'body' },
        ],
      },
    },
    {
      id: 'a1',
      parentId: 'u1',
      timestamp: '2026-11-20T10:00:01.000Z',
      kind: 'message',
      message: { role: 'assistant', parts: [{ type: 'tool_call', id: CALL, name: 'Read', input: { path: FILE } }] },
    },
    {
      id: 't1',
      parentId: 'a1',
      timestamp: '2026-11-20T10:00:02.000Z',
      kind: 'message',
      message: { role: 'tool', parts: [{ type: 'tool_result', callId: CALL, content: 'ok' }] },
    },
  ],
};

/** The rendered line of the export that starts with `start`. */
const lineOf = (md: string, start: string) => {
  const line = md.split('\n').find((l) => l.startsWith(start));
  if (line === undefined) throw new Error(`no line starting ${start} in\n${md}`);
  return marked.parse(line);
};

describe('Markdown export: names as written', () => {
  const md = sessionToMarkdown(session);

  it("a file's name and media type", () => {
    const html = lineOf(md, '📎');
    expect(shownText(html).trim()).toBe(`📎 ${FILE} (text/x-*weird*)`);
    expect(elementsOf(html)).toEqual(['p']);
  });

  it("a tool call's id, on the call and on its result", () => {
    const call = lineOf(md, '**tool call**');
    expect(shownText(call).trim()).toBe(`tool call Read (${CALL})`);
    expect(elementsOf(call)).toEqual(['p', 'strong', 'code']);
    const result = lineOf(md, '**tool result**');
    expect(shownText(result).trim()).toBe(`tool result (${CALL})`);
    expect(elementsOf(result)).toEqual(['p', 'strong']);
  });

  it("the session's id and project", () => {
    expect(shownText(lineOf(md, '- id:')).trim()).toBe(`id: ${ID}`);
    expect(elementsOf(lineOf(md, '- id:'))).toEqual(['ul', 'li']);
    expect(shownText(lineOf(md, '- project:')).trim()).toBe(`project: ${PROJECT}`);
    expect(elementsOf(lineOf(md, '- project:'))).toEqual(['ul', 'li']);
  });

  it("a model's name, in a response's heading and in a model change", () => {
    const MODEL = '_my*model_';
    const withModel: Session = {
      ...session,
      entries: [
        ...session.entries,
        { id: 'mc', parentId: 't1', timestamp: '2026-11-20T10:00:03.000Z', kind: 'model_change', model: MODEL },
        {
          id: 'a2',
          parentId: 'mc',
          timestamp: '2026-11-20T10:00:04.000Z',
          kind: 'message',
          message: { role: 'assistant', model: MODEL, parts: [{ type: 'text', text: 'hi' }] },
        },
      ],
    };
    const out = sessionToMarkdown(withModel);
    const change = lineOf(out, '_model changed');
    expect(shownText(change).trim()).toBe(`model changed to ${MODEL}`);
    expect(elementsOf(change)).toEqual(['p', 'em']);
    const heading = lineOf(out, '## assistant (\\_');
    expect(shownText(heading).trim()).toBe(`assistant (${MODEL})`);
    expect(elementsOf(heading)).toEqual(['h2']);
  });

  it('the context as Markdown (context --format markdown) writes them as written too', () => {
    const ctx = contextToMarkdown({
      messages: session.entries.flatMap((e) => (e.kind === 'message' ? [{ ...e.message, model: '_my*model_' }] : [])),
    });
    expect(shownText(lineOf(ctx, '📎')).trim()).toBe(`📎 ${FILE} (text/x-*weird*)`);
    expect(shownText(lineOf(ctx, '**tool call**')).trim()).toBe(`tool call Read (${CALL})`);
    expect(elementsOf(lineOf(ctx, '**tool result**'))).toEqual(['p', 'strong']);
    expect(shownText(lineOf(ctx, '## assistant')).trim()).toBe('assistant (_my*model_)');
  });

  it('plain ids stay as they were (an underscore within a word opens no emphasis)', () => {
    expect(markdownLiteral('toolu_01AbC')).toBe('toolu_01AbC');
    expect(markdownLiteral('call_1')).toBe('call_1');
  });

  it('any name of Markdown characters reads back as written, in a paragraph of nothing else', () => {
    const unit = fc.constantFrom(
      '*',
      '_',
      '`',
      '[',
      ']',
      '(',
      ')',
      '<',
      '>',
      '&',
      ';',
      '~',
      '|',
      '!',
      '\\',
      '#',
      'a',
      '1',
      ' ',
      '.',
      ':',
    );
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 16 }), (name) => {
        const html = marked.parse(`name: ${markdownLiteral(name)}`);
        expect(shownText(html).trim()).toBe(`name: ${name.trim()}`.trim());
        expect(elementsOf(html)).toEqual(['p']);
      }),
      { numRuns: 500 },
    );
  });
});
