/**
 * A project whose session id another project holds keeps its session under an alias (tenant-ids.ts);
 * a store's refusal of entries for it (duplicate_entry, orphan_entry) names the session by the id the
 * project asked for, as a typed field (SessionEntryError.sessionId) beside the message, over a real
 * SQLite file and a real PostgreSQL schema. Before, the message alone was rewritten by replacing the
 * alias's text in it, and the error said nothing typed of the session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionEntryError } from '../../src/model/errors.js';
import type { Session } from '../../src/model/types.js';
import { projectStores } from '../../src/server/scope.js';
import type { ProjectIdsDriver } from '../../src/server/tenant-ids.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { first } from './changed-session.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

describe.each([
  ['SQLite', () => sqliteBackend('tb-alias-refusal-')],
  ['PostgreSQL', () => postgresBackend('tb_alias_refusal')],
])('a refusal for a session kept under its alias, on %s', (_name, backendOf) => {
  let backend: ServerBackend;
  beforeAll(async () => {
    backend = await backendOf();
  }, 60_000);
  afterAll(async () => backend?.close());

  it('names the session as asked, in a field and in the message; its cause names the alias', async () => {
    const stores = projectStores(backend.store);
    const alpha = stores('alpha');
    const beta = stores('beta');
    const session: Session = { ...first, id: 'shared' };
    await alpha.writeSession?.(session, { keepId: true });
    expect((await beta.writeSession?.(session, { keepId: true }))?.id).toBe('shared');
    const alias = (beta as ProjectIdsDriver).aliasOf('shared');
    expect(alias).toMatch(/^shared~[0-9a-f]{16}$/);

    const refusals = [
      // a1 with other content
      [messageEntry('a1', 'u1', 1, textMessage('assistant', 'another answer'))],
      // a parent in neither the session nor the append
      [messageEntry('x1', 'nowhere', 2, textMessage('user', 'lost'))],
    ];
    for (const [entries, code, entryId] of [
      [refusals[0], 'duplicate_entry', 'a1'],
      [refusals[1], 'orphan_entry', 'x1'],
    ] as const) {
      const error = await beta.appendEntries?.('shared', [...entries]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SessionEntryError);
      expect(error).toMatchObject({ code, sessionId: 'shared', entryId, id: entryId });
      expect((error as Error).message).toMatch(/session shared\b/);
      expect((error as Error).message).not.toContain('~');
      expect((error as Error).cause).toMatchObject({ sessionId: alias });
    }
    // the project that holds the id itself is refused by its id, as the store names it
    const own = await alpha.appendEntries?.('shared', [...(refusals[0] ?? [])]).catch((e: unknown) => e);
    expect(own).toMatchObject({ code: 'duplicate_entry', sessionId: 'shared' });
    expect((own as Error).cause).toBeUndefined();
  });
});
