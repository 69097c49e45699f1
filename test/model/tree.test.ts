import { describe, expect, it } from 'vitest';
import {
  branches,
  buildContext,
  currentLeaf,
  leaves,
  mergeSplitResponses,
  pairToolCalls,
  pathToLeaf,
} from '../../src/model/tree.js';
import type { Entry, Message } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { messageEntry, secondInto2026 as t, textMessage } from '../helpers/sessions.js';

/** A text message entry timed by its id's first letter (entries in id order). */
const msg = (id: string, parentId: string | null, role: Message['role'], text: string, extra: Partial<Message> = {}): Entry =>
  messageEntry(id, parentId, id.charCodeAt(0), textMessage(role, text, extra));
const texts = (ms: Message[]) =>
  ms.map((m) => `${m.role}:${m.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join('|')}`);

describe('tree logic', () => {
  // a ─ b ─ c ─ d          (main)
  //          └─ e ─ f      (branch from c, appended last → current leaf)
  const entries: Entry[] = [
    msg('a', null, 'user', 'hi'),
    msg('b', 'a', 'assistant', 'hello'),
    msg('c', 'b', 'user', 'q1'),
    msg('d', 'c', 'assistant', 'a1'),
    msg('e', 'c', 'assistant', 'a1-alt'),
    msg('f', 'e', 'user', 'q2'),
  ];

  it('the current leaf is the last entry unless the session names one', () => {
    expect(currentLeaf({ entries })?.id).toBe('f');
    expect(currentLeaf({ entries, leafId: 'd' })?.id).toBe('d');
    expect(currentLeaf({ entries, leafId: 'missing' })?.id).toBe('f');
  });

  it('path and context leave abandoned branches out', () => {
    expect(pathToLeaf({ entries }).map((e) => e.id)).toEqual(['a', 'b', 'c', 'e', 'f']);
    expect(texts(buildContext({ entries }).messages)).toEqual([
      'user:hi',
      'assistant:hello',
      'user:q1',
      'assistant:a1-alt',
      'user:q2',
    ]);
    expect(texts(buildContext({ entries }, { leafId: 'd' }).messages)).toEqual([
      'user:hi',
      'assistant:hello',
      'user:q1',
      'assistant:a1',
    ]);
  });

  it('lists leaves and branches with their fork point', () => {
    expect(leaves(entries).map((e) => e.id)).toEqual(['d', 'f']);
    const bs = branches({ entries });
    expect(bs.find((b) => b.leaf.id === 'd')).toMatchObject({ forkPointId: 'c', current: false, length: 4 });
    expect(bs.find((b) => b.leaf.id === 'f')).toMatchObject({ forkPointId: 'f', current: true, length: 5 });
  });

  it('a side entry hanging from a message does not stop it ending a branch', () => {
    const withSide: Entry[] = [
      ...entries,
      { id: 'title@9', parentId: 'd', timestamp: t(120), kind: 'metadata', type: 'custom-title', data: {}, sidechain: true },
      { ...msg('s1', 'f', 'user', 'sub-agent prompt'), sidechain: true },
    ];
    expect(
      branches({ entries: withSide, leafId: 'f' })
        .map((b) => b.leaf.id)
        .sort(),
    ).toEqual(['d', 'f']);
  });

  it('applies the latest compaction: summary, kept entries, then what follows', () => {
    const withCompaction: Entry[] = [
      ...entries.slice(0, 4),
      { id: 'k1', parentId: 'd', timestamp: t(100), kind: 'compaction', summary: 'S1', firstKeptEntryId: 'c' },
      msg('g', 'k1', 'user', 'after'),
      { id: 'k2', parentId: 'g', timestamp: t(101), kind: 'compaction', summary: 'S2' },
      msg('h', 'k2', 'assistant', 'last'),
    ];
    const ctx = buildContext({ entries: withCompaction }, { compactionText: (c) => `<summary>${c.summary}</summary>` });
    expect(texts(ctx.messages)).toEqual(['user:<summary>S2</summary>', 'assistant:last']);
    const earlier = buildContext({ entries: withCompaction }, { leafId: 'g' });
    expect(texts(earlier.messages)).toEqual(['user:S1', 'user:q1', 'assistant:a1', 'user:after']);
    expect(earlier.messages[0]?.meta).toMatchObject({ compactionSummary: true });
  });

  it('renders branch summaries as user messages and tracks model changes', () => {
    const es: Entry[] = [
      msg('a', null, 'user', 'hi'),
      { id: 'm', parentId: 'a', timestamp: t(5), kind: 'model_change', model: 'm2', provider: 'p', thinkingLevel: 'high' },
      { id: 'bs', parentId: 'm', timestamp: t(6), kind: 'branch_summary', summary: 'tried X', fromId: 'zz' },
      { id: 'l', parentId: 'bs', timestamp: t(7), kind: 'label', targetId: 'a', label: 'start' },
    ];
    const ctx = buildContext({ entries: es }, { branchSummaryText: (b) => `BS:${b.summary}` });
    expect(texts(ctx.messages)).toEqual(['user:hi', 'user:BS:tried X']);
    expect(ctx).toMatchObject({ model: 'm2', provider: 'p', thinkingLevel: 'high' });
  });

  it('survives orphans and cycles in parent links', () => {
    const bad: Entry[] = [msg('x', 'y', 'user', 'cyc1'), msg('y', 'x', 'assistant', 'cyc2'), msg('o', 'nope', 'user', 'orphan')];
    expect(pathToLeaf({ entries: bad }).map((e) => e.id)).toEqual(['o']);
    expect(pathToLeaf({ entries: bad }, 'y').map((e) => e.id)).toEqual(['x', 'y']);
  });

  it('merges split responses and counts their usage once', () => {
    const u = { input: 10, output: 5, cacheRead: 100, cacheWrite: 7, reasoning: 0 };
    const es: Entry[] = [
      msg('a', null, 'user', 'q'),
      msg('b', 'a', 'assistant', 'part1', { responseId: 'r1', usage: u }),
      msg('c', 'b', 'assistant', 'part2', { responseId: 'r1', usage: u }),
      msg('d', 'c', 'assistant', 'other', { responseId: 'r2', usage: u, cost: 0.5 }),
    ];
    const merged = mergeSplitResponses(buildContext({ entries: es }, { mergeSplitResponses: false }).messages);
    expect(texts(merged)).toEqual(['user:q', 'assistant:part1|part2', 'assistant:other']);
    const s = summarizeUsage(es);
    expect(s.usage).toEqual({ input: 20, output: 10, cacheRead: 200, cacheWrite: 14, reasoning: 0 });
    expect(s.responses).toBe(2);
    expect(s.cost).toBe(0.5);
  });

  it('pairs tool calls with results by id', () => {
    const ms: Message[] = [
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 't1', name: 'Bash', input: {} },
          { type: 'tool_call', id: 't2', name: 'Read', input: {} },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', callId: 't1', content: 'ok' },
          { type: 'tool_result', callId: 't9', content: 'x' },
        ],
      },
    ];
    const p = pairToolCalls(ms);
    expect([...p.answered]).toEqual(['t1']);
    expect(p.unanswered.map((c) => c.id)).toEqual(['t2']);
    expect(p.orphanResults).toEqual(['t9']);
  });
});
