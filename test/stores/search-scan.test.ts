/**
 * One query finds the same entries, with the same snippets, in the SQLite store (FTS5), the memory
 * store and the web viewer's scan of a store without an index (src/stores/search-text.ts): every word in
 * any order, a quoted phrase in a row, no operators, thinking and tool text, CJK runs, summaries.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DriverCapabilities, SearchHit } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { WebData } from '../../src/server/web/data.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const AT = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
const SESSION: Session = {
  id: 'scan-walrus',
  source: 'claude',
  project: '/scan',
  createdAt: AT(0),
  updatedAt: AT(4),
  messageCount: 3,
  entries: [
    messageEntry('e1', null, AT(0), textMessage('user', 'The purple Walrus sings loudly; 日本語のテストです')),
    messageEntry('e2', 'e1', AT(1), {
      role: 'assistant',
      parts: [
        { type: 'thinking', thinking: 'ponder the mango first' },
        { type: 'text', text: 'The walrus is running now.' },
        { type: 'tool_call', id: 'c1', name: 'Bash', input: { command: 'ls -la kiwi/' } },
      ],
    }),
    // Claude Code's results do not name their tool: it is the call's
    messageEntry('e3', 'e2', AT(2), {
      role: 'tool',
      parts: [{ type: 'tool_result', callId: 'c1', content: 'walrus.txt papaya', isError: false }],
    }),
    { kind: 'compaction', id: 'e4', parentId: 'e3', timestamp: AT(3), summary: 'The walrus sang and the papaya was listed.' },
  ],
  leafId: 'e4',
};

/** A store that cannot search itself (as the agents' own files): the web viewer scans its sessions. */
class UnindexedStore extends MemoryStore {
  override readonly capabilities: DriverCapabilities = { ...new MemoryStore().capabilities, search: false };
}

let dir: string;
let sqlite: SqliteStore;
const memory = new MemoryStore();
const unindexed = new UnindexedStore();
const web = new WebData(unindexed);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-search-scan-'));
  sqlite = openSqliteStore(join(dir, 'store.db'));
  for (const store of [sqlite, memory, unindexed]) await store.writeSession(SESSION, { keepId: true });
});
afterAll(async () => {
  await sqlite?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Each hit's entry and snippet (as the web page shows it: trimmed), by entry. */
const found = (hits: readonly SearchHit[]) =>
  hits.map((h) => ({ entry: h.entryId, snippet: h.snippet.trim() })).sort((a, b) => a.entry.localeCompare(b.entry));

const EXPECTED: Record<string, string[]> = {
  'walrus sings': ['e1'],
  'SINGS walrus': ['e1'],
  '"walrus sings"': ['e1'],
  '"sings walrus"': [],
  walrus: ['e1', 'e2', 'e3', 'e4'],
  walr: [],
  '-sings purple': ['e1'],
  'walrus OR qwxz': [],
  'mango ponder': ['e2'],
  'ls -la': ['e2'],
  'bash kiwi': ['e2'],
  'walrus.txt': ['e3'],
  papaya: ['e3', 'e4'],
  本語: ['e1'],
  テスト: ['e1'],
  語日本: [],
  '!! &&': [],
};

it('finds the same entries with the same snippets in the SQLite store, the memory store and the web scan', async () => {
  for (const [query, entries] of Object.entries(EXPECTED)) {
    const indexed = found(await sqlite.search(query));
    expect(
      indexed.map((h) => h.entry),
      query,
    ).toEqual(entries);
    expect(found(await memory.search(query)), query).toEqual(indexed);
    expect(found(await web.search(query, {})), query).toEqual(indexed);
  }
});

it("--tool keeps the tool's calls and their results in the SQLite and memory stores", async () => {
  for (const tool of ['Bash', 'bash']) {
    expect(found(await sqlite.search('walrus', { tool })).map((h) => h.entry)).toEqual(['e2', 'e3']);
    expect(found(await memory.search('walrus', { tool })).map((h) => h.entry)).toEqual(['e2', 'e3']);
  }
  expect(await memory.search('walrus', { tool: 'Read' })).toEqual([]);
});
