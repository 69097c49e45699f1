/**
 * Chinese, Japanese and Korean are written without spaces between words: a word typed as a query is
 * found inside the run that holds it, in the local index, in an index made before (schema 19 indexes
 * it again) and in the PostgreSQL store; Latin queries and their ranking stay as they were.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { ftsQuery, openSqliteStore } from '../../src/stores/sqlite/index.js';
import { queryTerms, snippetOf } from '../../src/stores/sqlite/text.js';
import { freshSchema } from '../server/pg-helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-search-cjk-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const JA = '日本語のテストをお願いします。ファイルを読んでください';
const LATIN = 'the quokka reads the zanzibar file, then the quokka writes it';

function session(id: string, texts: string[]): Session {
  const entries: Entry[] = texts.map((text, i) => ({
    kind: 'message',
    id: `${id}-e${i}`,
    parentId: i ? `${id}-e${i - 1}` : null,
    timestamp: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
    message: { role: i % 2 ? 'assistant' : 'user', parts: [{ type: 'text', text }] },
  }));
  return {
    id,
    source: 'threadbase',
    project: '/tmp/p',
    title: id,
    createdAt: entries[0]?.timestamp as string,
    updatedAt: entries.at(-1)?.timestamp as string,
    messageCount: entries.length,
    entries,
    leafId: entries.at(-1)?.id ?? null,
  };
}

describe('search of CJK text', () => {
  it('the local index finds a word inside a run, shows it highlighted in the original text, and Latin as before', async () => {
    const store = openSqliteStore(join(dir, 'index.db'));
    await store.writeSession(session('s1', [JA, LATIN, `${LATIN} quokka`, '中文测试：한국어를 배우고 있어요']));
    const hits = await store.search('日本語');
    expect(hits.map((h) => h.entryId)).toEqual(['s1-e0']);
    expect(hits[0]?.snippet).toBe('[日本語]のテストをお願いします。ファイルを読んでください');
    expect((await store.search('読ん')).map((h) => h.entryId)).toEqual(['s1-e0']);
    expect((await store.search('测试')).map((h) => h.entryId)).toEqual(['s1-e3']);
    expect((await store.search('한국어')).map((h) => h.entryId)).toEqual(['s1-e3']);
    expect((await store.search('"テスト" 日本語')).map((h) => h.entryId)).toEqual(['s1-e0']);
    // the characters in another order are not the word
    expect(await store.search('語本日')).toEqual([]);
    // Latin: the same query and the same ranking (more quokkas first)
    expect(ftsQuery('quokka "zanzibar file"')).toBe('"quokka" "zanzibar file"');
    expect((await store.search('quokka')).map((h) => h.entryId)).toEqual(['s1-e2', 's1-e1']);
    expect((await store.search('quokka'))[1]?.snippet).toBe('the [quokka] reads the zanzibar file, then the [quokka] writes it');
    await store.close();
  });

  it('snippets keep the original text: a CJK word one highlight, kana voicing as written', () => {
    const only = (text: string) => ({ text, thinking: '', toolInput: '', toolOutput: '' });
    expect(snippetOf(only('これはテストです'), queryTerms('テスト'))).toBe('これは[テスト]です');
    expect(snippetOf(only('がか'), queryTerms('か'))).toBe('が[か]');
    expect(snippetOf(only('Run テスト now'), queryTerms('テスト run'))).toBe('[Run] [テスト] now');
    // a window of about 16 words: 48 CJK characters, cut where the text goes on
    const long = `${'あ'.repeat(100)}日本語${'い'.repeat(100)}`;
    expect(snippetOf(only(long), queryTerms('日本語'))).toBe(`…${'あ'.repeat(6)}[日本語]${'い'.repeat(39)}…`);
  });

  it('an index made before schema 19 finds CJK words once opened (its CJK entries indexed again)', async () => {
    const path = join(dir, 'index.db');
    const store = openSqliteStore(path);
    await store.writeSession(session('s1', [JA, LATIN]));
    await store.close();
    // as schema 18 indexed it: a CJK run one token
    const raw = new Database(path);
    raw.prepare('DELETE FROM entries_fts WHERE rowid = (SELECT rowid FROM entries WHERE id = ?)').run('s1-e0');
    raw
      .prepare(
        'INSERT INTO entries_fts (rowid, text, thinking, tool_input, tool_output) SELECT rowid, ?, ?, ?, ? FROM entries WHERE id = ?',
      )
      .run(JA, '', '', '', 's1-e0');
    raw.pragma('user_version = 18');
    expect(raw.prepare('SELECT count(*) FROM entries_fts WHERE entries_fts MATCH \'"日 本 語"\'').pluck().get()).toBe(0);
    raw.close();
    const again = openSqliteStore(path);
    expect((await again.search('日本語')).map((h) => h.entryId)).toEqual(['s1-e0']);
    expect((await again.search('quokka')).map((h) => h.entryId)).toEqual(['s1-e1']);
    await again.close();
  });

  it('PostgreSQL finds it too, highlighted in the original text as the other stores mark it', async () => {
    const db = await freshSchema('tb_cjk');
    try {
      await db.store.writeSession(session('p1', [JA, LATIN]));
      const hits = await db.store.search('日本語');
      expect(hits.map((h) => h.entryId)).toEqual(['p1-e0']);
      expect(hits[0]?.snippet).toContain('[日本語]のテスト');
      expect(hits[0]?.snippet).not.toContain('\u0001');
      expect((await db.store.search('"読ん"')).map((h) => h.entryId)).toEqual(['p1-e0']);
      expect(await db.store.search('語本日')).toEqual([]);
      expect((await db.store.search('quokka')).map((h) => h.entryId)).toEqual(['p1-e1']);
      // rows stored before migration 11 (CJK included): test/stores/postgres-search-migration.test.ts
    } finally {
      await db.drop();
    }
  });
});
