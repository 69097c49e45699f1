/**
 * A reply without a response id (Zed keeps none) converted into Claude Code, Codex, OpenCode or GitHub
 * Copilot CLI is a copy of the original: `stats` counts it once. Claude Code wants a `message.id` on
 * every assistant record, and the Codex and OpenCode readers made one up for a reply without one, so
 * each copy had a response id the original lacks, its copy key differed, and a Zed thread with 100
 * input tokens counted 300 with its Claude Code and Codex copies. Copilot CLI's copy had a made-up
 * apiCallId and a new event id for its entry id (test/formats/copilot-copy-key.test.ts).
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import { Sources } from '../../src/formats/registry.js';
import { CountedResponses } from '../../src/model/copies.js';
import type { Session } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { tempIndexHome } from '../helpers/index-units.js';
import { writeSameMillisecondZedThreads } from '../helpers/zed-threads.js';

const TARGETS = ['claude', 'codex', 'opencode', 'copilot'];

let home: Awaited<ReturnType<typeof tempIndexHome>>;
/** the written copies: the Zed thread id → agent → session id */
const copies = new Map<string, Map<string, { id: string; path?: string | undefined }>>();

beforeAll(async () => {
  home = await tempIndexHome('tb-no-response-id-');
  // two threads saved at the same time: their replies' copies stay two responses
  await writeSameMillisecondZedThreads(home.dir, () => home.dir);
  // OpenCode writes only into a database OpenCode made: the fixture's, emptied of its sessions
  const ocDir = join(home.dir, '.local', 'share', 'opencode');
  await mkdir(ocDir, { recursive: true });
  await copyFile(join(__dirname, '..', 'fixtures', 'opencode', 'opencode.db'), join(ocDir, 'opencode.db'));
  const oc = new Database(join(ocDir, 'opencode.db'));
  oc.exec('DELETE FROM part; DELETE FROM message; DELETE FROM todo; DELETE FROM session;');
  oc.close();
  const sources = new Sources(home.env);
  try {
    for (const zedId of ['zed-thread-otters', 'zed-thread-badgers']) {
      const original = await sources.driver('zed').getSession(zedId);
      if (!original) throw new Error(`no zed thread ${zedId}`);
      const written = new Map<string, { id: string; path?: string | undefined }>();
      for (const to of TARGETS) {
        const [copy] = await convertSessionAll(original, sources.driver(to));
        if (!copy) throw new Error(`no ${to} copy`);
        written.set(to, copy);
      }
      copies.set(zedId, written);
    }
  } finally {
    await sources.close();
  }
  const store = openSqliteStore(indexPath(home.env));
  try {
    await new IndexSync(store).sync(new Sources(home.env), { formats: ['zed', ...TARGETS], workers: 0 });
  } finally {
    await store.close();
  }
});
afterAll(() => home.remove());

const copyOf = (zedId: string, to: string) => {
  const c = copies.get(zedId)?.get(to);
  if (!c) throw new Error(`no ${to} copy of ${zedId}`);
  return c;
};

describe('a reply without a response id converted into Claude Code, Codex, OpenCode and Copilot CLI', () => {
  it('the index counts each response once, in the original', async () => {
    const store = openSqliteStore(indexPath(home.env));
    try {
      // two agent messages per thread, each thread's tokens once
      expect(await store.usage()).toMatchObject({ input: 140, output: 6, messages: 4 });
      expect(await store.usage({ source: 'zed' })).toMatchObject({ input: 140, messages: 4 });
      const listed = await store.listSessions();
      expect(listed).toHaveLength(10);
    } finally {
      await store.close();
    }
  });

  it('so does the rule over loaded sessions (a server’s /stats, the viewer)', async () => {
    const sources = new Sources(home.env);
    try {
      const counted = new CountedResponses();
      const load = async (source: string, id: string): Promise<Session> => {
        const s = await sources.driver(source).getSession(id);
        if (!s) throw new Error(`no ${source} session ${id}`);
        return s;
      };
      for (const zedId of ['zed-thread-otters', 'zed-thread-badgers']) {
        counted.add(await load('zed', zedId));
        for (const to of TARGETS) counted.add(await load(to, copyOf(zedId, to).id));
      }
      expect(counted.totals()).toMatchObject({ input: 140, output: 6, messages: 4 });
    } finally {
      await sources.close();
    }
  });

  it('each copy keeps the entry ids and times, and Claude Code still gets a message id', async () => {
    const sources = new Sources(home.env);
    try {
      const replies = (s: Session | undefined) =>
        (s?.entries ?? []).flatMap((e) =>
          e.kind === 'message' && e.message.role === 'assistant'
            ? [{ id: e.id, timestamp: e.timestamp, responseId: e.message.responseId }]
            : [],
        );
      const original = replies(await sources.driver('zed').getSession('zed-thread-otters'));
      expect(original.map((r) => r.responseId)).toEqual([undefined, undefined]);
      for (const to of TARGETS)
        expect(replies(await sources.driver(to).getSession(copyOf('zed-thread-otters', to).id))).toEqual(original);
      const path = copyOf('zed-thread-otters', 'claude').path;
      if (!path) throw new Error('no claude path');
      const records = (await readFile(path, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type?: string; message?: { id?: unknown } });
      const ids = records.filter((r) => r.type === 'assistant').map((r) => r.message?.id);
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(id).toMatch(/^msg_/);
      expect(new Set(ids).size).toBe(2);
    } finally {
      await sources.close();
    }
  });
});
