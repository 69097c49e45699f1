/**
 * Lone UTF-16 surrogates ("\ud800" in a JSON string an agent wrote) come out of the local index as they
 * went in: SQLite stores a text column's surrogate as its three bytes and better-sqlite3 reads those
 * back as U+FFFD, so the columns read as text (a search hit's project, stats keys and models, the model
 * a split response is recounted with) are read as bytes (src/stores/sqlite/column-text.ts).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Entry, Session } from '../../src/model/types.js';
import { stats } from '../../src/stores/index-sync/stats.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { usageByModelOfStored } from '../../src/stores/sqlite/schema.js';
import { runCli, runCliOk } from '../helpers/cli.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const PROJECT = '/work/p\ud800q';
const MODEL = 'model-\udc00';
const t = (s: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, s)).toISOString();
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-surrogates-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('the SQLite store keeps lone surrogates', () => {
  let store: SqliteStore;
  beforeEach(() => {
    store = openSqliteStore(join(root, 'index.db'));
  });
  afterEach(async () => {
    await store.close();
  });

  it("in a search hit's project, stats keys by project and by model, and a split response's recounted model", async () => {
    const entries: Entry[] = [
      messageEntry('u', null, t(1), textMessage('user', 'hello quokka \ud83d')),
      // a response split over two records (as Claude Code writes them): the second one brings the usage
      messageEntry('a1', 'u', t(2), textMessage('assistant', 'thinking it over', { model: MODEL, responseId: 'r1' })),
    ];
    const session: Session = {
      id: 's1',
      source: 'threadbase',
      project: PROJECT,
      createdAt: t(1),
      updatedAt: t(2),
      messageCount: 2,
      entries,
    };
    await store.writeSession(session, { keepId: true });
    await store.appendEntries('s1', [
      messageEntry('a2', 'a1', t(3), textMessage('assistant', 'quokka done', { model: MODEL, responseId: 'r1', usage })),
    ]);
    const hits = await store.search('quokka');
    expect(hits.map((h) => h.project)).toEqual([PROJECT, PROJECT]);
    expect(stats(store, {}, { by: 'project' }).map((r) => r.key)).toEqual([PROJECT]);
    const byModel = stats(store, {}, { by: 'model' });
    expect(byModel.map((r) => [r.key, r.inputTokens])).toEqual([[MODEL, 10]]);
    // what the entries hold was never the problem (JSON keeps a surrogate as an escape)
    expect((await store.getSession('s1'))?.entries.map((e) => (e.kind === 'message' ? e.message.model : null))).toEqual([
      undefined,
      MODEL,
      MODEL,
    ]);
  });
});

describe('the SQLite store keeps lone surrogates (an index made before usageByModel)', () => {
  it("in the models of a session's usageByModel, as the migration that adds it reads them", async () => {
    const store = openSqliteStore(join(root, 'old.db'));
    try {
      const entries: Entry[] = [
        messageEntry('u', null, t(1), textMessage('user', 'hi')),
        messageEntry('a1', 'u', t(2), textMessage('assistant', 'one', { model: MODEL, responseId: 'r1', usage })),
        messageEntry('a2', 'a1', t(3), textMessage('assistant', 'two', { model: 'plain', responseId: 'r2', usage })),
      ];
      await store.writeSession(
        { id: 's2', source: 'threadbase', createdAt: t(1), updatedAt: t(3), messageCount: 3, entries },
        { keepId: true },
      );
      const written = (await store.listSessions())[0];
      expect(Object.keys(written?.usageByModel ?? {}).sort()).toEqual([MODEL, 'plain']);
      // as an index stored before migration 5 had it: no usageByModel in the listing
      const { usageByModel: _gone, ...old } = written as NonNullable<typeof written>;
      store.db.prepare('UPDATE sessions SET info_json = ? WHERE id = ?').run(JSON.stringify(old), 's2');
      usageByModelOfStored(store.db);
      expect(Object.keys((await store.listSessions())[0]?.usageByModel ?? {}).sort()).toEqual([MODEL, 'plain']);
    } finally {
      await store.close();
    }
  });
});

describe('the index answers what the agent file holds', () => {
  it('show, export, context, sessions, search and stats of a pi session with lone surrogates, with and without the index', async () => {
    const dir = join(root, '.pi', 'agent', 'sessions', '--work-p--');
    await fs.mkdir(dir, { recursive: true });
    const id = '01a204a9-a834-77e0-b180-e676a5436126';
    const lines = [
      { type: 'session', version: 3, id, timestamp: t(0), cwd: PROJECT },
      {
        type: 'message',
        id: 'e1',
        parentId: null,
        timestamp: t(1),
        message: { role: 'user', content: [{ type: 'text', text: 'find \udc00 quokka' }], timestamp: 1 },
      },
      {
        type: 'message',
        id: 'e2',
        parentId: 'e1',
        timestamp: t(2),
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'a quokka \ud800' }],
          api: 'anthropic-messages',
          provider: 'standin',
          model: MODEL,
          usage: {
            input: 7,
            output: 3,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 10,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: 'stop',
          timestamp: 2,
        },
      },
      { type: 'session_info', id: 'e3', parentId: 'e2', timestamp: t(3), name: 'title \udfff x' },
    ];
    // JSON.stringify writes a lone surrogate as an escape, as the agents do
    await fs.writeFile(join(dir, `2026-03-01T09-00-00-000Z_${id}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const env: DriverEnv = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.threadbase') } };
    await runCliOk(env, ['sync']);
    for (const args of [
      ['show', id, '--json'],
      ['export', id, '--format', 'json'],
      ['context', id, '--format', 'anthropic'],
      ['sessions', '--json'],
    ]) {
      const indexed = await runCliOk(env, args);
      expect(indexed, args.join(' ')).toBe(await runCliOk(env, [...args, '--no-index']));
      expect(indexed, args.join(' ')).not.toContain('\ufffd');
    }
    const shown = JSON.parse(await runCliOk(env, ['show', id, '--json'])) as {
      session?: { project?: string; title?: string };
      project?: string;
      title?: string;
    };
    const info = shown.session ?? shown;
    expect([info.project, info.title]).toEqual([PROJECT, 'title \udfff x']);
    const hits = JSON.parse(await runCliOk(env, ['search', 'quokka', '--json'])) as { project: string }[];
    expect(hits.map((h) => h.project)).toEqual([PROJECT, PROJECT]);
    const byProject = JSON.parse(await runCliOk(env, ['stats', '--by', 'project', '--json'])) as { key: string }[];
    expect(byProject.map((r) => r.key)).toEqual([PROJECT]);
    const byModel = await runCli(env, ['stats', '--by', 'model', '--json']);
    expect((JSON.parse(byModel.out) as { key: string }[]).map((r) => r.key)).toEqual([MODEL]);
  });
});
