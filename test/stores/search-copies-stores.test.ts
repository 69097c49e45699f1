/**
 * A team store's search finds an entry a fork repeats (same entry id and time) once too, as the local
 * index does: in the original (the session created first, as `stats` counts a copied response), or
 * in the copy when only the copy's sessions are searched. PostgreSQL for real, a SQLite store and the
 * memory store.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SearchOptions, SessionDriver } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import type { SqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { storesHolding, type TestSchema } from '../server/pg-helpers.js';

const AT = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
const ORIGINAL: Session = {
  id: 'copies-original',
  source: 'claude',
  project: '/copies/a',
  createdAt: AT(0),
  updatedAt: AT(1),
  messageCount: 2,
  entries: [
    messageEntry('e1', null, AT(0), textMessage('user', 'rename the zebra module')),
    messageEntry('e2', 'e1', AT(1), textMessage('assistant', 'renamed the zebra module', { model: 'claude-sonnet-4-5' })),
  ],
};
/** a fork: the original's entries (same ids and times), then one of its own; another project */
const FORK: Session = {
  ...ORIGINAL,
  id: 'copies-fork',
  project: '/copies/b',
  parentId: ORIGINAL.id,
  createdAt: AT(5),
  updatedAt: AT(6),
  messageCount: 3,
  entries: [...ORIGINAL.entries, messageEntry('e3', 'e2', AT(6), textMessage('user', 'and the zebra tests'))],
};

let pg: TestSchema;
let sqlite: SqliteStore;
let close: (() => Promise<void>) | undefined;
const memory = new MemoryStore();

beforeAll(async () => {
  ({ pg, sqlite, close } = await storesHolding('tb_search_copies', [ORIGINAL, FORK]));
  for (const s of [ORIGINAL, FORK]) await memory.writeSession(s, { keepId: true });
}, 60_000);
afterAll(async () => {
  await close?.();
});

const found = async (store: Required<Pick<SessionDriver, 'search'>>, opts: SearchOptions = {}) =>
  (await store.search('zebra', opts)).map((h) => `${h.sessionId}/${h.entryId}`).sort();

it('finds an entry a fork repeats once, in the original unless only the fork is searched', async () => {
  for (const [name, store] of [
    ['postgres', pg.store],
    ['sqlite', sqlite],
    ['memory', memory],
  ] as const) {
    const got = {
      all: await found(store),
      original: await found(store, { project: '/copies/a' }),
      fork: await found(store, { project: '/copies/b' }),
      forks: await found(store, { parentId: ORIGINAL.id }),
    };
    expect({ name, ...got }).toEqual({
      name,
      all: ['copies-fork/e3', 'copies-original/e1', 'copies-original/e2'],
      original: ['copies-original/e1', 'copies-original/e2'],
      fork: ['copies-fork/e1', 'copies-fork/e2', 'copies-fork/e3'],
      forks: ['copies-fork/e1', 'copies-fork/e2', 'copies-fork/e3'],
    });
  }
});
