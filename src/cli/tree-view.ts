/** Draws a session's entry tree as text, with the current leaf marked. */

import { prefixOf } from '../model/text.js';
import { currentLeaf, indexEntries, messageText } from '../model/tree.js';
import type { Entry, Session } from '../model/types.js';

export function describeEntry(e: Entry): string {
  const one = (s: string) => prefixOf(s.replace(/\s+/g, ' ').trim(), 70);
  switch (e.kind) {
    case 'message': {
      const m = e.message;
      const calls = m.parts.filter((p) => p.type === 'tool_call').map((p) => (p.type === 'tool_call' ? p.name : ''));
      const results = m.parts.filter((p) => p.type === 'tool_result').length;
      const text = one(messageText(m));
      const extra = [calls.length ? `calls ${calls.join(',')}` : '', results ? `${results} result(s)` : '']
        .filter(Boolean)
        .join('; ');
      return `${m.role}: ${text}${extra ? ` [${extra}]` : ''}`;
    }
    case 'compaction':
      return `compaction: ${one(e.summary)}`;
    case 'branch_summary':
      return `branch summary: ${one(e.summary)}`;
    case 'model_change':
      return `model: ${[e.provider, e.model, e.thinkingLevel].filter(Boolean).join(' ')}`;
    case 'label':
      return `label ${e.targetId}: ${e.label ?? '(cleared)'}`;
    case 'metadata':
      return `(${e.type})`;
  }
}

export function drawTree(session: Pick<Session, 'entries' | 'leafId'>): string {
  const index = indexEntries(session.entries);
  const leaf = currentLeaf(session)?.id;
  const lines: string[] = [];
  const seen = new Set<string>();
  // Iterative walk: sessions can be thousands of entries deep.
  const stack: { e: Entry; prefix: string; last: boolean; root: boolean }[] = [];
  const roots = index.children.get(null) ?? [];
  for (let i = roots.length - 1; i >= 0; i--)
    stack.push({ e: roots[i] as Entry, prefix: '', last: i === roots.length - 1, root: true });
  while (stack.length) {
    const { e, prefix, last, root } = stack.pop() as (typeof stack)[number];
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    const kids = index.children.get(e.id) ?? [];
    const branchy = kids.length > 1;
    const mark = e.id === leaf ? ' ← current' : '';
    const connector = root ? '' : last ? '└─ ' : '├─ ';
    lines.push(`${prefix}${connector}${e.id.slice(0, 12)} ${describeEntry(e)}${mark}`);
    const childPrefix = root ? prefix : prefix + (last ? '   ' : '│  ');
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i] as Entry;
      // A single child continues the same column, so a linear chain does not drift right.
      if (!branchy) stack.push({ e: k, prefix, last, root });
      else stack.push({ e: k, prefix: childPrefix, last: i === kids.length - 1, root: false });
    }
  }
  return lines.join('\n');
}
