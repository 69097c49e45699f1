/** The PostgreSQL store against the real server, in a schema of its own. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, MessageEntry, Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { MIGRATIONS } from '../../src/stores/postgres/migrations.js';
import { spreadUsageEntries } from '../helpers/sessions.js';
import { freshSchema, PG_URL, type TestSchema } from '../server/pg-helpers.js';

let db: TestSchema;
beforeAll(async () => {
  db = await freshSchema('tb_pgstore');
});
afterAll(async () => {
  await db?.drop();
});

let n = 0;
function msg(
  id: string,
  parentId: string | null,
  role: 'user' | 'assistant',
  text: string,
  extra: Partial<MessageEntry['message']> = {},
): MessageEntry {
  n++;
  return {
    kind: 'message',
    id,
    parentId,
    timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
    message: { role, parts: [{ type: 'text', text }], ...extra },
  };
}

function session(entries: Entry[], over: Partial<Session> = {}): Session {
  return { id: 'src-1', source: 'pi', createdAt: '', updatedAt: '', messageCount: 0, project: '/work/app', entries, ...over };
}

describe('PostgresStore', () => {
  it('applies its migrations once and records them', async () => {
    const again = await openPostgresStore(db.url); // a second opener finds them applied
    const rows = (await db.store.pool.query<{ version: number }>('SELECT version FROM tb_migrations ORDER BY version')).rows;
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    await again.close();
  });

  it('writes, reads back entries in order with raw kept, and lists with counts and usage', async () => {
    const entries: Entry[] = [
      { ...msg('u1', null, 'user', 'fix the parser'), raw: { z: 1, a: 2 }, rawSource: 'pi' },
      msg('a1', 'u1', 'assistant', 'done', {
        responseId: 'r1',
        model: 'claude-x',
        usage: { input: 10, output: 5, cacheRead: 1, cacheWrite: 0, reasoning: 0 },
        cost: 0.5,
      }),
      msg('a2', 'a1', 'assistant', 'more', {
        responseId: 'r1',
        usage: { input: 10, output: 7, cacheRead: 1, cacheWrite: 0, reasoning: 0 },
      }),
    ];
    const info = await db.store.writeSession(session(entries));
    expect(info.source).toBe('threadbase');
    expect(info.meta?.importedFrom).toEqual({ source: 'pi', id: 'src-1' });
    const back = await db.store.getSession(info.id);
    expect(back?.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'a2']);
    expect(JSON.stringify(back?.entries[0]?.raw)).toBe('{"z":1,"a":2}');
    const [listed] = await db.store.listSessions({ project: '/work/app', text: 'PARSER' });
    expect(listed?.id).toBe(info.id);
    expect(listed?.messageCount).toBe(3);
    expect(listed?.title).toBe('fix the parser');
    // one response split in two records counts once, with the last record's usage
    expect(listed?.usage).toEqual({ input: 10, output: 7, cacheRead: 1, cacheWrite: 0, reasoning: 0 });
    expect(listed?.models).toEqual(['claude-x']);
    expect(await db.store.listSessions({ project: '/elsewhere' })).toEqual([]);
    expect((await db.store.getAncestry(info.id, 'a2')).map((e) => e.id)).toEqual(['u1', 'a1', 'a2']);
    expect((await db.store.getEntry(info.id, 'a1'))?.id).toBe('a1');
    expect(await db.store.getEntry(info.id, 'nope')).toBeUndefined();
  });

  it('appends idempotently by id, rejects orphans, and keeps ids across branches', async () => {
    const info = await db.store.writeSession(session([msg('r', null, 'user', 'root')]));
    const more = [msg('x1', 'r', 'assistant', 'one'), msg('x2', 'x1', 'user', 'two')];
    await db.store.appendEntries(info.id, more);
    await db.store.appendEntries(info.id, more); // a repeated push
    await db.store.appendEntries(info.id, [msg('b1', 'r', 'assistant', 'branch')]);
    const s = await db.store.getSession(info.id);
    expect(s?.entries.map((e) => e.id)).toEqual(['r', 'x1', 'x2', 'b1']);
    expect(s?.leafId).toBe('b1');
    await expect(db.store.appendEntries(info.id, [msg('o', 'missing', 'user', 'orphan')])).rejects.toThrow(/missing/);
    const ctx = await db.store.getContext(info.id, { leafId: 'x2' });
    expect(ctx.messages.map((m) => m.parts[0]?.type === 'text' && m.parts[0].text)).toEqual(['root', 'one', 'two']);
  });

  it('forks at an entry, sets titles, deletes', async () => {
    const info = await db.store.writeSession(session([msg('f1', null, 'user', 'start'), msg('f2', 'f1', 'assistant', 'reply')]));
    const fork = await db.store.forkSession(info.id, { at: 'f1', title: 'the fork' });
    expect(fork.parentId).toBe(info.id);
    expect(fork.parentEntryId).toBe('f1');
    expect((await db.store.getSession(fork.id))?.entries.map((e) => e.id)).toEqual(['f1']);
    await db.store.setTitle(info.id, 'renamed');
    expect((await db.store.listSessions({ text: 'renamed' })).map((s) => s.id)).toEqual([info.id]);
    await db.store.deleteSession(fork.id);
    expect(await db.store.getSession(fork.id)).toBeUndefined();
    await expect(db.store.deleteSession(fork.id)).rejects.toThrow(/not found/);
  });

  it('searches words as written (no stemming), by role and tool, per tenant', async () => {
    const entries: Entry[] = [
      msg('s1', null, 'user', 'the migrations are failing'),
      {
        kind: 'message',
        id: 's2',
        parentId: 's1',
        timestamp: '2025-02-01T00:00:00.000Z',
        message: {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'I will migrate the schema' },
            { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'npm run migrate' } },
          ],
        },
      },
    ];
    const info = await db.store.writeSession(session(entries));
    const hits = await db.store.search('migrate');
    // the text and the call's input say "migrate"; "migrations" is another word
    expect(hits.filter((h) => h.sessionId === info.id).map((h) => h.entryId)).toEqual(['s2']);
    expect((await db.store.search('migrations')).filter((h) => h.sessionId === info.id).map((h) => h.entryId)).toEqual(['s1']);
    expect((await db.store.search('the', { role: 'user' })).every((h) => h.role === 'user')).toBe(true);
    expect((await db.store.search('npm run', { tool: 'bash' })).map((h) => h.entryId)).toEqual(['s2']);
    expect((await db.store.search('migrations'))[0]?.snippet).toBe('the [migrations] are failing');
    const other = db.store.forTenant('someone-else');
    expect(await other.search('migrations')).toEqual([]);
    expect(await other.listSessions()).toEqual([]);
    expect(await other.getSession(info.id)).toBeUndefined();
    await expect(other.appendEntries(info.id, [msg('z', null, 'user', 'x')])).rejects.toThrow(/not found/);
    await expect(other.deleteSession(info.id)).rejects.toThrow(/not found/);
    expect(await db.store.getSession(info.id)).toBeDefined();
  });

  it('stores and finds an entry whose text has more words than a tsvector holds (over 1 MiB of them)', async () => {
    // 300,000 different words: PostgreSQL's to_tsvector refused them ('string is too long for tsvector'),
    // and the whole write failed
    const words = Array.from({ length: 300_000 }, (_, i) => `w${i}`).join(' ');
    const info = await db.store.writeSession(session([msg('big', null, 'user', `aardvarkfirst ${words}`)]));
    expect((await db.store.getSession(info.id))?.entries).toHaveLength(1);
    expect((await db.store.search('aardvarkfirst')).map((h) => h.entryId)).toEqual(['big']);
    expect((await db.store.search('w12345')).map((h) => h.entryId)).toEqual(['big']);
  });

  it('keeps text with NUL characters and odd unicode', async () => {
    const text = 'nul\u0000here — 😀 \ud800';
    const info = await db.store.writeSession(session([msg('n1', null, 'user', text)], { meta: { note: 'a\u0000b' } }));
    expect((await db.store.getSession(info.id))?.meta?.importedFrom).toBeDefined();
    const back = await db.store.getSession(info.id);
    const part = back?.entries[0]?.kind === 'message' ? back.entries[0].message.parts[0] : undefined;
    expect(part?.type === 'text' && part.text).toBe(text);
    expect(back?.meta?.note).toBe('a\u0000b');
  });

  it('keeps meta, title and project that jsonb and text columns cannot hold, and refuses such ids', async () => {
    // An agent that cuts a string through an emoji leaves an unpaired surrogate; jsonb refused the whole write.
    const title = `${'t'.repeat(10)}\ud83d`;
    const project = '/work/odd\u0000dir';
    const info = await db.store.writeSession(
      session([msg('s1', null, 'user', 'cut 😀 \udc00 here'), msg('s2', 's1', 'assistant', 'ok', { model: 'm\ud800' })], {
        title,
        project,
        meta: { cut: 'half \ud83d', ['key\udfff']: 1, nul: 'a\u0000b' },
      }),
    );
    const back = await db.store.getSession(info.id);
    expect(back?.title).toBe(title);
    expect(back?.project).toBe(project);
    expect(back?.meta?.cut).toBe('half \ud83d');
    expect(back?.meta?.['key\udfff']).toBe(1);
    expect(back?.meta?.nul).toBe('a\u0000b');
    const m = back?.entries[1]?.kind === 'message' ? back.entries[1].message : undefined;
    expect(m?.model).toBe('m\ud800');
    const listed = (await db.store.listSessions()).find((s) => s.id === info.id);
    expect(listed?.title).toBe(title);
    expect(listed?.project).toBe(project);
    expect((await db.store.search('cut')).some((h) => h.sessionId === info.id)).toBe(true);

    await db.store.setTitle(info.id, 'plain');
    expect((await db.store.getSession(info.id))?.title).toBe('plain');
    await db.store.setTitle(info.id, 'odd \udfff');
    expect((await db.store.getSession(info.id))?.title).toBe('odd \udfff');

    for (const bad of ['n\u0000', 'half\ud800']) {
      await expect(db.store.appendEntries(info.id, [msg(bad, 's2', 'user', 'x')])).rejects.toMatchObject({
        code: 'unstorable_id',
      });
      await expect(db.store.writeSession(session([msg('ok', bad, 'user', 'x')]))).rejects.toMatchObject({
        code: 'unstorable_id',
      });
    }
    // an id it cannot keep as asked for is replaced, as a taken one is
    const renamed = await db.store.writeSession(session([msg('r1', null, 'user', 'x')], { id: 'src\u0000' }), { keepId: true });
    expect(renamed.id).not.toContain('\u0000');
    expect((await db.store.getSession(info.id))?.entries).toHaveLength(2);
  });

  it('lists the usage of a session of several models per model, as summarizeUsage counts it', async () => {
    const u = (input: number, output: number) => ({ input, output, cacheRead: 10, cacheWrite: 0, reasoning: 0 });
    const entries: Entry[] = [
      msg('m0', null, 'user', 'go'),
      msg('m1', 'm0', 'assistant', 'part', { model: 'big', responseId: 'r1', usage: u(100, 1) }),
      msg('m2', 'm1', 'assistant', 'rest', { model: 'big', responseId: 'r1', usage: u(100, 50) }),
      msg('m3', 'm2', 'assistant', 'small one', { model: 'small', usage: u(7, 3) }),
    ];
    const info = await db.store.writeSession(session(entries, { id: 'multi-model' }));
    const listed = (await db.store.listSessions()).find((s) => s.id === info.id);
    expect(listed?.usageByModel).toEqual(summarizeUsage(entries).byModel);
    expect(listed?.usageByModel).toEqual({ big: u(100, 50), small: u(7, 3) });
    expect((await db.store.getSession(info.id))?.usageByModel).toEqual(listed?.usageByModel);
  });

  it('counts usage, cost and responses as summarizeUsage does when a response spreads them over its records', async () => {
    const entries = spreadUsageEntries();
    const info = await db.store.writeSession(session(entries, { id: 'spread-usage', project: '/spread-usage' }));
    const listed = (await db.store.listSessions()).find((s) => s.id === info.id);
    const expected = summarizeUsage(entries);
    expect(listed?.usage).toEqual(expected.usage);
    expect(listed?.cost).toBeCloseTo(expected.cost, 10);
    expect(expected).toMatchObject({ usage: { input: 127, output: 10 }, cost: 0.75, responses: 4 });
    expect(listed?.usageByModel).toEqual(expected.byModel);
    const totals = await db.store.usage({ project: '/spread-usage' });
    expect(totals).toMatchObject({ ...expected.usage, messages: expected.responses });
    expect(totals.cost).toBeCloseTo(expected.cost, 10);
  });

  it('lists 1-hour cache writes and web searches with the usage, as summarizeUsage counts them; migration 5 takes them from stored entries', async () => {
    const terms = { input: 100, output: 5, cacheRead: 0, cacheWrite: 30, cacheWrite1h: 20, reasoning: 0, webSearches: 2 };
    const entries: Entry[] = [
      msg('w0', null, 'user', 'search'),
      msg('w1', 'w0', 'assistant', 'searching', { model: 'claude-opus-4-6', responseId: 'rw', usage: { ...terms, output: 1 } }),
      msg('w2', 'w1', 'assistant', 'found', { model: 'claude-opus-4-6', responseId: 'rw', usage: terms }),
      msg('w3', 'w2', 'assistant', 'again', { model: 'claude-opus-4-6', usage: { ...terms, cacheWrite1h: 5, webSearches: 1 } }),
    ];
    const info = await db.store.writeSession(session(entries, { id: 'one-hour', project: '/one-hour' }));
    const expected = summarizeUsage(entries).usage;
    expect(expected).toMatchObject({ cacheWrite1h: 25, webSearches: 3 });
    const listed = async () => (await db.store.listSessions()).find((s) => s.id === info.id)?.usage;
    expect(await listed()).toEqual(expected);
    expect(await db.store.usage({ project: '/one-hour' })).toMatchObject({ cacheWrite1h: 25, webSearches: 3 });
    // as schema 4 left the rows: no such columns filled; migration 5 fills them from the entries' JSON
    await db.store.pool.query(
      `UPDATE tb_entries SET usage_cache_write_1h = NULL, usage_web_searches = NULL WHERE session_id = $1`,
      [info.id],
    );
    expect((await listed())?.cacheWrite1h).toBeUndefined();
    const m5 = MIGRATIONS.find((m) => m.version === 5);
    await db.store.pool.query((m5?.sql ?? '').replace(/^ALTER TABLE.*$/m, ''));
    expect(await listed()).toEqual(expected);
  });

  it('migration 3 turns the jsonb info of existing sessions into text and keeps it', async () => {
    const schema = `tb_pgmig_${Date.now().toString(36)}`;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"`);
      await c.query(
        'CREATE TABLE tb_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      for (const m of MIGRATIONS.filter((x) => x.version < 3)) {
        await c.query(m.sql ?? '');
        await c.query('INSERT INTO tb_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      }
      await c.query(
        `INSERT INTO tb_sessions (id, source, title, created_at, updated_at, info)
         VALUES ('old', 'threadbase', 'old one', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '{"meta":{"k":"v"},"directories":["/a"]}'::jsonb)`,
      );
      const store = await openPostgresStore(`${PG_URL}?schema=${schema}`);
      try {
        const old = await store.getSession('old');
        expect(old?.meta).toEqual({ k: 'v' });
        expect(old?.directories).toEqual(['/a']);
        expect(old?.title).toBe('old one');
        const type = await c.query<{ data_type: string }>(
          `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'tb_sessions' AND column_name = 'info'`,
          [schema],
        );
        expect(type.rows[0]?.data_type).toBe('text');
      } finally {
        await store.close();
      }
    } finally {
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await c.end();
    }
  });

  it('concurrent writers to the same and to different sessions lose, duplicate and reorder nothing', async () => {
    const shared = await db.store.writeSession(session([msg('root', null, 'user', 'go')]));
    const others = await Promise.all(
      [0, 1, 2, 3].map((i) => db.store.writeSession(session([msg(`o${i}-root`, null, 'user', `other ${i}`)]))),
    );
    const writers = 8;
    const perWriter = 25;
    // Each writer appends its own chain in order; some appends repeat (a retried push).
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        let parent = 'root';
        for (let i = 0; i < perWriter; i++) {
          const e = msg(`w${w}-${i}`, parent, i % 2 ? 'assistant' : 'user', `writer ${w} step ${i}`);
          await db.store.appendEntries(shared.id, [e]);
          if (i % 5 === 0) await db.store.appendEntries(shared.id, [e]);
          const target = others[w % others.length];
          if (target) {
            const prev = i === 0 ? `o${w % others.length}-root` : `ow${w}-${i - 1}`;
            await db.store.appendEntries(target.id, [msg(`ow${w}-${i}`, prev, 'user', `o ${w} ${i}`)]);
          }
          parent = e.id;
        }
      }),
    );
    const s = await db.store.getSession(shared.id);
    const ids = s?.entries.map((e) => e.id) ?? [];
    expect(ids.length).toBe(1 + writers * perWriter);
    expect(new Set(ids).size).toBe(ids.length);
    for (let w = 0; w < writers; w++) {
      const mine = ids.filter((id) => id.startsWith(`w${w}-`));
      expect(mine).toEqual(Array.from({ length: perWriter }, (_, i) => `w${w}-${i}`));
    }
    const seqs = (
      await db.store.pool.query<{ seq: string }>('SELECT seq FROM tb_entries WHERE session_id = $1 ORDER BY seq', [shared.id])
    ).rows.map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i)); // no gaps, no repeats
    const [listed] = await db.store
      .listSessions({ text: 'go', project: '/work/app' })
      .then((l) => l.filter((x) => x.id === shared.id));
    expect(listed?.messageCount).toBe(1 + writers * perWriter);
    for (const [i, o] of others.entries()) {
      const got = await db.store.getSession(o.id);
      const expected = 1 + perWriter * [0, 1, 2, 3, 4, 5, 6, 7].filter((w) => w % others.length === i).length;
      expect(got?.entries.length).toBe(expected);
    }
  });

  it('uses its indexes for lookups', async () => {
    const c = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${db.schema}` });
    await c.connect();
    try {
      await c.query('SET enable_seqscan = off');
      const plan = async (sql: string, values: unknown[]) =>
        (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
      // With so few rows the planner may pick any of the indexes that fit; what matters is that one is used.
      const usesIndex = (p: string, index: RegExp) => {
        expect(p).not.toMatch(/Seq Scan/);
        expect(p).toMatch(index);
      };
      usesIndex(await plan('SELECT * FROM tb_entries WHERE tsv @@ websearch_to_tsquery($1)', ['x']), /tb_entries_tsv/);
      usesIndex(
        await plan('SELECT * FROM tb_sessions WHERE tenant = $1 ORDER BY updated_at DESC', ['']),
        /Index (Only )?Scan using tb_sessions_tenant_|Bitmap Index Scan on tb_sessions_tenant_/,
      );
      usesIndex(await plan('SELECT * FROM tb_sessions WHERE parent_id = $1', ['p']), /tb_sessions_parent/);
      usesIndex(
        await plan('SELECT body FROM tb_entries WHERE session_id = $1 AND id = $2', ['a', 'b']),
        /Index (Only )?Scan using tb_entries_(pkey|session_id)/,
      );
    } finally {
      await c.end();
    }
  });
});

describe('PostgresStore round trip', () => {
  it('keeps every part type, usage, cost, model and timestamps (random sessions)', async () => {
    const fc = await import('fast-check');
    const text = fc.string({ minLength: 1, maxLength: 40 });
    const part = fc.oneof(
      text.map((t) => ({ type: 'text' as const, text: t })),
      fc.record({ type: fc.constant('thinking' as const), thinking: text, signature: text }),
      fc.record({ type: fc.constant('redacted_thinking' as const), data: text }),
      fc.record({
        type: fc.constant('image' as const),
        mediaType: fc.constant('image/png'),
        data: fc.base64String({ maxLength: 24 }),
      }),
      fc.record({ type: fc.constant('file' as const), mediaType: fc.constant('text/plain'), text, name: text }),
      fc.record({
        type: fc.constant('tool_call' as const),
        id: text,
        name: text,
        input: fc.dictionary(text, fc.oneof(fc.integer(), text, fc.boolean())),
      }),
      fc.record({ type: fc.constant('tool_result' as const), callId: text, content: text, isError: fc.boolean() }),
    );
    const usage = fc.record({
      input: fc.nat(1e6),
      output: fc.nat(1e6),
      cacheRead: fc.nat(1e6),
      cacheWrite: fc.nat(1e6),
      reasoning: fc.nat(1e6),
    });
    const message = fc.record(
      {
        role: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const, 'system' as const),
        parts: fc.array(part, { minLength: 1, maxLength: 4 }),
        model: text,
        usage,
        cost: fc.double({ min: 0, max: 10, noNaN: true }),
        responseId: text,
      },
      { requiredKeys: ['role', 'parts'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 8 }), async (messages) => {
        const entries: Entry[] = messages.map((m, i) => ({
          kind: 'message',
          id: `m${i}`,
          parentId: i ? `m${i - 1}` : null,
          timestamp: new Date(Date.UTC(2025, 5, 1, 0, 0, i, 123)).toISOString(),
          message: m,
        }));
        entries.push({
          kind: 'compaction',
          id: 'c',
          parentId: `m${messages.length - 1}`,
          timestamp: '2025-06-02T00:00:00.000Z',
          summary: 'sum',
          firstKeptEntryId: 'm0',
          tokensBefore: 10,
        });
        const info = await db.store.writeSession(session(entries));
        const back = await db.store.getSession(info.id);
        expect(back?.entries).toEqual(entries);
        await db.store.deleteSession(info.id);
      }),
      { numRuns: 25 },
    );
  });
});
