/**
 * The server's routes in process (app.request), over the memory store wrapped per project: the
 * scoping any non-PostgreSQL store gets, OpenAI blobs, threadbase routes, errors.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';

let app: ReturnType<typeof createApp>;
let keyA: string;
let keyB: string;
let logs: string[];

beforeEach(async () => {
  const tokens = new MemoryTokenStore();
  keyA = (await tokens.createToken('a')).key;
  keyB = (await tokens.createToken('b')).key;
  logs = [];
  app = createApp({ store: new MemoryStore(), tokens, maxBodyBytes: 50_000, log: (l) => logs.push(l) });
});

async function call(method: string, path: string, key: string, body?: unknown) {
  const res = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field below
  let json: { code: number; data?: any; msg: string } = { code: -1, msg: text };
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text };
}

async function newSession(key = keyA): Promise<string> {
  const r = await call('POST', '/api/v1/session', key, {});
  expect(r.status).toBe(201);
  return r.json.data.id as string;
}

describe('Acontext routes', () => {
  it('stores OpenAI messages and reads them back as Anthropic', async () => {
    const id = await newSession();
    const blobs = [
      { role: 'user', content: 'what time is it' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'clock', arguments: '{"tz":"UTC"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '12:00' },
      { role: 'assistant', content: 'Noon.' },
    ];
    for (const blob of blobs)
      expect((await call('POST', `/api/v1/session/${id}/messages`, keyA, { blob, format: 'openai' })).status).toBe(201);
    const r = await call('GET', `/api/v1/session/${id}/messages?format=anthropic&time_desc=false`, keyA);
    expect(r.json.data.items).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'what time is it' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'clock', input: { tz: 'UTC' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '12:00' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Noon.' }] },
    ]);
    const back = await call('GET', `/api/v1/session/${id}/messages?format=openai&time_desc=false`, keyA);
    expect(back.json.data.items[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '12:00' });
    const acontext = await call('GET', `/api/v1/session/${id}/messages?format=acontext&time_desc=false`, keyA);
    expect(acontext.json.data.items[2].parts[0]).toMatchObject({ type: 'tool-result', meta: { tool_call_id: 'call_1' } });
  });

  it('rejects bad OpenAI blobs, bad formats, bad cursors and unknown sessions', async () => {
    const id = await newSession();
    const bad = [
      { role: 'user', content: '' },
      { role: 'user', content: [] },
      { role: 'tool', content: 'x' },
      { role: 'user', content: 'x', tool_calls: [] },
      { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }] },
      { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] },
      'just a string',
    ];
    for (const blob of bad) {
      const r = await call('POST', `/api/v1/session/${id}/messages`, keyA, { blob, format: 'openai' });
      expect(r.status, JSON.stringify(blob)).toBe(400);
      expect(r.json.msg.length).toBeGreaterThan(5);
    }
    expect(
      (await call('POST', `/api/v1/session/${id}/messages`, keyA, { blob: { role: 'user', content: 'x' }, format: 'gemini' }))
        .status,
    ).toBe(400);
    expect((await call('POST', `/api/v1/session/${id}/messages`, keyA, '{not json')).status).toBe(400);
    expect((await call('GET', `/api/v1/session/${id}/messages?format=xml`, keyA)).status).toBe(400);
    expect((await call('GET', `/api/v1/session/${id}/messages?cursor=bm9wZQ`, keyA)).status).toBe(400);
    expect((await call('GET', `/api/v1/session/${id}/messages?limit=-3`, keyA)).status).toBe(400);
    expect((await call('GET', '/api/v1/session/no-such/messages', keyA)).status).toBe(404);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs[0]).toMatch(/400 POST \/api\/v1\/session\/.*bad requests in the last minute/);
  });

  it('answers 413 for a body over the limit and 401 without a key', async () => {
    const id = await newSession();
    const r = await call('POST', `/api/v1/session/${id}/messages`, keyA, {
      blob: { role: 'user', content: 'x'.repeat(60_000) },
      format: 'anthropic',
    });
    expect(r.status).toBe(413);
    expect((await app.request('/api/v1/session')).status).toBe(401);
    expect((await app.request('/api/v1/session', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
  });

  it('pages sessions and keeps projects apart in the wrapped store', async () => {
    const ids = [await newSession(), await newSession(), await newSession()];
    const theirs = await newSession(keyB);
    const p1 = await call('GET', '/api/v1/session?limit=2', keyA);
    expect(p1.json.data.has_more).toBe(true);
    const p2 = await call('GET', `/api/v1/session?limit=2&cursor=${p1.json.data.next_cursor}`, keyA);
    expect(p2.json.data.has_more).toBe(false);
    const seen = [...p1.json.data.items, ...p2.json.data.items].map((s: { id: string }) => s.id);
    expect(seen.sort()).toEqual([...ids].sort());
    expect(seen).not.toContain(theirs);
    const spaced = await call('POST', '/api/v1/session', keyA, { space_id: 'space-1' });
    const inSpace = await call('GET', '/api/v1/session?space_id=space-1', keyA);
    expect(inSpace.json.data.items.map((s: { id: string }) => s.id)).toEqual([spaced.json.data.id]);
    const loose = await call('GET', '/api/v1/session?not_connected=true&limit=10', keyA);
    expect(loose.json.data.items.map((s: { id: string }) => s.id).sort()).toEqual([...ids].sort());
    expect((await call('DELETE', `/api/v1/session/${theirs}`, keyA)).status).toBe(404);
    expect((await call('GET', `/api/v1/threadbase/sessions/${theirs}`, keyA)).status).toBe(404);
    expect((await call('POST', `/api/v1/threadbase/sessions/${theirs}/fork`, keyA, {})).status).toBe(404);
  });
});

describe('NUL in an id or a query', () => {
  it('is a 400 on any store, as on PostgreSQL (which cannot hold it)', async () => {
    for (const path of [
      '/api/v1/threadbase/sessions/nul%00id',
      '/api/v1/threadbase/search?q=a%00b',
      '/api/v1/session/x%00/messages',
    ]) {
      const r = await call('GET', path, keyA);
      expect(r.status, path).toBe(400);
      expect(r.json.msg).toContain('NUL (U+0000)');
    }
  });
});

describe('threadbase routes', () => {
  async function conversation(): Promise<{ id: string; ids: string[] }> {
    const id = await newSession();
    const ids: string[] = [];
    for (const [role, text] of [
      ['user', 'plan the refactor'],
      ['assistant', 'first extract the parser'],
      ['user', 'go on'],
      ['assistant', 'then the lexer'],
    ]) {
      const r = await call('POST', `/api/v1/session/${id}/messages`, keyA, {
        blob: { role, content: text },
        format: 'anthropic',
      });
      ids.push(r.json.data.id);
    }
    return { id, ids };
  }

  it('lists with filters, gives context in every format, exports, searches and counts', async () => {
    const { id } = await conversation();
    const listed = await call('GET', '/api/v1/threadbase/sessions?text=refactor', keyA);
    expect(listed.json.data.sessions.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await call('GET', '/api/v1/threadbase/sessions?text=nothing-like-this', keyA)).json.data.sessions).toEqual([]);
    const anth = await call('GET', `/api/v1/threadbase/sessions/${id}/context?format=anthropic`, keyA);
    expect(anth.json.data.context.messages).toHaveLength(4);
    const md = await call('GET', `/api/v1/threadbase/sessions/${id}/export?format=markdown`, keyA);
    expect(md.text).toContain('then the lexer');
    expect((await call('GET', `/api/v1/threadbase/sessions/${id}/context?format=nope`, keyA)).status).toBe(400);
    const hits = await call('GET', '/api/v1/threadbase/search?q=lexer', keyA);
    expect(hits.json.data.hits).toHaveLength(1);
    expect((await call('GET', '/api/v1/threadbase/search?q=lexer', keyB)).json.data.hits).toEqual([]);
    const stats = await call('GET', '/api/v1/threadbase/stats', keyA);
    expect(stats.json.data.sessions).toBe(1);
    const tokens = await call('GET', `/api/v1/session/${id}/token_counts`, keyA);
    expect(tokens.json.data.total_tokens).toBe(
      Math.ceil('plan the refactorfirst extract the parsergo onthen the lexer'.length / 4),
    );
  });

  it('forks at an entry and branches in place', async () => {
    const { id, ids } = await conversation();
    const fork = await call('POST', `/api/v1/threadbase/sessions/${id}/fork`, keyA, { at: ids[1], title: 'alt' });
    expect(fork.status).toBe(201);
    const forked = await call('GET', `/api/v1/threadbase/sessions/${fork.json.data.id}/context?format=openai`, keyA);
    expect(forked.json.data.context.messages).toEqual([
      { role: 'user', content: 'plan the refactor' },
      { role: 'assistant', content: 'first extract the parser' },
    ]);
    // the fork belongs to the same project only
    expect((await call('GET', `/api/v1/threadbase/sessions/${fork.json.data.id}`, keyB)).status).toBe(404);

    const br = await call('POST', `/api/v1/threadbase/sessions/${id}/branch`, keyA, {
      at: ids[1],
      blob: { role: 'user', content: 'no, start with the lexer' },
      format: 'anthropic',
    });
    expect(br.status).toBe(201);
    const ctx = await call('GET', `/api/v1/threadbase/sessions/${id}/context?format=openai`, keyA);
    expect(ctx.json.data.context.messages.map((m: { content: string }) => m.content)).toEqual([
      'plan the refactor',
      'first extract the parser',
      'no, start with the lexer',
    ]);
    const old = await call('GET', `/api/v1/threadbase/sessions/${id}/context?format=openai&leaf=${ids[3]}`, keyA);
    expect(old.json.data.context.messages).toHaveLength(4);
    expect(
      (await call('POST', `/api/v1/threadbase/sessions/${id}/branch`, keyA, { at: 'nope', blob: { role: 'user', content: 'x' } }))
        .status,
    ).toBe(404);
  });

  it('PUT creates with the id, then adds only missing entries; bad entries are 400', async () => {
    const e = (id: string, parentId: string | null, text: string) => ({
      kind: 'message',
      id,
      parentId,
      timestamp: '2025-01-01T00:00:00.000Z',
      message: { role: 'user', parts: [{ type: 'text', text }] },
    });
    const first = await call('PUT', '/api/v1/threadbase/sessions/local-1', keyA, {
      session: { id: 'local-1' },
      entries: [e('a', null, 'x')],
    });
    expect(first.status).toBe(201);
    const again = await call('PUT', '/api/v1/threadbase/sessions/local-1', keyA, {
      session: { id: 'local-1' },
      entries: [e('a', null, 'x'), e('b', 'a', 'y')],
    });
    expect(again.json.data).toEqual({ id: 'local-1', created: false, added: 1 });
    const s = await call('GET', '/api/v1/threadbase/sessions/local-1', keyA);
    expect(s.json.data.entries.map((x: { id: string }) => x.id)).toEqual(['a', 'b']);
    // another project pushing the same local id gets its own session
    const b = await call('PUT', '/api/v1/threadbase/sessions/local-1', keyB, {
      session: { id: 'local-1' },
      entries: [e('a', null, 'z')],
    });
    expect(b.status).toBe(201);
    expect(b.json.data).toEqual({ id: 'local-1', created: true, added: 1 }); // its own, under the id it asked for
    expect(
      (await call('PUT', '/api/v1/threadbase/sessions/x', keyA, { session: { id: 'x' }, entries: [{ id: 1 }] })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/api/v1/threadbase/sessions/local-1/entries', keyA, { entries: [e('c', 'missing', 'q')] })).status,
    ).toBe(409);
  });
});
