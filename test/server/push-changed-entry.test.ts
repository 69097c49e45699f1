/**
 * A push follows the stores' append rule (SessionDriver.appendEntries) against a real server over
 * loopback, on SQLite and on PostgreSQL: an entry the server has as stored is left out (a push
 * repeated, whole, stays harmless), one it has with other content fails the session's push with
 * duplicate_entry naming the session and the entry, every time, never passed over. The server's PUT
 * left out every id it had whatever its content, and push sent only the entries after those it had
 * sent, so an entry changed locally under its id was silently not pushed, and the push said it was.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/types.js';
import type { RunningServer } from '../../src/server/index.js';
import { pushSessions } from '../../src/server/push.js';
import { RemoteStore } from '../../src/stores/remote/index.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome, homeEnv } from '../helpers/fixture-homes.js';
import { changed, first, holding, pushServerFor } from './changed-session.js';
import { postgresBackend, sqliteBackend } from './pg-helpers.js';

const refusal = (session: string) =>
  new RegExp(`^server answered 409: entry id a1 is already in session ${session} with other content`);

describe.each([
  ['SQLite', () => sqliteBackend('tb-push-changed-')],
  ['PostgreSQL', () => postgresBackend('tb_push_changed')],
])('push of an entry changed under its id, to a server on %s', (_name, backendOf) => {
  let server: RunningServer;
  let key: string;
  let otherKey: string;
  let dir: string;

  const at = pushServerFor(backendOf, 'tb-push-changed-');
  beforeAll(() => {
    ({ server, key, otherKey, dir } = at);
  });

  /** The session as the server holds it for `k`'s project. */
  const stored = (k: string) => new RemoteStore(server.url, { key: k }).getSession('talk');
  const texts = (s: Session | undefined) =>
    s?.entries.map((e) => [e.id, e.kind === 'message' && e.message.parts[0]?.type === 'text' ? e.message.parts[0].text : '']);

  it('after a push: the session fails the next push, every time, and the server keeps what it had', async () => {
    const statePath = join(dir, 'state-1.json');
    expect((await pushSessions({ from: await holding(first), to: server.url, key, statePath })).created).toBe(1);
    for (let time = 1; time <= 2; time++) {
      const report = await pushSessions({ from: await holding(changed), to: server.url, key, statePath });
      expect(report.failed).toEqual([{ id: 'talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('talk')) }]);
      expect([report.created, report.updated, report.unchanged]).toEqual([0, 0, 0]);
    }
    // nothing of the refused request added: not the new prompt either
    expect(texts(await stored(key))).toEqual([
      ['u1', 'question'],
      ['a1', 'the first answer'],
    ]);
  });

  it('without push state (everything sent again): the same refusal; the unchanged session is left out, not refused', async () => {
    const again = await pushSessions({ from: await holding(first), to: server.url, key, statePath: join(dir, 'state-2.json') });
    expect(again.failed).toEqual([]);
    expect(again.updated).toBe(1);
    const report = await pushSessions({
      from: await holding(changed),
      to: server.url,
      key,
      statePath: join(dir, 'state-3.json'),
    });
    expect(report.failed).toEqual([{ id: 'talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('talk')) }]);
    expect(texts(await stored(key))).toHaveLength(2);
  });

  it("names the session as the pushing project does, where another project's holds its id", async () => {
    // the other project's "talk" is stored under an alias of it (the team's holds the id)
    const statePath = join(dir, 'state-other.json');
    expect((await pushSessions({ from: await holding(first), to: server.url, key: otherKey, statePath })).created).toBe(1);
    const report = await pushSessions({ from: await holding(changed), to: server.url, key: otherKey, statePath });
    expect(report.failed).toEqual([{ id: 'talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('talk')) }]);
    expect(report.failed[0]?.error).not.toMatch(/~/);
  });

  it('threadbase push --from a store holding the changed session: exit 1, the session and the entry named', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-push-changed-cli-'));
    try {
      const env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } };
      const fromFile = async (name: string, s: Session) => {
        const store = openSqliteStore(join(home, name));
        await store.writeSession({ ...s, id: 'cli-talk' }, { keepId: true });
        store.close();
        return join(home, name);
      };
      const push = (from: string) => runCli(env, ['push', '--to', server.url, '--key', key, '--from', from, '--json']);
      expect((await push(await fromFile('first.db', first))).code).toBe(0);
      const r = await push(await fromFile('changed.db', changed));
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /session cli-talk not pushed: server answered 409: entry id a1 is already in session cli-talk with other content/,
      );
      const report = JSON.parse(r.out) as { failed: unknown[]; updated: number };
      expect(report.failed).toEqual([
        { id: 'cli-talk', code: 'duplicate_entry', error: expect.stringMatching(refusal('cli-talk')) },
      ]);
      expect(report.updated).toBe(0);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("agents' sessions pushed again whole, as read again, are all left out as stored: no refusal", async () => {
    const fixtures = await fixtureHome({ prefix: 'tb-push-changed-agents-', agents: ['claude', 'pi', 'opencode', 'codex'] });
    try {
      const env = homeEnv(fixtures.home);
      for (const source of ['claude', 'pi', 'opencode', 'codex']) {
        const push = () => runCli(env, ['push', '--to', server.url, '--key', key, '--source', source, '--json']);
        const once = await push();
        expect(once.code, once.err).toBe(0);
        const pushed = JSON.parse(once.out) as { created: number; failed: unknown[] };
        expect(pushed.created).toBeGreaterThan(0);
        // no push state: every entry sent again, compared with the stored one
        await rm(join(fixtures.home, '.threadbase', 'push-state.json'));
        const twice = await push();
        expect(twice.code, twice.err).toBe(0);
        const report = JSON.parse(twice.out) as { created: number; updated: number; failed: unknown[] };
        expect(report.failed).toEqual([]);
        expect([report.created, report.updated]).toEqual([0, pushed.created]);
      }
    } finally {
      await rm(fixtures.home, { recursive: true, force: true });
    }
  }, 120_000);
});
