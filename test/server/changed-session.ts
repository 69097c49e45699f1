/**
 * What the push tests of an entry changed under its id share: the session as first pushed and as read
 * later, a one-session store to push from, and a server on a backend with two projects' keys and a temp
 * directory for push states, started before a describe block's tests and closed after them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import type { ServerBackend } from './pg-helpers.js';

export const first: Session = {
  id: 'talk',
  source: 'claude',
  project: '/p',
  title: 'a talk',
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: '2026-03-01T00:00:01.000Z',
  messageCount: 2,
  entries: [
    messageEntry('u1', null, 0, textMessage('user', 'question')),
    messageEntry('a1', 'u1', 1, textMessage('assistant', 'the first answer')),
  ],
};

/** Read again later: a1 holds other content under its id (a reader upgrade, a record written twice), and a prompt follows. */
export const changed: Session = {
  ...first,
  updatedAt: '2026-03-01T00:00:09.000Z',
  messageCount: 3,
  entries: [
    first.entries[0] as Entry,
    messageEntry('a1', 'u1', 1, textMessage('assistant', 'another answer')),
    messageEntry('u2', 'a1', 8, textMessage('user', 'next question')),
  ],
};

/** A one-session store to push from. */
export async function holding(s: Session): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.writeSession(s, { keepId: true });
  return store;
}

export interface PushServer {
  backend: ServerBackend;
  server: RunningServer;
  /** the keys of two projects */
  key: string;
  otherKey: string;
  /** a temp directory for push states */
  dir: string;
}

/** A server on `backendOf()`'s store for the enclosing describe block (beforeAll/afterAll); read it in tests. */
export function pushServerFor(backendOf: () => Promise<ServerBackend>, dirPrefix: string): PushServer {
  const at = {} as PushServer;
  beforeAll(async () => {
    at.backend = await backendOf();
    at.key = (await at.backend.tokens.createToken('team')).key;
    at.otherKey = (await at.backend.tokens.createToken('other team')).key;
    at.server = await startServer({ store: at.backend.store, tokens: at.backend.tokens, port: 0, log: () => undefined });
    at.dir = await mkdtemp(join(tmpdir(), dirPrefix));
  }, 60_000);
  afterAll(async () => {
    await at.server?.close();
    await at.backend?.close();
    if (at.dir) await rm(at.dir, { recursive: true, force: true });
  });
  return at;
}
