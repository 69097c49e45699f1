/**
 * `push --force` against a real server over loopback, on SQLite and on PostgreSQL. Without it a session
 * whose entry changed under its id fails every push (duplicate_entry, push-changed-entry.test.ts), the
 * refusal now saying how to get out; with it the session replaces the server's copy (PUT ?replace=true,
 * the store's replaceSession), which then holds the local session entry by entry, and the next push
 * sends nothing. A replace whose write fails in the store leaves the server's copy as it was.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import type { RunningServer } from '../../src/server/index.js';
import { pushSessions } from '../../src/server/push.js';
import type { PostgresStore } from '../../src/stores/postgres/index.js';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';
import { changed as changedUnderItsId, first, holding, pushServerFor } from './changed-session.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

/** The changed session, renamed too: a replace takes the local title. */
const changed: Session = { ...changedUnderItsId, title: 'a talk, renamed' };

/** Each entry as the server should hold it: the local one, whole. */
const entriesOf = async (s: Session) => (await (await holding(s)).getSession(s.id))?.entries;

const refusal = (session: string) =>
  new RegExp(
    `^server answered 409: entry id a1 is already in session ${session} with other content.*; \`threadbase push --force\` replaces the server's copy of this session with the local one$`,
  );

/** A store write that fails at an entry with this id (a trigger in the server's database). */
const FAILING_ENTRY = 'write-fails-here';

describe.each([
  [
    'SQLite',
    () => sqliteBackend('tb-push-force-'),
    async (b: ServerBackend) =>
      (b.store as SqliteStore).db.exec(
        `CREATE TRIGGER fail_entry BEFORE INSERT ON entries WHEN NEW.id = '${FAILING_ENTRY}' BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`,
      ),
    async (b: ServerBackend) => (b.store as SqliteStore).db.exec('DROP TRIGGER fail_entry'),
  ],
  [
    'PostgreSQL',
    () => postgresBackend('tb_push_force'),
    async (b: ServerBackend) => {
      await (b.store as PostgresStore).pool.query(
        `CREATE FUNCTION fail_entry() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the disk is full'; END $$;
         CREATE TRIGGER fail_entry BEFORE INSERT ON tb_entries FOR EACH ROW WHEN (NEW.id = '${FAILING_ENTRY}') EXECUTE FUNCTION fail_entry()`,
      );
    },
    async (b: ServerBackend) => {
      await (b.store as PostgresStore).pool.query('DROP TRIGGER fail_entry ON tb_entries');
    },
  ],
])('push --force to a server on %s', (_name, backendOf, failWrites, healWrites) => {
  let backend: ServerBackend;
  let server: RunningServer;
  let key: string;
  let otherKey: string;
  let dir: string;

  const at = pushServerFor(backendOf, 'tb-push-force-');
  beforeAll(() => {
    ({ backend, server, key, otherKey, dir } = at);
  });

  /** The session `id` as the server holds it for `k`'s project. */
  const stored = (k: string, id = 'talk') => new RemoteStore(server.url, { key: k }).getSession(id);
  const state = (name: string) => join(dir, `${name}.json`);
  const forced = async (s: Session, k: string, statePath: string, extra: { maxBodyBytes?: number } = {}) =>
    pushSessions({ from: await holding(s), to: server.url, key: k, statePath, force: true, ...extra });

  it('refused without --force, saying how to get out; replaced with it, entry by entry; then nothing to send', async () => {
    const statePath = state('basic');
    await pushSessions({ from: await holding(first), to: server.url, key, statePath });
    const refused = await pushSessions({ from: await holding(changed), to: server.url, key, statePath });
    expect(refused.failed).toEqual([{ id: 'talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('talk')) }]);

    const report = await forced(changed, key, statePath);
    expect(report.failed).toEqual([]);
    expect(report).toMatchObject({ created: 0, updated: 1, replaced: 1, entriesSent: 3, requests: 1 });
    const now = await stored(key);
    expect(now?.entries).toEqual(await entriesOf(changed));
    expect(now?.title).toBe('a talk, renamed');

    // the state holds what was sent: with --force or without, nothing goes again
    for (const force of [true, false]) {
      const again = await pushSessions({ from: await holding(changed), to: server.url, key, statePath, force });
      expect(again).toMatchObject({ unchanged: 1, requests: 0, failed: [] });
    }
  });

  it('--force sends no unchanged session, and one only grown is appended to, not replaced', async () => {
    const statePath = state('grown');
    const local: Session = { ...first, id: 'grown' };
    await pushSessions({ from: await holding(local), to: server.url, key, statePath });
    expect(await forced(local, key, statePath)).toMatchObject({ unchanged: 1, requests: 0, replaced: 0 });
    const grown: Session = {
      ...local,
      updatedAt: '2026-03-01T00:00:05.000Z',
      entries: [...local.entries, messageEntry('u2', 'a1', 4, textMessage('user', 'more'))],
    };
    expect(await forced(grown, key, statePath)).toMatchObject({ updated: 1, replaced: 0, entriesSent: 1, failed: [] });
    expect((await stored(key, 'grown'))?.entries).toEqual(await entriesOf(grown));
  });

  it('without push state: the server refuses the session, --force sends it again to replace the copy', async () => {
    await pushSessions({ from: await holding({ ...first, id: 'stateless' }), to: server.url, key, statePath: state('s1') });
    const report = await forced({ ...changed, id: 'stateless' }, key, state('s2'));
    expect(report.failed).toEqual([]);
    // the whole session appended (refused), then sent again to replace
    expect(report).toMatchObject({ updated: 1, replaced: 1, requests: 2 });
    expect((await stored(key, 'stateless'))?.entries).toEqual(await entriesOf({ ...changed, id: 'stateless' }));
  });

  it('a session larger than one request: sent in parts the server swaps in at once; the copy is the local one', async () => {
    const long = (text: string): Session => ({
      ...first,
      id: 'long',
      entries: Array.from({ length: 12 }, (_, i) =>
        messageEntry(
          `e${i}`,
          i ? `e${i - 1}` : null,
          i,
          textMessage(i % 2 ? 'assistant' : 'user', `${text} ${i} ${'x'.repeat(300)}`),
        ),
      ),
    });
    const statePath = state('long');
    await pushSessions({ from: await holding(long('before')), to: server.url, key, statePath, maxBodyBytes: 1000 });
    const after = { ...long('after'), updatedAt: '2026-03-01T00:00:30.000Z' };
    const report = await forced(after, key, statePath, { maxBodyBytes: 1000 });
    expect(report.failed).toEqual([]);
    expect(report.requests).toBeGreaterThan(1);
    expect(report.replaced).toBe(1);
    expect((await stored(key, 'long'))?.entries).toEqual(await entriesOf(after));
  });

  it("replaces the project's own copy where another project's holds the id, not the other's", async () => {
    const statePath = state('other');
    await pushSessions({ from: await holding({ ...first, id: 'shared' }), to: server.url, key, statePath: state('team') });
    await pushSessions({ from: await holding({ ...first, id: 'shared' }), to: server.url, key: otherKey, statePath });
    const report = await forced({ ...changed, id: 'shared' }, otherKey, statePath);
    expect(report).toMatchObject({ replaced: 1, failed: [] });
    expect((await stored(otherKey, 'shared'))?.entries).toEqual(await entriesOf({ ...changed, id: 'shared' }));
    expect((await stored(key, 'shared'))?.entries).toEqual(await entriesOf({ ...first, id: 'shared' }));
  });

  it('a replace whose write fails in the store leaves the copy as it was; the next --force replaces it', async () => {
    const statePath = state('failing');
    const local: Session = { ...first, id: 'fragile' };
    await pushSessions({ from: await holding(local), to: server.url, key, statePath });
    // the new version's last entry fails in the store, after the old entries were taken out
    const next: Session = {
      ...changed,
      id: 'fragile',
      entries: [...changed.entries, messageEntry(FAILING_ENTRY, 'u2', 9, textMessage('assistant', 'unlucky'))],
    };
    await failWrites(backend);
    try {
      const report = await forced(next, key, statePath);
      expect(report.failed).toEqual([{ id: 'fragile', error: expect.stringMatching(/server answered 500/) }]);
      expect((await stored(key, 'fragile'))?.entries).toEqual(await entriesOf(local));
    } finally {
      await healWrites(backend);
    }
    expect(await forced(next, key, statePath)).toMatchObject({ replaced: 1, failed: [] });
    expect((await stored(key, 'fragile'))?.entries).toEqual(await entriesOf(next));
  });

  it('PUT ?replace= takes true or false (else 400 invalid_parameter), as GET /openapi.json lists it', async () => {
    const put = (replace: string) =>
      fetch(`${server.url}/api/v1/threadbase/sessions/talk?replace=${replace}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session: { title: 'x' }, entries: [] }),
      });
    const bad = await put('yes');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      reason: 'invalid_parameter',
      msg: expect.stringMatching(/^replace must be true or false/),
    });
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, { put?: { parameters: { name: string; schema: { type: string } }[] } }>;
    };
    const params = doc.paths['/api/v1/threadbase/sessions/{id}']?.put?.parameters ?? [];
    expect(params.find((p) => p.name === 'replace')?.schema.type).toBe('boolean');
  });

  it('threadbase push: the refusal names --force on stderr and in --json; push --force replaces, exit 0', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-push-force-cli-'));
    try {
      const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
      const fromFile = async (name: string, s: Session) => {
        const store = openSqliteStore(join(home, name));
        await store.writeSession({ ...s, id: 'cli-talk' }, { keepId: true });
        store.close();
        return join(home, name);
      };
      const push = (from: string, ...more: string[]) =>
        runCli(env, ['push', '--to', server.url, '--key', key, '--from', from, ...more]);
      expect((await push(await fromFile('first.db', first), '--json')).code).toBe(0);
      const changedFile = await fromFile('changed.db', changed);
      const refused = await push(changedFile, '--json');
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(
        /session cli-talk not pushed: server answered 409: entry id a1 .*; `threadbase push --force` replaces the server's copy of this session with the local one/,
      );
      expect((JSON.parse(refused.out) as { failed: unknown[] }).failed).toEqual([
        { id: 'cli-talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('cli-talk')) },
      ]);
      const r = await push(changedFile, '--force');
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/^pushed 0 new and 1 changed session \(1 replaced\) \(3 entries\); 0 unchanged\n$/);
      expect((await stored(key, 'cli-talk'))?.entries.map((e) => e.id)).toEqual(['u1', 'a1', 'u2']);
      expect((await push(changedFile, '--force', '--json')).out).toMatch(/"unchanged": 1/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
