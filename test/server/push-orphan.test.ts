/**
 * A session that grew an entry whose parent it does not have (a Claude Code record naming one not
 * in its file: the reader keeps it and says it starts a new root) is pushed again like any other:
 * the server's append refused it (409), so every later push of that session failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import type { RunningServer } from '../../src/server/index.js';
import { pushSessions } from '../../src/server/push.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { type TestSchema, teamServer } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let key: string;
let dir: string;

beforeAll(async () => {
  ({ db, server, key } = await teamServer('tb_push_orphan'));
  dir = await mkdtemp(join(tmpdir(), 'tb-push-orphan-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('push of a session that grew an entry without its parent', () => {
  it('adds it, as a root, and the push succeeds', async () => {
    const first: Session = {
      id: 'grown',
      source: 'claude',
      project: '/p',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      messageCount: 2,
      entries: [
        messageEntry('u1', null, 0, textMessage('user', 'first')),
        messageEntry('a1', 'u1', 1, textMessage('assistant', 'answer')),
      ],
    };
    // the session as read later: grown by a record naming a parent not in its file (kept, as readers do)
    const grown: Session = {
      ...first,
      updatedAt: '2026-01-01T00:00:06.000Z',
      entries: [
        ...first.entries,
        messageEntry('u2', 'not-in-this-file', 5, textMessage('user', 'after a gap')),
        messageEntry('a2', 'u2', 6, textMessage('assistant', 'still here')),
      ],
    };
    const push = async (s: Session) => {
      const local = new MemoryStore();
      await local.writeSession(s, { keepId: true });
      return pushSessions({ from: local, to: server.url, key, statePath: join(dir, 'push-state.json') });
    };
    expect((await push(first)).created).toBe(1);
    const again = await push(grown);
    expect(again.failed).toEqual([]);
    expect(again.entriesSent).toBe(2);
    const stored = await db.store
      .forTenant((await db.store.pool.query('SELECT id FROM tb_projects')).rows[0].id)
      .getSession('grown');
    expect(stored?.entries.map((e) => [e.id, e.parentId])).toEqual([
      ['u1', null],
      ['a1', 'u1'],
      ['u2', null],
      ['a2', 'u2'],
    ]);
  });
});
