/**
 * The proof: the real @acontext/acontext SDK against a running `threadbase serve` over the real
 * PostgreSQL (a fresh schema), through HTTP on loopback.
 */
import { AcontextClient, APIError } from '@acontext/acontext';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore } from '../../src/server/tokens.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let keyA: string;
let keyB: string;
const logged: string[] = [];

beforeAll(async () => {
  db = await freshSchema('tb_acontext');
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  keyA = (await tokens.createToken('team-a')).key;
  keyB = (await tokens.createToken('team-b')).key;
  server = await startServer({ store: db.store, tokens, port: 0, log: (l) => logged.push(l) });
});

afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const client = (key: string) => new AcontextClient({ apiKey: key, baseUrl: `${server.url}/api/v1` });

async function apiError(p: Promise<unknown>): Promise<APIError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error('expected an APIError');
}

describe('Acontext SDK against threadbase serve over PostgreSQL', () => {
  it('stores Anthropic messages with a tool call and reads them back as OpenAI and Anthropic', async () => {
    const a = client(keyA);
    const session = await a.sessions.create({ configs: { purpose: 'proof' } });
    expect(session.configs).toEqual({ purpose: 'proof' });
    expect(session.project_id).toBeTruthy();

    const stored = await a.sessions.storeMessage(
      session.id,
      { role: 'user', content: [{ type: 'text', text: 'list the files' }] },
      { format: 'anthropic' },
    );
    expect(stored.role).toBe('user');
    expect(stored.parts).toEqual([{ type: 'text', text: 'list the files' }]);
    const call = await a.sessions.storeMessage(
      session.id,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Running ls.' },
          { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'ls' } },
        ],
      },
      { format: 'anthropic' },
    );
    expect(call.parent_id).toBe(stored.id);
    expect(call.parts[1]).toMatchObject({ type: 'tool-call', meta: { id: 'toolu_01', name: 'bash' } });
    await a.sessions.storeMessage(
      session.id,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'a.txt\nb.txt' }] },
      { format: 'anthropic' },
    );
    await a.sessions.storeMessage(session.id, { role: 'assistant', content: 'Two files.' }, { format: 'anthropic' });

    const openai = await a.sessions.getMessages(session.id, { format: 'openai', timeDesc: false });
    expect(openai.has_more).toBe(false);
    expect(openai.items).toEqual([
      { role: 'user', content: 'list the files' },
      {
        role: 'assistant',
        content: 'Running ls.',
        tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'a.txt\nb.txt' },
      { role: 'assistant', content: 'Two files.' },
    ]);
    expect(openai.ids).toHaveLength(4);
    expect(openai.ids[1]).toBe(call.id);

    const anthropic = await a.sessions.getMessages(session.id, { format: 'anthropic', timeDesc: false });
    expect(anthropic.items[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running ls.' },
        { type: 'tool_use', id: 'toolu_01', name: 'bash', input: { command: 'ls' } },
      ],
    });
    expect(anthropic.items[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01' }],
    });

    // SDK default is newest first; paging with the cursor walks all four without repeats.
    const page1 = await a.sessions.getMessages(session.id, { format: 'anthropic', limit: 3 });
    expect(page1.has_more).toBe(true);
    expect(page1.items[0]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] });
    const page2 = await a.sessions.getMessages(session.id, {
      format: 'anthropic',
      limit: 3,
      cursor: page1.next_cursor ?? undefined,
    });
    expect(page2.has_more).toBe(false);
    expect([...page1.ids, ...page2.ids].reverse()).toEqual(anthropic.ids);

    const tokens = await a.sessions.getTokenCounts(session.id);
    expect(tokens.total_tokens).toBeGreaterThan(5);

    const listed = await a.sessions.list();
    expect(listed.items.map((s) => s.id)).toContain(session.id);
  });

  it('rejects bad blobs with 400 and a clear message', async () => {
    const a = client(keyA);
    const { id } = await a.sessions.create();
    const bad: [unknown, RegExp][] = [
      [{ role: 'user', content: [] }, /no blocks/],
      [{ role: 'user', content: [{ type: 'text', text: '' }] }, /empty text/],
      [
        { role: 'user', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] },
        /tool_use is only allowed in an assistant/,
      ],
      [
        { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
        /tool_result is only allowed in a user/,
      ],
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: 'ls' }] }, /input must be an object/],
    ];
    for (const [blob, message] of bad) {
      const e = await apiError(a.sessions.storeMessage(id, blob as Record<string, unknown>, { format: 'anthropic' }));
      expect(e.statusCode).toBe(400);
      expect(e.message).toMatch(message);
    }
    const none = await a.sessions.getMessages(id, { format: 'openai' });
    expect(none.items).toEqual([]);
    expect(logged.some((l) => l.includes('400'))).toBe(true);
  });

  it('a wrong key is 401; another project sees 404 and never lists the session', async () => {
    const a = client(keyA);
    const { id } = await a.sessions.create();
    await a.sessions.storeMessage(id, { role: 'user', content: 'secret plans' }, { format: 'anthropic' });

    const wrong = await apiError(client('tb_not_a_key').sessions.list());
    expect(wrong.statusCode).toBe(401);

    const b = client(keyB);
    expect((await apiError(b.sessions.getMessages(id, { format: 'openai' }))).statusCode).toBe(404);
    expect(
      (await apiError(b.sessions.storeMessage(id, { role: 'user', content: 'hi' }, { format: 'anthropic' }))).statusCode,
    ).toBe(404);
    expect((await apiError(b.sessions.delete(id))).statusCode).toBe(404);
    expect((await apiError(b.sessions.getTokenCounts(id))).statusCode).toBe(404);
    expect((await b.sessions.list()).items.map((s) => s.id)).not.toContain(id);

    const res = await fetch(`${server.url}/api/v1/threadbase/search?q=secret`, { headers: { authorization: `Bearer ${keyB}` } });
    expect(((await res.json()) as { data: { hits: unknown[] } }).data.hits).toEqual([]);
    const own = await fetch(`${server.url}/api/v1/threadbase/search?q=secret`, { headers: { authorization: `Bearer ${keyA}` } });
    const hits = ((await own.json()) as { data: { hits: { sessionId: string }[] } }).data.hits;
    expect(hits.map((h) => h.sessionId)).toContain(id);

    await a.sessions.delete(id);
    expect((await apiError(a.sessions.getMessages(id))).statusCode).toBe(404);
  });
});
