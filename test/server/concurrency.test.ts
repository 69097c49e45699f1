/**
 * Many clients storing messages at once through HTTP, into the same and different sessions over
 * PostgreSQL: every accepted message is there once, and each session stays one linear chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/index.js';
import { type TestSchema, teamServer } from './pg-helpers.js';

let db: TestSchema;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  ({ db, server, key } = await teamServer('tb_conc', 'load'));
});
afterAll(async () => {
  await server?.close();
  await db?.drop();
});

const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

describe('concurrent appends over HTTP', () => {
  it('lose, duplicate and reorder nothing', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${server.url}/api/v1/session`, { method: 'POST', headers: headers(), body: '{}' });
      sessions.push(((await r.json()) as { data: { id: string } }).data.id);
    }
    const perSession = 30;
    const results = await Promise.all(
      Array.from({ length: perSession * sessions.length }, async (_, n) => {
        const sid = sessions[n % sessions.length] as string;
        const r = await fetch(`${server.url}/api/v1/session/${sid}/messages`, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify({ blob: { role: n % 2 ? 'assistant' : 'user', content: `message ${n}` }, format: 'anthropic' }),
        });
        return { sid, status: r.status, id: ((await r.json()) as { data: { id: string } }).data.id };
      }),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    for (const sid of sessions) {
      const mine = results.filter((r) => r.sid === sid).map((r) => r.id);
      const got = await fetch(`${server.url}/api/v1/session/${sid}/messages?format=acontext&time_desc=false`, {
        headers: headers(),
      });
      const data = ((await got.json()) as { data: { ids: string[]; items: { parent_id: string | null }[] } }).data;
      expect(data.ids.length).toBe(perSession);
      expect(new Set(data.ids)).toEqual(new Set(mine));
      // one chain: each message's parent is the one stored before it
      expect(data.items.map((item) => item.parent_id)).toEqual([null, ...data.ids.slice(0, -1)]);
      const ctx = await fetch(`${server.url}/api/v1/threadbase/sessions/${sid}/context?format=openai`, { headers: headers() });
      const messages = ((await ctx.json()) as { data: { context: { messages: unknown[] } } }).data.context.messages;
      expect(messages).toHaveLength(perSession);
    }
  });
});
