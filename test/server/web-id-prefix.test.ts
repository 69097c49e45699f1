/**
 * The viewer's session routes take a unique prefix of a session's id, as the CLI does (`show abc12`,
 * by the same rule: pickSession); a prefix of several sessions is a 409 naming them, one of none a 404.
 * They took the whole id only (a 404 'session not found' for the prefix `show` takes).
 */
import { describe, expect, it } from 'vitest';
import { createWebApp } from '../../src/server/web/index.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { oneMessageSession } from '../helpers/sessions.js';

const web = 'http://localhost/api/v1/web';

async function viewer() {
  const store = new MemoryStore();
  for (const id of ['abc12345-one', 'abd00000-two', 'abd11111-three'])
    await store.writeSession(oneMessageSession(id, id), { keepId: true });
  return createWebApp({ driver: store, handoff: ['pi'] });
}

describe('web data routes: a session named by a prefix of its id', () => {
  it('every session route resolves a unique prefix to its session', async () => {
    const app = await viewer();
    const head = await app.request(`${web}/sessions/abc`);
    expect(head.status).toBe(200);
    expect(((await head.json()) as { info: { id: string } }).info.id).toBe('abc12345-one');
    for (const route of ['path', 'context', 'tree']) {
      const res = await app.request(`${web}/sessions/abc1/${route}`);
      expect(res.status, route).toBe(200);
    }
    const path = (await (await app.request(`${web}/sessions/abc1/path`)).json()) as { entries: { id: string }[] };
    expect(path.entries.map((e) => e.id)).toEqual(['u1']);
    const convert = await app.request(`${web}/sessions/abc/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'pi' }),
    });
    expect(convert.status).toBe(200);
    // the command names the whole id, which the reader's machine resolves as it is
    expect(((await convert.json()) as { command: string }).command).toMatch(/^threadbase handoff abc12345-one /);
    // a whole id is the session it names
    expect((await app.request(`${web}/sessions/abd00000-two`)).status).toBe(200);
  });

  it('a prefix of several sessions is a 409 naming them; a prefix of none a 404', async () => {
    const app = await viewer();
    const several = await app.request(`${web}/sessions/abd`);
    expect(several.status).toBe(409);
    const body = (await several.json()) as { error: string; message: string; candidates: string[] };
    expect(body.error).toBe('ambiguous_id');
    expect(body.candidates.sort()).toEqual(['threadbase:abd00000-two', 'threadbase:abd11111-three']);
    expect(body.message).toContain('matches 2 sessions');
    expect((await app.request(`${web}/sessions/abd/tree`)).status).toBe(409);
    const none = await app.request(`${web}/sessions/zzz`);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { message: string }).message).toBe('session not found: zzz');
  });
});
