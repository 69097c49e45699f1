/**
 * Sessions pushed to PostgreSQL before migration 8 kept written_by NULL: a copy threadbase wrote into
 * an agent then counted as an original. Migration 10 settles the ones whose mark the server kept:
 * codex's (session_meta's originator `threadbase`, in the session's meta).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { openPostgresStore } from '../../src/stores/postgres/index.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

/** A session as a push sends it: the agent's source and meta, no writtenBy (as before migration 8). */
const pushed = (id: string, source: string, meta: Record<string, unknown>, title = 'go'): Session => ({
  ...chainSession(id, source, '/p', [[`${id}-u`, textMessage('user', 'go')]]),
  title,
  meta,
});

let db: TestSchema;

beforeAll(async () => {
  db = await freshSchema('tb_written_by');
  const written = [
    pushed('codex-copy', 'codex', { cli_version: '0.169.0', originator: 'threadbase', source: 'cli' }),
    pushed('codex-copy-nul', 'codex', { originator: 'threadbase' }, 'a title with \u0000 and \uD800'),
    pushed('codex-own', 'codex', { cli_version: '0.169.0', originator: 'codex_cli_rs', source: 'cli' }),
    // another agent's meta naming threadbase as its originator is no codex mark
    pushed('claude-own', 'claude', { originator: 'threadbase' }),
  ];
  for (const s of written) await db.store.writeSession(s, { keepId: true });
  // the rows as a server before migration 8 stored them: no mark; migration 10 not applied
  const c = new pg.Client({ connectionString: db.url.replace(/\?schema=.*/, '') });
  await c.connect();
  try {
    await c.query(`SET search_path = ${db.schema}`);
    expect((await c.query('SELECT 1 FROM tb_sessions WHERE written_by IS NOT NULL')).rowCount).toBe(0);
    await c.query('DELETE FROM tb_migrations WHERE version = 10');
  } finally {
    await c.end();
  }
}, 60_000);

afterAll(async () => {
  await db?.drop();
});

describe('PostgreSQL migration 10', () => {
  it("marks the codex sessions threadbase wrote, by their meta's originator, and no other", async () => {
    const reopened = await openPostgresStore(db.url);
    try {
      const marked = (await reopened.listSessions()).filter((s) => s.writtenBy === 'threadbase').map((s) => s.id);
      expect(marked.sort()).toEqual(['codex-copy', 'codex-copy-nul']);
    } finally {
      await reopened.close();
    }
  });
});
