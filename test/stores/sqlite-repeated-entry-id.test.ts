/**
 * An agent's session the index stores as it is read (putSession with keepSource) that repeats an entry
 * id keeps the last record of that id, where it stands, as the tree's lookups by id find only that one
 * (model/tree.ts indexEntries, pi's SessionManager): the stored session, its entry by id, the context
 * at a leaf under it and search all give the later record, as the same session read from its file does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContext, entriesById, messageText } from '../../src/model/tree.js';
import type { Entry, Session } from '../../src/model/types.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';

const message = (id: string, parentId: string | null, text: string, second: number): Entry => ({
  kind: 'message',
  id,
  parentId,
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
  message: { role: 'user', parts: [{ type: 'text', text }] },
});

/** a → x (first record), then b under x, then x again as a root with other words. */
const SESSION: Session = {
  id: 'repeated-entry-id-session',
  source: 'pi',
  project: '/work/repeated',
  createdAt: '2026-01-01T00:00:01.000Z',
  updatedAt: '2026-01-01T00:00:04.000Z',
  messageCount: 4,
  entries: [
    message('a', null, 'first question', 1),
    message('x', 'a', 'earlier record wallabyword', 2),
    message('b', 'x', 'under x', 3),
    message('x', null, 'later record quollword', 4),
  ],
  leafId: 'b',
};

const texts = (entries: readonly Entry[]) =>
  entries.map((e) => [e.id, e.parentId, e.kind === 'message' ? messageText(e.message) : '']);

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-repeated-id-'));
  store = openSqliteStore(join(dir, 'index.db'));
  store.putSession(SESSION, { keepSource: true });
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sqlite index: an entry id repeated in an agent session', () => {
  it('keeps the last record of the id, in its own place', async () => {
    const stored = (await store.getSession(SESSION.id)) as Session;
    expect(texts(stored.entries)).toEqual([
      ['a', null, 'first question'],
      ['b', 'x', 'under x'],
      ['x', null, 'later record quollword'],
    ]);
    // the record the tree finds by the id
    expect(stored.entries.find((e) => e.id === 'x')).toEqual(entriesById(SESSION.entries).get('x'));
    expect(texts([(await store.getEntry(SESSION.id, 'x')) as Entry])).toEqual([['x', null, 'later record quollword']]);
  });

  it('gives the context the session itself gives at its leaf', async () => {
    const fromStore = await store.getContext(SESSION.id, { leafId: 'b' });
    const fromModel = buildContext(SESSION, { leafId: 'b' });
    expect(fromStore.messages.map(messageText)).toEqual(['later record quollword', 'under x']);
    expect(fromStore.messages.map(messageText)).toEqual(fromModel.messages.map(messageText));
  });

  it('searches the later record only', async () => {
    expect((await store.search('quollword')).map((h) => h.entryId)).toEqual(['x']);
    expect(await store.search('wallabyword')).toEqual([]);
  });
});
