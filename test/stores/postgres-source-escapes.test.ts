/**
 * A `source` filter on PostgreSQL reads a pushed session's agent from its info JSON, which keeps a
 * title or project a text column cannot hold (a NUL, an unpaired surrogate) as an escape jsonb
 * refuses: one such session made every `?source=` listing, search and count of its project fail (500).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { freshSchema, type TestSchema } from '../server/pg-helpers.js';

const session = (id: string, title: string, project: string): Session => ({
  ...chainSession(id, 'claude', project, [
    [`${id}-u`, textMessage('user', 'hello walrus')],
    [
      `${id}-a`,
      textMessage('assistant', 'walrus reply', {
        model: 'claude-sonnet-4',
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      }),
    ],
  ]),
  title,
});

let pg: TestSchema;

beforeAll(async () => {
  pg = await freshSchema('tb_source_esc');
  await pg.store.writeSession(session('plain', 'a plain title', '/p'), { keepId: true });
  await pg.store.writeSession(session('nul', 'a title with \u0000 in it', '/p'), { keepId: true });
  await pg.store.writeSession(session('lone', 'cut \uD83D emoji', '/p\uDC00q'), { keepId: true });
  // an escaped backslash before "u0000" is text, not an escape: read as it is
  await pg.store.writeSession(session('slash', 'C:\\u0000dir \u0000', '/p'), { keepId: true });
}, 60_000);

afterAll(async () => {
  await pg?.drop();
});

describe('PostgreSQL source filter over info with escapes jsonb refuses', () => {
  it('lists, searches and counts every session of the agent', async () => {
    const listed = await pg.store.listSessions({ source: 'claude' });
    expect(listed.map((s) => s.id).sort()).toEqual(['lone', 'nul', 'plain', 'slash']);
    expect(listed.find((s) => s.id === 'nul')?.title).toBe('a title with \u0000 in it');
    const hits = await pg.store.search('walrus', { source: 'claude', role: 'assistant' });
    expect(hits.map((h) => h.sessionId).sort()).toEqual(['lone', 'nul', 'plain', 'slash']);
    expect((await pg.store.usage({ source: 'claude' })).output).toBe(20);
    expect(await pg.store.listSessions({ source: 'pi' })).toEqual([]);
  });
});
