/**
 * PostgreSQL migration 11: entries stored before it had search_text (the messages' text only, read by
 * the 'english' configuration) and tools (the calls' names only). Migrated, they are found as every
 * store finds them: thinking, tool input and output, words as written, a result by its call's tool,
 * also when the call and its result are read in different batches.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Message } from '../../src/model/types.js';
import { openPostgresStore, type PostgresStore } from '../../src/stores/postgres/index.js';
import { MIGRATIONS } from '../../src/stores/postgres/migrations.js';
import { PG_URL } from '../server/pg-helpers.js';

const schema = `tb_search_mig_${Date.now().toString(36)}`;
let c: pg.Client;
let store: PostgresStore;

/** A session's entries: a question, then `filler` exchanges, then a Bash call, more filler and its unnamed result. */
function entriesOf(session: string, filler: number): Entry[] {
  const entries: Entry[] = [];
  const t = (i: number) => new Date(Date.parse('2025-05-01T00:00:00.000Z') + i * 1000).toISOString();
  const add = (message: Message) =>
    entries.push({
      kind: 'message',
      id: `${session}-${entries.length}`,
      parentId: entries.length ? `${session}-${entries.length - 1}` : null,
      timestamp: t(entries.length),
      message,
    });
  add({ role: 'user', parts: [{ type: 'text', text: 'Please inspect the 日本語のテスト file' }] });
  const chatter = () => {
    for (let i = 0; i < filler; i++) add({ role: 'assistant', parts: [{ type: 'text', text: `step ${i}` }] });
  };
  chatter();
  add({
    role: 'assistant',
    parts: [
      { type: 'thinking', thinking: 'The wombatthought comes first.' },
      { type: 'tool_call', id: `${session}-call`, name: 'Bash', input: { command: 'cat quokka.txt' } },
    ],
  });
  chatter();
  add({ role: 'tool', parts: [{ type: 'tool_result', callId: `${session}-call`, content: 'numbat output' }] });
  return entries;
}

beforeAll(async () => {
  c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
  await c.query(
    'CREATE TABLE tb_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const m of MIGRATIONS.filter((x) => x.version <= 10)) {
    await c.query(m.sql ?? '');
    await c.query('INSERT INTO tb_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
  }
  // the rows as the store wrote them before migration 11: the messages' text, the calls' names
  for (const [session, filler] of [
    ['short', 1],
    ['long', 150],
  ] as const) {
    const entries = entriesOf(session, filler);
    await c.query(
      `INSERT INTO tb_sessions (id, source, created_at, updated_at, message_count)
       VALUES ($1, 'threadbase', $2, $3, $4)`,
      [session, entries[0]?.timestamp, entries.at(-1)?.timestamp, entries.length],
    );
    for (const [seq, e] of entries.entries()) {
      if (e.kind !== 'message') continue;
      const text = e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      const tools = e.message.parts.flatMap((p) => (p.type === 'tool_call' ? [p.name] : []));
      await c.query(
        `INSERT INTO tb_entries (session_id, id, seq, parent_id, kind, role, ts, tools, search_text, body)
         VALUES ($1, $2, $3, $4, 'message', $5, $6, $7, $8, $9)`,
        [session, e.id, seq, e.parentId, e.message.role, e.timestamp, tools, text, JSON.stringify(e)],
      );
    }
  }
  store = await openPostgresStore(`${PG_URL}?schema=${schema}`);
});

afterAll(async () => {
  await store?.close();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
});

const found = async (query: string, tool?: string) =>
  (await store.search(query, tool ? { tool } : {})).map((h) => h.entryId).sort();

describe('PostgreSQL migration 11', () => {
  it('finds the stored entries as every store finds them', async () => {
    // thinking, tool input and tool output
    expect(await found('wombatthought')).toEqual(['long-151', 'short-2']);
    expect(await found('cat quokka')).toEqual(['long-151', 'short-2']);
    expect(await found('numbat')).toEqual(['long-302', 'short-4']);
    // a word as written, `the` too; a CJK word inside its run
    expect(await found('the inspect')).toEqual(['long-0', 'short-0']);
    expect(await found('inspected')).toEqual([]);
    expect(await found('本語の')).toEqual(['long-0', 'short-0']);
    // a result named by its call, read 150 entries (another batch) before it
    expect(await found('numbat', 'bash')).toEqual(['long-302', 'short-4']);
    expect(await found('quokka', 'BASH')).toEqual(['long-151', 'short-2']);
  });

  it('leaves no search_text behind, and searches by the index', async () => {
    const columns = await c.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tb_entries'`,
      [schema],
    );
    expect(columns.rows.map((r) => r.column_name)).not.toContain('search_text');
    const indexes = await c.query<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE schemaname = $1', [schema]);
    expect(indexes.rows.map((r) => r.indexname)).toContain('tb_entries_tsv');
  });
});
