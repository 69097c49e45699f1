/**
 * A session pushed to PostgreSQL before migration 8 kept written_by NULL; the server's PUT (push)
 * now marks it when a later push says threadbase wrote it, also one stored under the project's
 * alias (another project holds its id). Without it, a copy counted as an original for good.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { createApp } from '../../src/server/app.js';
import { PostgresTokenStore } from '../../src/server/tokens.js';
import { helloSession } from '../helpers/sessions.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

let db: TestSchema;
let app: ReturnType<typeof createApp>;
let key: string;
let other: string;

beforeAll(async () => {
  db = await freshSchema('tb_push_written_by');
  const tokens = new PostgresTokenStore(db.store.pool, db.store.ready());
  key = (await tokens.createToken('team')).key;
  other = (await tokens.createToken('other')).key;
  app = createApp({ store: db.store, tokens, log: () => undefined });
}, 60_000);

afterAll(async () => {
  await db?.drop();
});

const put = async (k: string, session: Session & { writtenBy?: 'threadbase' }) => {
  const { entries, ...head } = session;
  const res = await app.request(`/api/v1/threadbase/sessions/${session.id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session: head, entries }),
  });
  expect(res.status).toBeLessThan(300);
};

const writtenBy = async (k: string, id: string) => {
  const res = await app.request(`/api/v1/threadbase/sessions/${id}`, { headers: { authorization: `Bearer ${k}` } });
  return ((await res.json()) as { data: Session }).data.writtenBy;
};

describe('PUT of a session threadbase wrote, stored without the mark', () => {
  it('marks it, under its id and under an alias', async () => {
    // as pushed before migration 8: the mark not kept
    await put(other, helloSession('copy-1'));
    await put(key, helloSession('copy-1')); // another project holds the id: stored under an alias
    await put(key, helloSession('copy-2'));
    expect(await writtenBy(key, 'copy-1')).toBeUndefined();
    expect(await writtenBy(key, 'copy-2')).toBeUndefined();
    // pushed again, the header saying threadbase wrote it
    await put(key, { ...helloSession('copy-1'), writtenBy: 'threadbase' });
    await put(key, { ...helloSession('copy-2'), writtenBy: 'threadbase' });
    expect(await writtenBy(key, 'copy-1')).toBe('threadbase');
    expect(await writtenBy(key, 'copy-2')).toBe('threadbase');
    // another project's session of that id is not touched
    expect(await writtenBy(other, 'copy-1')).toBeUndefined();
  });
});
