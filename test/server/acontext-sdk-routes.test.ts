/**
 * The Acontext SDK's session calls that had no route here (updateConfigs, connectToSpace, getTasks,
 * flush, getLearningStatus), made through the real @acontext/acontext client against a server on a
 * real PostgreSQL schema.
 */
import { AcontextClient, APIError } from '@acontext/acontext';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { PostgresTokenStore } from '../../src/server/tokens.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  db = await freshSchema('tb_acsdk');
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  keyA = (await tokens.createToken('team-a')).key;
  keyB = (await tokens.createToken('team-b')).key;
  server = await startServer({ store: db.store, tokens, port: 0, log: () => undefined });
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const client = (key: string) => new AcontextClient({ apiKey: key, baseUrl: `${server.url}/api/v1` });

async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (error) {
    if (error instanceof APIError) return error.statusCode;
    throw error;
  }
  return 200;
}

describe('Acontext SDK routes over PostgreSQL', () => {
  it('updateConfigs replaces the configs, kept across reads and listed, messages unchanged', async () => {
    const a = client(keyA);
    const s = await a.sessions.create({ configs: { purpose: 'first', keep: 1 } });
    await a.sessions.storeMessage(s.id, { role: 'user', content: 'hello' }, { format: 'anthropic' });
    await a.sessions.updateConfigs(s.id, { configs: { purpose: 'second' } });
    expect((await a.sessions.getConfigs(s.id)).configs).toEqual({ purpose: 'second' });
    const listed = await a.sessions.list();
    expect(listed.items.find((x) => x.id === s.id)?.configs).toEqual({ purpose: 'second' });
    // the change is no message: the messages are the two stored, in order
    await a.sessions.storeMessage(s.id, { role: 'assistant', content: 'hi' }, { format: 'anthropic' });
    const messages = await a.sessions.getMessages(s.id, { format: 'anthropic', timeDesc: false });
    expect(messages.items).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    ]);
  });

  it('connectToSpace records the space: getConfigs names it, list filters by it', async () => {
    const a = client(keyA);
    const s = await a.sessions.create();
    const other = await a.sessions.create();
    await a.sessions.connectToSpace(s.id, { spaceId: 'space-1' });
    expect((await a.sessions.getConfigs(s.id)).space_id).toBe('space-1');
    const inSpace = await a.sessions.list({ spaceId: 'space-1' });
    expect(inSpace.items.map((x) => x.id)).toEqual([s.id]);
    const loose = await a.sessions.list({ notConnected: true });
    expect(loose.items.map((x) => x.id)).toContain(other.id);
    expect(loose.items.map((x) => x.id)).not.toContain(s.id);
  });

  it('getTasks is an empty list, flush a no-op success, learning status zero', async () => {
    const a = client(keyA);
    const s = await a.sessions.create();
    await a.sessions.storeMessage(s.id, { role: 'user', content: 'do a thing' });
    expect(await a.sessions.getTasks(s.id, { limit: 5, timeDesc: true })).toEqual({
      items: [],
      next_cursor: null,
      has_more: false,
    });
    expect(await a.sessions.flush(s.id)).toEqual({ status: 0, errmsg: '' });
    expect(await a.sessions.getLearningStatus(s.id)).toEqual({ space_digested_count: 0, not_space_digested_count: 0 });
  });

  it('answers 404 for a session of another project or none, and 400 for a bad body', async () => {
    const a = client(keyA);
    const b = client(keyB);
    const s = await a.sessions.create({ configs: { owner: 'a' } });
    expect(await statusOf(b.sessions.updateConfigs(s.id, { configs: { owner: 'b' } }))).toBe(404);
    expect(await statusOf(b.sessions.connectToSpace(s.id, { spaceId: 'x' }))).toBe(404);
    expect(await statusOf(b.sessions.getTasks(s.id))).toBe(404);
    expect(await statusOf(b.sessions.flush(s.id))).toBe(404);
    expect(await statusOf(a.sessions.flush('no-such-session'))).toBe(404);
    expect((await a.sessions.getConfigs(s.id)).configs).toEqual({ owner: 'a' });
    expect(await statusOf(a.sessions.connectToSpace(s.id, { spaceId: '' }))).toBe(400);
  });
});
