import { describe, expect, it } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openStore } from '../../src/stores/open.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const t = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
const usage = { input: 2, output: 3, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const msg = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string, i: number): Entry =>
  messageEntry(id, parentId, t(i), textMessage(role, text, role === 'assistant' ? { model: 'm1', usage } : {}));
const session = (id: string, source = 'pi'): Session => ({
  id,
  source,
  project: '/p',
  createdAt: t(0),
  updatedAt: t(3),
  messageCount: 0,
  entries: [
    msg('a', null, 'user', 'find the bug', 1),
    msg('b', 'a', 'assistant', 'the bug is here', 2),
    msg('c', 'b', 'user', 'fix it', 3),
  ],
});

describe('MemoryStore', () => {
  it('writes a session as a threadbase session, new id unless keepId, and returns copies', async () => {
    const store = new MemoryStore();
    const fresh = await store.writeSession(session('orig'));
    expect(fresh.id).not.toBe('orig');
    expect(fresh).toMatchObject({
      source: 'threadbase',
      messageCount: 3,
      title: 'find the bug',
      models: ['m1'],
      usage: { input: 2, output: 3 },
    });
    const kept = await store.writeSession(session('orig'), { keepId: true });
    expect(kept.id).toBe('orig');
    const again = await store.writeSession(session('orig'), { keepId: true });
    expect(again.id).not.toBe('orig'); // taken: a new id
    const s = (await store.getSession('orig')) as Session;
    expect(s.meta).toMatchObject({ importedFrom: { source: 'pi', id: 'orig' } });
    s.entries.pop();
    expect((await store.getSession('orig'))?.entries).toHaveLength(3);
    expect(await store.getSession('nope')).toBeUndefined();
  });

  it('appends, branches in place, and rejects duplicate ids and unknown parents', async () => {
    const store = new MemoryStore();
    const { id } = await store.writeSession(session('s'), { keepId: true });
    await store.appendEntries(id, [msg('d', 'c', 'assistant', 'fixed', 4)]);
    await store.appendEntries(id, [msg('e', 'b', 'user', 'no, other way', 5)]); // a branch at b
    const ctx = await store.getContext(id);
    expect(ctx.messages.map((m) => m.parts[0]?.type === 'text' && m.parts[0].text)).toEqual([
      'find the bug',
      'the bug is here',
      'no, other way',
    ]);
    const old = await store.getContext(id, { leafId: 'd' });
    expect(old.messages).toHaveLength(4);
    await expect(store.appendEntries(id, [msg('d', 'c', 'user', 'dup', 6)])).rejects.toThrow(/already in session/);
    await expect(store.appendEntries(id, [msg('z', 'missing', 'user', 'orphan', 6)])).rejects.toThrow(/not in session/);
    await expect(store.appendEntries('nope', [])).rejects.toThrow(/not found/);
    expect((await store.getAncestry(id, 'd')).map((e) => e.id)).toEqual(['a', 'b', 'c', 'd']);
    expect((await store.getEntry(id, 'e'))?.parentId).toBe('b');
  });

  it('forks, titles, deletes, lists with filters, searches and counts usage', async () => {
    const store = new MemoryStore();
    const { id } = await store.writeSession(session('s'), { keepId: true });
    const fork = await store.forkSession(id, { at: 'b', title: 'forked' });
    expect(fork).toMatchObject({ parentId: id, parentEntryId: 'b', title: 'forked', messageCount: 2 });
    const withAncestors = await store.getMessages(fork.id, { includeAncestors: true });
    expect(withAncestors).toHaveLength(2); // the fork copied its history; not doubled
    await store.setTitle(id, 'renamed');
    expect((await store.listSessions({ text: 'renamed' })).map((s) => s.id)).toEqual([id]);
    expect((await store.listSessions({ text: 'FIND THE' })).map((s) => s.id).sort()).toEqual([fork.id, id].sort());
    expect((await store.listSessions({ parentId: id })).map((s) => s.id)).toEqual([fork.id]);
    expect(await store.listSessions({ project: '/other' })).toEqual([]);
    // the fork's copies (same entry id and time) are found once, in the original, unless only the fork is searched
    const hits = await store.search('bug');
    expect(hits.map((h) => [h.sessionId, h.entryId]).sort()).toEqual(
      [
        [id, 'a'],
        [id, 'b'],
      ].sort(),
    );
    expect((await store.search('bug', { parentId: id })).map((h) => [h.sessionId, h.entryId]).sort()).toEqual(
      [
        [fork.id, 'a'],
        [fork.id, 'b'],
      ].sort(),
    );
    expect((await store.search('bug', { role: 'assistant' })).every((h) => h.role === 'assistant')).toBe(true);
    // the fork's copy of b is the same response: counted once, as the SQLite and PostgreSQL stores count it
    expect(await store.usage()).toMatchObject({ input: 2, output: 3, messages: 1 });
    expect(await store.usage({ parentId: id })).toMatchObject({ input: 2, output: 3, messages: 1 });
    await store.deleteSession(fork.id);
    expect(await store.getSession(fork.id)).toBeUndefined();
    await expect(store.deleteSession(fork.id)).rejects.toThrow(/not found/);
  });
});

describe('openStore', () => {
  it('opens memory stores and refuses what is not a store URL', async () => {
    expect((await openStore('memory:')).name).toBe('memory');
    await expect(openStore('ftp://x')).rejects.toThrow(/not a store URL/);
  });
});
