/**
 * A message's parent_id is the message before it, as Acontext answers, also when a configs change or a
 * space connection (kept as a metadata entry of the session) came between them: through the real
 * @acontext/acontext SDK, on PostgreSQL (which appends in one transaction) and on SQLite.
 */
import { AcontextClient } from '@acontext/acontext';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

/** A message as the acontext format lists it (the SDK types the items of every format as unknown). */
interface Stored {
  id: string;
  parent_id: string | null;
}

type Backend = ServerBackend;

const backends: Record<string, () => Promise<Backend>> = {
  PostgreSQL: () => postgresBackend('tb_acparent'),
  SQLite: () => sqliteBackend('tb-acparent-'),
};

for (const [name, open] of Object.entries(backends)) {
  describe(`Acontext parent_id on ${name}`, () => {
    let backend: Backend;
    let server: RunningServer;
    let client: AcontextClient;
    beforeAll(async () => {
      backend = await open();
      const key = (await backend.tokens.createToken('team-a')).key;
      server = await startServer({ store: backend.store, tokens: backend.tokens, port: 0, log: () => undefined });
      client = new AcontextClient({ apiKey: key, baseUrl: `${server.url}/api/v1` });
    });
    afterAll(async () => {
      await server?.close();
      await backend?.close();
    });

    it('is the previous message after updateConfigs and connectToSpace, when stored and when listed', async () => {
      const a = client;
      const s = await a.sessions.create();
      const first = await a.sessions.storeMessage(s.id, { role: 'user', content: 'hello' }, { format: 'anthropic' });
      expect(first.parent_id).toBeNull();
      await a.sessions.updateConfigs(s.id, { configs: { purpose: 'second' } });
      const second = await a.sessions.storeMessage(s.id, { role: 'assistant', content: 'hi' }, { format: 'anthropic' });
      expect(second.parent_id).toBe(first.id);
      await a.sessions.connectToSpace(s.id, { spaceId: 'space-1' });
      await a.sessions.updateConfigs(s.id, { configs: { purpose: 'third' } });
      const third = await a.sessions.storeMessage(s.id, { role: 'user', content: 'again' }, { format: 'anthropic' });
      expect(third.parent_id).toBe(second.id);
      const listed = await a.sessions.getMessages(s.id, { format: 'acontext', timeDesc: false });
      expect((listed.items as Stored[]).map((m) => [m.id, m.parent_id])).toEqual([
        [first.id, null],
        [second.id, first.id],
        [third.id, second.id],
      ]);
    });

    it('a change made before the first message leaves it without a parent', async () => {
      const s = await client.sessions.create();
      await client.sessions.updateConfigs(s.id, { configs: { purpose: 'early' } });
      const first = await client.sessions.storeMessage(s.id, { role: 'user', content: 'hello' }, { format: 'anthropic' });
      expect(first.parent_id).toBeNull();
      const listed = await client.sessions.getMessages(s.id, { format: 'acontext' });
      expect((listed.items as Stored[]).map((m) => m.parent_id)).toEqual([null]);
    });
  });
}
