/**
 * `push` as a teammate uses it against a team server (helper G's QA pass): only the project asked for
 * goes, the local index is brought up to date first, a wrong key is told even with nothing to send, a
 * failure names the server, a key revoked mid-push stops it once, and progress survives an interrupt.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { openStore } from '../../src/stores/open.js';
import { copySourceFixtures } from '../helpers/agent-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { oneMessageSession } from '../helpers/sessions.js';

let root: string;
let server: RunningServer;
let tokens: MemoryTokenStore;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-push-teammate-'));
  tokens = new MemoryTokenStore();
  server = await startServer({ store: new MemoryStore(), tokens, port: 0, log: () => undefined });
});

afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** A fresh home (its own push state) and a key of a project of its own on the server. */
async function teammate(name: string): Promise<{ home: string; env: DriverEnv; key: string; project: string }> {
  const home = await mkdtemp(join(root, `${name}-`));
  const project = `team-${name}`;
  return {
    home,
    env: { home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } },
    key: (await tokens.createToken(project)).key,
    project,
  };
}

/** A SQLite store file in the home holding these sessions. */
async function storeOf(home: string, sessions: Session[]): Promise<string> {
  const url = `sqlite:${join(home, 'from.db')}`;
  const store = await openStore(url);
  for (const s of sessions) await store.writeSession(s, { keepId: true });
  await store.close?.();
  return url;
}

const inProject = (s: Session, project: string): Session => ({ ...s, project });

/** The titles of the sessions the server holds for a key's project, as the key lists them. */
async function titlesOn(key: string): Promise<string[]> {
  const res = await fetch(`${server.url}/api/v1/threadbase/sessions`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as { data: { sessions: { title?: string }[] } };
  return body.data.sessions.map((s) => s.title ?? '').sort();
}

describe('push --project', () => {
  it("sends that directory's sessions only, not the teammate's other projects", async () => {
    const t = await teammate('project');
    const from = await storeOf(t.home, [
      inProject(oneMessageSession('in-alpha', 'alpha work'), '/work/alpha'),
      inProject(oneMessageSession('in-beta', 'beta work'), '/work/beta'),
    ]);
    const r = await runCli(t.env, [
      'push',
      '--to',
      server.url,
      '--key',
      t.key,
      '--from',
      from,
      '--project',
      '/work/alpha',
      '--json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ sessions: 1, created: 1, failed: [] });
    expect(await titlesOn(t.key)).toEqual(['alpha work']);
  });
});

describe('push from the local index', () => {
  it("brings the index up to date first: a push before any sync sends the agents' sessions", async () => {
    const t = await teammate('unsynced');
    await copySourceFixtures({ root: t.home, project: '/work/unsynced' }, { claudeSubAgent: false });
    const r = await runCli(t.env, ['push', '--to', server.url, '--key', t.key, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as { sessions: number; created: number; failed: unknown[] };
    // Claude Code's two, pi's, codex's
    expect(report).toMatchObject({ sessions: 4, created: 4, failed: [] });
    expect((await titlesOn(t.key)).length).toBe(4);
  });

  it('syncs also an index synced a moment ago: a session written since, by an agent new there, goes too', async () => {
    const t = await teammate('just-synced');
    expect((await runCli(t.env, ['sync'])).code).toBe(0);
    await copySourceFixtures({ root: t.home, project: '/work/just-synced' }, { claudeSubAgent: false });
    const r = await runCli(t.env, ['push', '--to', server.url, '--key', t.key, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ sessions: 4, created: 4, failed: [] });
  });

  it('--no-sync pushes the index as it is, and says when it holds nothing', async () => {
    const t = await teammate('no-sync');
    await copySourceFixtures({ root: t.home, project: '/work/no-sync' }, { claudeSubAgent: false });
    const r = await runCli(t.env, ['push', '--to', server.url, '--key', t.key, '--no-sync', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ sessions: 0, created: 0 });
    // once: not again as "nothing to push"
    expect(r.err).toBe('threadbase: warning: the index holds no sessions: run `threadbase sync`, or leave out --no-sync\n');
  });
});

describe('push with a key the server refuses', () => {
  it('a key revoked since the last push fails (exit 1) even with nothing new to send', async () => {
    const t = await teammate('revoked');
    const from = await storeOf(t.home, [oneMessageSession('sent-once', 'sent once')]);
    const push = () => runCli(t.env, ['push', '--to', server.url, '--key', t.key, '--from', from, '--json']);
    expect((await push()).code).toBe(0);
    await tokens.revokeToken(t.key);
    const r = await push();
    expect(r.out).toBe('');
    expect(r.err).toBe(`threadbase: ${server.url} refused the push: 401 invalid API key\n`);
    expect(r.code).toBe(1);
  });
});
