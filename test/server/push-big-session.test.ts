/**
 * A big session pushed in many requests to a PostgreSQL server: each request adding to the stored
 * session read it whole (a 50 MB session: 0.5 s and ~500 MB of heap a request, the whole session once
 * per 4 MiB sent). The server now asks the store only which of the pushed entries it has.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendMessage, createSession } from '../../src/model/build.js';
import type { RunningServer } from '../../src/server/index.js';
import { pushSessions } from '../../src/server/push.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { PostgresStore } from '../../src/stores/postgres/index.js';
import { type TestSchema, teamServer } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let key: string;
let dir: string;

beforeAll(async () => {
  ({ db, server, key } = await teamServer('tb_push_big'));
  dir = await mkdtemp(join(tmpdir(), 'tb-push-big-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a big session pushed in many requests', () => {
  it('is stored whole and in order, no request adding to it reading the stored session', async () => {
    const session = createSession({ id: 'big', project: '/p', title: 'big one', createdAt: '2026-01-01T00:00:00.000Z' });
    const turn = (i: number) =>
      appendMessage(
        session,
        { role: i % 2 ? 'assistant' : 'user', content: `turn ${i} ${'words '.repeat(300)}` },
        {
          timestamp: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
        },
      );
    for (let i = 0; i < 120; i++) turn(i);
    const push = async () => {
      const local = new MemoryStore();
      await local.writeSession(
        { ...session, updatedAt: session.entries.at(-1)?.timestamp ?? session.createdAt },
        { keepId: true },
      );
      return pushSessions({ from: local, to: server.url, key, statePath: join(dir, 'state.json'), maxBodyBytes: 40_000 });
    };
    const reads = vi.spyOn(PostgresStore.prototype, 'getSession');
    try {
      const first = await push();
      expect(first.failed).toEqual([]);
      expect(first.requests).toBeGreaterThan(5);
      // the session read only around its creation (whether the id is free, what was written), not per request
      expect(reads.mock.calls.length).toBeLessThanOrEqual(3);
      reads.mockClear();
      for (let i = 120; i < 130; i++) turn(i);
      const again = await push();
      expect(again.entriesSent).toBe(10);
      expect(reads).not.toHaveBeenCalled();
    } finally {
      reads.mockRestore();
    }
    const tenant = (await db.store.pool.query<{ id: string }>('SELECT id FROM tb_projects')).rows[0]?.id ?? '';
    const stored = await db.store.forTenant(tenant).getSession('big');
    expect(stored?.entries.map((e) => e.id)).toEqual(session.entries.map((e) => e.id));
    expect(stored?.title).toBe('big one');
  });
});
