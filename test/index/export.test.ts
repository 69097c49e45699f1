import { describe, expect, it } from 'vitest';
import { sessionToHtml, sessionToMarkdown } from '../../src/export/index.js';
import type { Entry, Session } from '../../src/model/types.js';
import { sampleSession } from '../conformance/driver-suite.js';

function branched(): Session {
  const s = sampleSession();
  const first = s.entries[1] as Entry;
  s.entries.push({
    kind: 'message',
    id: 'branch-entry-1',
    parentId: first.id,
    timestamp: '2030-01-01T00:00:00.000Z',
    message: { role: 'user', parts: [{ type: 'text', text: 'the other road <b>not bold</b>' }] },
  });
  s.leafId = 'branch-entry-1';
  return s;
}

describe('export renderers', () => {
  it('html shows the current branch, the branch tree, images inline and escapes text', () => {
    const html = sessionToHtml(branched());
    expect(html).toContain('Branch tree: 2 branches');
    expect(html).toContain('the other road &lt;b&gt;not bold&lt;/b&gt;');
    expect(html).not.toContain('<b>not bold</b>');
    expect(html).toMatch(/<img alt="image" src="data:image\/png;base64,iVBOR/);
    // the tool result of the abandoned branch is not on the current path
    expect(html).not.toContain('quokka.txt</pre>');
    expect(html).toContain('Usage:');
  });

  it('markdown lists facts and the branches', () => {
    const md = sessionToMarkdown(branched());
    expect(md).toMatch(/^# Conformance \d+/);
    expect(md).toContain('## Branches');
    expect(md).toContain('- tokens: input 130, output 65');
  });
});
