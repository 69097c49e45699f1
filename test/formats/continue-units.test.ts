/**
 * Continue CLI sessions in the local index: each session file is a unit known by its size and time
 * (its name is its id, so a listing reads no session file), its version its row in sessions.json; a
 * warm sync reads nothing, a file Continue rewrote re-reads that session only, and a title Continue
 * gave in sessions.json re-reads it too; `show`, `context` and `search` answer from the index, which
 * keeps what Continue's context reads of a compaction.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { ContinueDriver, continueContext } from '../../src/formats/continue/index.js';
import type { DriverEnv, SourceUnit } from '../../src/model/driver.js';
import type { Session, SessionInfo } from '../../src/model/types.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const REAL = '7b09ce44-8f9e-4247-a51c-208af9b03dd2';
const OTHER = '22222222-3333-4444-8555-666666666666';
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let sessions: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-continue-units-');
  env = home.env;
  await cp(resolve('test/fixtures/continue/real-1.5.47/.continue'), join(home.dir, '.continue'), { recursive: true });
  sessions = join(home.dir, '.continue', 'sessions');
  // a second session: the real one's first four items under another id
  const doc = JSON.parse(await readFile(join(sessions, `${REAL}.json`), 'utf8')) as { sessionId: string; history: unknown[] };
  await writeFile(
    join(sessions, `${OTHER}.json`),
    JSON.stringify({ ...doc, sessionId: OTHER, history: doc.history.slice(0, 4) }, null, 2),
  );
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({ id: s.id, title: s.title, project: s.project, messageCount: s.messageCount, path: s.path });

async function sync() {
  let reads: { mock: { calls: [SourceUnit, ...unknown[]][] } } | undefined;
  const { report, listed } = await syncStore<ContinueDriver>(env, 'continue', (driver) => {
    reads = vi.spyOn(driver, 'readUnit');
  });
  return { report, indexed: listed.map(fields), read: (reads?.mock.calls ?? []).map(([u]) => u.sessionId).sort() };
}

describe('Continue CLI sessions as units of the index', () => {
  it('indexes one unit per session file, as the driver lists them', async () => {
    const first = await sync();
    expect(first.indexed).toEqual((await new ContinueDriver(env).listSessions()).map(fields).sort(byId));
    expect(first.indexed.map((s) => [s.id, s.messageCount])).toEqual([
      [OTHER, 5],
      [REAL, 12],
    ]);
    expect(first.read).toEqual([OTHER, REAL]);
  });

  it('a warm sync reads no session', async () => {
    const warm = await sync();
    expect(warm.read).toEqual([]);
    expect(warm.report).toMatchObject({ reread: 0, removed: 0 });
  });

  it('a session Continue rewrote with a new turn re-reads that session only', async () => {
    const file = join(sessions, `${OTHER}.json`);
    const doc = JSON.parse(await readFile(file, 'utf8')) as { history: unknown[] };
    doc.history.push({ message: { role: 'user', content: 'a zanzibarquokka question' }, contextItems: [] });
    await writeFile(file, JSON.stringify(doc, null, 2));
    const after = await sync();
    expect(after.read).toEqual([OTHER]);
    expect(after.indexed.find((s) => s.id === OTHER)?.messageCount).toBe(6);
  });

  it('a title Continue gave in sessions.json re-reads that session', async () => {
    const list = join(sessions, 'sessions.json');
    const rows = JSON.parse(await readFile(list, 'utf8')) as { sessionId: string; title: string }[];
    for (const r of rows) if (r.sessionId === REAL) r.title = 'Reading notes';
    await writeFile(list, JSON.stringify(rows, null, 2));
    // the session file still says Continue's placeholder: the listing's title is taken
    const after = await sync();
    expect(after.read).toEqual([REAL]);
    expect(after.indexed.find((s) => s.id === REAL)?.title).toBe('Reading notes');
  });

  it('answers show, context and search from the index', async () => {
    const ok = async (args: string[]) => {
      const r = await runCli(env, args);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };
    expect(JSON.parse(await ok(['show', REAL, '--json']))).toMatchObject({ id: REAL, source: 'continue' });
    const ctx = JSON.parse(await ok(['context', REAL, '--format', 'anthropic'])) as { messages: { role: string }[] };
    expect(ctx.messages.map((m) => m.role)).toEqual(Array(6).fill(['user', 'assistant']).flat());
    const hits = JSON.parse(await ok(['search', 'zanzibarquokka', '--json'])) as { sessionId: string }[];
    expect(hits.map((h) => h.sessionId)).toEqual([OTHER]);
  });

  it('keeps what Continue’s context reads of a compaction: from the index its summary is the model’s turn, as cn sends it', async () => {
    const id = 'f1bc79d7-d5fc-4bac-89e0-007da1c7caa8';
    await cp(
      resolve('test/fixtures/continue/real-1.5.47-compaction/.continue/sessions', `${id}.json`),
      join(sessions, `${id}.json`),
    );
    await sync();
    const store = openSqliteStore(indexPath(env));
    try {
      const indexed = (await store.getSession(id)) as Session;
      expect(continueContext(indexed).messages.map((m) => m.role)).toEqual(['assistant', 'user', 'assistant']);
    } finally {
      await store.close();
    }
  });

  it('a compaction threadbase wrote: its summary the model’s turn from the index too, which keeps its item without the entries kept on it', async () => {
    const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const base = chainSession('wc', 'pi', '/tmp/proj', [
      ['u1', textMessage('user', 'a long story')],
      ['a1', textMessage('assistant', 'noted')],
    ]);
    const written = await new ContinueDriver(env).writeSession({
      ...base,
      entries: [
        ...base.entries,
        { kind: 'compaction', id: 'c', parentId: 'a1', timestamp: t(10), summary: 'we told a story' },
        { kind: 'message', id: 'u2', parentId: 'c', timestamp: t(11), message: textMessage('user', 'go on') },
      ],
    });
    await sync();
    const store = openSqliteStore(indexPath(env));
    try {
      const indexed = (await store.getSession(written.id)) as Session;
      expect(continueContext(indexed).messages.map((m) => m.role)).toEqual(['assistant', 'user']);
      const raw = indexed.entries.find((e) => e.kind === 'compaction')?.raw as Record<string, unknown>;
      expect(raw).toMatchObject({ message: { role: 'assistant' }, conversationSummary: 'we told a story' });
      expect(raw.threadbase).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
