/**
 * The session builder (src/model/build.ts) an author uses instead of hand-made ids, parent links, times
 * and usage shapes: what it fills in, how it branches, what it refuses, and that a built session goes
 * into a real SQLite store and comes back as built.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  appendEntry,
  appendMessage,
  buildContext,
  createSession,
  messageText,
  openSqliteStore,
  ThreadbaseError,
} from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tb-build-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createSession', () => {
  it('fills what a store needs: a fresh id, threadbase as source, times, no entries', () => {
    const before = new Date().toISOString();
    const s = createSession({ project: '/w/app', title: 't' });
    expect(s.id).toMatch(UUID);
    expect(createSession().id).not.toBe(s.id);
    expect(s).toMatchObject({ source: 'threadbase', project: '/w/app', title: 't', messageCount: 0, entries: [], leafId: null });
    expect(s.createdAt >= before).toBe(true);
    expect(s.updatedAt).toBe(s.createdAt);
    // fields not given are absent, not undefined-valued (a strict reader sees no `parentId` key)
    expect(Object.keys(s)).not.toContain('parentId');
    expect(createSession({ id: 'mine', source: 'claude', createdAt: '2025-01-01T00:00:00.000Z' })).toMatchObject({
      id: 'mine',
      source: 'claude',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    });
  });
});

describe('appendMessage / appendEntry', () => {
  it('chains each entry under the leaf, moves the leaf, counts messages and fills usage', () => {
    const s = createSession({ createdAt: '2025-01-01T00:00:00.000Z' });
    const ask = appendMessage(s, { role: 'user', content: 'hi' });
    const reply = appendMessage(s, { role: 'assistant', model: 'm', usage: { input: 10, output: 2 }, content: 'hello' });
    expect(ask.parentId).toBeNull();
    expect(reply.parentId).toBe(ask.id);
    expect(ask.id).toMatch(UUID);
    expect(s.leafId).toBe(reply.id);
    expect(s.messageCount).toBe(2);
    expect(s.entries).toEqual([ask, reply]);
    expect(ask.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
    expect(reply.message).toEqual({
      role: 'assistant',
      model: 'm',
      parts: [{ type: 'text', text: 'hello' }],
      usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
    });
    expect(reply.timestamp >= ask.timestamp).toBe(true);
    expect(s.updatedAt).toBe(reply.timestamp);
  });

  it('branches at a named parent, keeps given ids and times, and a side chain leaves the leaf', () => {
    const s = createSession();
    const root = appendMessage(s, { role: 'user', content: 'a' }, { id: 'r', timestamp: '2025-02-01T00:00:00.000Z' });
    appendMessage(s, { role: 'assistant', content: 'first try' });
    const retry = appendMessage(s, { role: 'assistant', content: 'second try' }, { parentId: root.id });
    expect(root).toMatchObject({ id: 'r', timestamp: '2025-02-01T00:00:00.000Z' });
    expect(retry.parentId).toBe('r');
    const side = appendEntry(s, { kind: 'message', sidechain: true, message: { role: 'user', parts: [] } });
    expect(side.parentId).toBe(retry.id);
    expect(s.leafId).toBe(retry.id);
    const note = appendEntry(s, { kind: 'compaction', summary: 'so far: a', firstKeptEntryId: retry.id });
    expect(note).toMatchObject({ kind: 'compaction', parentId: retry.id });
    expect(s.leafId).toBe(note.id);
    expect(s.messageCount).toBe(4);
    // the context a model sees at the leaf: the summary, then the kept retry; "first try" left out
    expect(buildContext(s).messages.map((m) => messageText(m))).toEqual([expect.stringContaining('so far: a'), 'second try']);
  });

  it('refuses a duplicate id and a parent the session lacks, naming both, and leaves the session as it was', () => {
    const s = createSession({ id: 'sess-1' });
    appendMessage(s, { role: 'user', content: 'a' }, { id: 'x' });
    const dup = () => appendMessage(s, { role: 'user', content: 'b' }, { id: 'x' });
    expect(dup).toThrow(ThreadbaseError);
    expect(dup).toThrow(/entry id x .*session sess-1/);
    expect(() => appendMessage(s, { role: 'user', content: 'c' }, { parentId: 'nope' })).toThrow(
      /names parent nope, which is not in session sess-1/,
    );
    expect(s.entries).toHaveLength(1);
    expect(s.leafId).toBe('x');
  });
});

describe('a built session in SQLite', () => {
  it('is written under its own id and read back as built, later appends included', async () => {
    const store = openSqliteStore(join(dir, 'built.db'));
    try {
      const s = createSession({ project: '/w/app', title: 'built' });
      appendMessage(s, { role: 'system', content: 'be brief' });
      const ask = appendMessage(s, { role: 'user', content: 'list' });
      appendMessage(s, {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        usage: { input: 5, output: 1 },
        content: [{ type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'ls' } }],
      });
      appendMessage(s, { role: 'tool', content: [{ type: 'tool_result', callId: 'c1', content: 'a b' }] });
      const info = await store.writeSession(s, { keepId: true });
      expect(info.id).toBe(s.id);
      const later = appendMessage(s, { role: 'user', content: 'again' }, { parentId: ask.id });
      await store.appendEntries(s.id, [later]);

      const back = await store.getSession(s.id);
      expect(back?.entries).toEqual(s.entries);
      expect(back?.leafId).toBe(later.id);
      expect(back).toMatchObject({ project: '/w/app', title: 'built', messageCount: 5, createdAt: s.createdAt });
    } finally {
      await store.close();
    }
  });
});
