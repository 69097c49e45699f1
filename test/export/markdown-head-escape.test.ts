/**
 * The Markdown export writes the session's own values as written: a model's name in a turn's heading
 * and in the head's list, the project's path, the unpriced models, the id and a model change, as it writes the title
 * and the turns (markdownText). They went out raw, so a renderer drew a path or a model name holding
 * HTML as HTML (a model '<x>' showed as 'assistant ()'), and a line break in a path ended its list
 * item. Rendered by marked.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { sessionToMarkdown } from '../../src/export/index.js';

const { marked } = createRequire(import.meta.url)('marked') as { marked: { parse(md: string): string } };

describe('Markdown export: the session’s own values as written', () => {
  it('a project path, model and id holding HTML are text, not HTML', () => {
    const tag = '<img src=x onerror=alert(1)>';
    const md = sessionToMarkdown({
      id: `id${tag}`,
      source: 'threadbase',
      project: `/tmp/${tag}\nsecond line`,
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:00:01.000Z',
      messageCount: 2,
      entries: [
        {
          id: 'u1',
          parentId: null,
          timestamp: '2026-11-20T10:00:00.000Z',
          kind: 'message',
          message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        },
        {
          id: 'a1',
          parentId: 'u1',
          timestamp: '2026-11-20T10:00:01.000Z',
          kind: 'message',
          message: {
            role: 'assistant',
            model: `m${tag}`,
            usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
            parts: [{ type: 'text', text: 'hello' }],
          },
        },
        { id: 'mc', parentId: 'a1', timestamp: '2026-11-20T10:00:02.000Z', kind: 'model_change', model: `n${tag}` },
      ],
    });
    const html = marked.parse(md);
    expect(html).not.toContain('<img');
    expect(html).toContain('<li>project: /tmp/&lt;img src=x onerror=alert(1)&gt; second line</li>');
    expect(html).toContain('<h2>assistant (m&lt;img src=x onerror=alert(1)&gt;)</h2>');
    expect(html).toContain('<li>id: id&lt;img src=x onerror=alert(1)&gt;</li>');
    expect(html).toContain('<p><em>model changed to n&lt;img src=x onerror=alert(1)&gt;</em></p>');
    expect(html).toMatch(/<li>models: m&lt;img src=x onerror=alert\(1\)&gt;<\/li>/);
    expect(html).toMatch(/<li>not in the cost \(no price known\): m&lt;img src=x onerror=alert\(1\)&gt;<\/li>/);
  });
});
