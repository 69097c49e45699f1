/**
 * After a sync that reads only what a Claude Code / pi file gained (offset sync), the index holds
 * what a full read of the grown file gives: entries and their parents, the current leaf (Claude
 * Code 2.1.332's rule: the last `last-prompt`'s leafUuid, or a record under it), the context to that
 * leaf, title, counts and usage. Each case grows one file in stages, syncs after each, and compares
 * with a fresh index of a copy of the file and with the driver's own getSession.
 */
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { buildContext, pathToLeaf } from '../../src/model/tree.js';
import type { Entry } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliOk } from '../helpers/cli.js';

let root: string;
let homes = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-offset-full-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const SID = '5e5e5e5e-0000-4000-8000-000000000001';
const PROJECT = '-work-offset';

/** Claude Code 2.1.332-shaped records (see test/fixtures/claude/resume). */
const base = { sessionId: SID, cwd: '/work/offset', version: '2.1.332', userType: 'external', isSidechain: false };
const ts = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const usage = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 };
let clock = 0;
function user(uuid: string, parent: string | null, text: string): string {
  return JSON.stringify({
    ...base,
    type: 'user',
    uuid,
    parentUuid: parent,
    timestamp: ts(++clock),
    message: { role: 'user', content: text },
  });
}
function asst(uuid: string, parent: string, text: string): string {
  return JSON.stringify({
    ...base,
    type: 'assistant',
    uuid,
    parentUuid: parent,
    timestamp: ts(++clock),
    requestId: `req_${uuid}`,
    message: {
      id: `msg_${uuid}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage,
    },
  });
}
function attachment(uuid: string, parent: string): string {
  return JSON.stringify({
    ...base,
    type: 'attachment',
    uuid,
    parentUuid: parent,
    timestamp: ts(++clock),
    attachment: { type: 'date_change', newDate: '2026-01-01' },
  });
}
function lastPrompt(leaf: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'last-prompt', lastPrompt: 'p', leafUuid: leaf, sessionId: SID, ...extra });
}
function compaction(uuid: string, logical: string, summary: string): string[] {
  return [
    JSON.stringify({
      ...base,
      type: 'system',
      subtype: 'compact_boundary',
      uuid,
      parentUuid: null,
      logicalParentUuid: logical,
      timestamp: ts(++clock),
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'manual', preTokens: 4321 },
    }),
    JSON.stringify({
      ...base,
      type: 'user',
      uuid: `${uuid}-sum`,
      parentUuid: uuid,
      isCompactSummary: true,
      timestamp: ts(++clock),
      message: { role: 'user', content: summary },
    }),
  ];
}
const title = (t: string) => JSON.stringify({ type: 'custom-title', customTitle: t, sessionId: SID });
/** A turn: a prompt under `parent`, then a reply under it. */
const turn = (u: string, parent: string | null, a: string) => [user(u, parent, `prompt ${u}`), asst(a, u, `reply ${a}`)];
/** `count` turns in a chain from the top (u1 a1, u2 a2, …), each followed by a last-prompt naming its reply. */
const promptedTurns = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => [
    ...turn(`u${i + 1}`, i === 0 ? null : `a${i}`, `a${i + 1}`),
    lastPrompt(`a${i + 1}`),
  ]).flat();

interface Snapshot {
  row: unknown;
  info: unknown;
  entries: unknown[];
}

function snapshot(store: SqliteStore, id: string, home: string): Snapshot {
  const row = store.db
    .prepare(
      'SELECT source, project, title, created_at, updated_at, message_count, first_user_text, leaf_id, next_seq, warnings_json FROM sessions WHERE id = ?',
    )
    .get(id);
  const json = store.db.prepare('SELECT info_json FROM sessions WHERE id = ?').get(id) as { info_json: string } | undefined;
  // (the file path differs between the homes compared)
  const { path: _path, ...info } = JSON.parse(json?.info_json ?? '{}');
  const entries = store.db
    .prepare(
      'SELECT id, parent_id, seq, kind, role, response_id, counted, input, output, cache_read, cache_write, cost, json FROM entries WHERE session_id = ? ORDER BY seq',
    )
    .all(id);
  // (a warning names the file, whose home differs)
  return JSON.parse(JSON.stringify({ row, info, entries }).replaceAll(home, '<home>')) as Snapshot;
}

function envOf(home: string): DriverEnv {
  return { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
}

async function openIndex(home: string): Promise<{ store: SqliteStore; sync: IndexSync; sources: Sources }> {
  await mkdir(join(home, '.threadbase'), { recursive: true });
  const env = envOf(home);
  const store = openSqliteStore(indexPath(env));
  return { store, sync: new IndexSync(store), sources: new Sources(env) };
}

const ids = (path: Entry[]) => path.map((e) => e.id);

/**
 * Grows `file` (inside `home`) by each stage in turn, syncing after each; after every sync the index
 * must equal a fresh index of a copy of the file, and its leaf and context the driver's. Returns how
 * many syncs read only the added part.
 */
async function grow(
  format: 'claude' | 'pi',
  id: string,
  relPath: string,
  stages: ((file: string, sources: Sources) => Promise<void>)[],
): Promise<{ appended: number; leaves: (string | null)[] }> {
  const home = join(root, `grown-${++homes}`);
  const file = join(home, relPath);
  await mkdir(join(file, '..'), { recursive: true });
  const idx = await openIndex(home);
  let appended = 0;
  const leaves: (string | null)[] = [];
  try {
    for (const [n, stage] of stages.entries()) {
      await stage(file, idx.sources);
      const r = await idx.sync.sync(idx.sources, { formats: [format], workers: 0 });
      expect(r.failed).toBe(0);
      appended += r.appended;
      const got = snapshot(idx.store, id, home);

      // a full read of the same bytes, into a fresh index
      const freshHome = join(root, `fresh-${++homes}`);
      await mkdir(join(freshHome, relPath, '..'), { recursive: true });
      await copyFile(file, join(freshHome, relPath));
      const fresh = await openIndex(freshHome);
      try {
        expect((await fresh.sync.sync(fresh.sources, { formats: [format], workers: 0 })).reread).toBe(1);
        expect({ stage: n, ...got }).toEqual({ stage: n, ...snapshot(fresh.store, id, freshHome) });
      } finally {
        await fresh.store.close();
      }

      // and what the driver reads: the same leaf, path and context
      const own = await new Sources(envOf(home)).driver(format).getSession(id);
      const indexed = await idx.store.getSession(id);
      if (!own || !indexed) throw new Error(`stage ${n}: session ${id} not read`);
      expect({ stage: n, leaf: indexed.leafId }).toEqual({ stage: n, leaf: own.leafId });
      expect({ stage: n, path: ids(pathToLeaf(indexed)) }).toEqual({ stage: n, path: ids(pathToLeaf(own)) });
      expect(buildContext(indexed).messages).toEqual(buildContext(own).messages);
      expect(indexed.title).toBe(own.title);
      expect(indexed.messageCount).toBe(own.messageCount);
      leaves.push(indexed.leafId ?? null);
    }
    // and `sync --full` of the same index changes nothing
    const before = snapshot(idx.store, id, home);
    expect((await idx.sync.sync(idx.sources, { formats: [format], workers: 0, full: true })).reread).toBe(1);
    expect(snapshot(idx.store, id, home)).toEqual(before);
  } finally {
    await idx.store.close();
  }
  return { appended, leaves };
}

const claudeFile = join('.claude', 'projects', PROJECT, `${SID}.jsonl`);
const lines =
  (...ls: (string | string[])[]) =>
  async (file: string) => {
    await appendFile(file, `${ls.flat().join('\n')}\n`);
  };

describe('Claude Code: an offset sync gives what a full read gives', () => {
  it('plain new turns, with and without a last-prompt after them', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(promptedTurns(2)),
      lines(turn('u3', 'a2', 'a3'), lastPrompt('a3'), title('plain title')),
      lines(turn('u4', 'a3', 'a4')),
      lines(attachment('t4', 'a4'), turn('u5', 't4', 'a5'), lastPrompt('a5')),
    ]);
    expect(r.leaves).toEqual(['a2', 'a3', 'a4', 'a5']);
    expect(r.appended).toBe(3);
  });

  it('a new last-prompt naming an earlier record, with a branch beside it', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(turn('u1', null, 'a1'), turn('u2', 'a1', 'a2'), turn('u3', 'a2', 'a3'), lastPrompt('a3')),
      // a branch from u1, then a last-prompt naming a1: the last row (b2) is not under a1, so a1
      lines(user('b1', 'u1', 'branch b1'), asst('b2', 'b1', 'reply b2'), lastPrompt('a1')),
      // naming the branch: its last record
      lines(lastPrompt('b1')),
      // more records under the branch, without a last-prompt
      lines(user('b3', 'b2', 'more b3')),
      // a rewind (explicit) to a1: only records written after it count
      lines(lastPrompt('a1', { explicit: true })),
      lines(turn('u6', 'a1', 'a6')),
      // a stray record on another branch, after the last last-prompt: the last row is not under a1, so a1
      lines(user('s1', 'u1', 'stray')),
      // a last-prompt naming a record that is not in the file: the last main-chain record
      lines(lastPrompt('00000000-dead-4000-8000-000000000000')),
    ]);
    expect(r.leaves).toEqual(['a3', 'a1', 'b2', 'b3', 'a1', 'a6', 'a1', 's1']);
    // a leaf named before the part re-read (or not in the file), or a last record not under the leaf
    // before, needs the records before that part: those stages are read whole
    expect(r.appended).toBe(2);
  });

  it('a record on another branch after the last last-prompt, which is before the part re-read', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(promptedTurns(2)),
      // the next sync re-reads from u3, after the last last-prompt
      lines(turn('u3', 'a2', 'a3')),
      // s1, the last row, is not under a2: the leaf is a2 (Claude Code's rule; a3 was written under it before)
      lines(user('s1', 'u1', 'stray')),
      lines(asst('a4', 'a3', 'late reply under a3')),
    ]);
    expect(r.leaves).toEqual(['a2', 'a3', 'a2', 'a4']);
  });

  it('a branch appended by threadbase (appendEntries under an earlier entry), then Claude Code goes on from it', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(promptedTurns(3)),
      async (_file, sources) => {
        const driver = sources.driver('claude');
        await driver.appendEntries?.(SID, [
          {
            kind: 'message',
            id: '5e5e5e5e-bbbb-4000-8000-000000000001',
            parentId: 'a1',
            timestamp: ts(++clock),
            message: { role: 'user', parts: [{ type: 'text', text: 'a branch from a1' }] },
          },
        ]);
      },
      lines(asst('a7', '5e5e5e5e-bbbb-4000-8000-000000000001', 'reply on the branch')),
      lines(user('u8', 'a7', 'prompt u8')),
    ]);
    expect(r.leaves.slice(1)).toEqual(['5e5e5e5e-bbbb-4000-8000-000000000001', 'a7', 'u8']);
    expect(r.appended).toBe(3);
  });

  it('`threadbase branch` (with a branch summary), then `context` through the index and through the files', async () => {
    const contexts: string[][] = [];
    const contextOf = async (home: string) => {
      const env = envOf(home);
      const viaIndex = await runCliOk(env, ['context', SID, '--json']);
      const viaFiles = await runCliOk(env, ['context', SID, '--json', '--no-index']);
      contexts.push([viaIndex, viaFiles]);
    };
    const r = await grow('claude', SID, claudeFile, [
      lines(promptedTurns(3)),
      async (file) => {
        const home = file.slice(0, file.indexOf('/.claude/'));
        await runCliOk(envOf(home), [
          'branch',
          SID,
          '--at',
          'a1',
          '--summary',
          'left u2 and u3',
          '--message',
          'a new way from a1',
        ]);
        await contextOf(home);
      },
      async (file, sources) => {
        // Claude Code answers on the branch (no last-prompt yet), then the next prompt
        const leaf = (await sources.driver('claude').getSession(SID))?.leafId as string;
        await appendFile(file, `${[asst('a9', leaf, 'answer on the branch'), user('u10', 'a9', 'next prompt')].join('\n')}\n`);
        await contextOf(file.slice(0, file.indexOf('/.claude/')));
      },
    ]);
    expect(r.leaves.slice(2)).toEqual(['u10']);
    for (const [viaIndex, viaFiles] of contexts) expect(viaIndex).toBe(viaFiles);
    expect(contexts[1]?.[0]).toContain('answer on the branch');
    expect(contexts[1]?.[0]).not.toContain('reply a3');
  });

  it('compaction records, and a title after them', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(promptedTurns(2)),
      lines(compaction('c1', 'a2', 'summary of u1 and u2'), lastPrompt('c1-sum')),
      lines(turn('u3', 'c1-sum', 'a3'), lastPrompt('a3'), title('after compaction')),
      lines(turn('u4', 'a3', 'a4'), compaction('c2', 'a4', 'second summary')),
    ]);
    expect(r.leaves).toEqual(['a2', 'c1-sum', 'a3', 'c2-sum']);
    expect(r.appended).toBe(3);
  });

  it('a summary record (older Claude Code) naming a leaf before the part re-read, and ai-title records', async () => {
    const summary = (leaf: string, text: string) => JSON.stringify({ type: 'summary', summary: text, leafUuid: leaf });
    await grow('claude', SID, claudeFile, [
      lines(turn('u1', null, 'a1'), turn('u2', 'a1', 'a2'), turn('u3', 'a2', 'a3')),
      lines(summary('a1', 'summary naming a1')),
      lines(summary('elsewhere', 'summary of another session')),
      lines(JSON.stringify({ type: 'ai-title', aiTitle: 'an ai title', sessionId: SID })),
      lines(turn('u4', 'a3', 'a4')),
    ]);
  });

  it('an ai-title before the part re-read wins over a summary record in it', async () => {
    const summary = (leaf: string, text: string) => JSON.stringify({ type: 'summary', summary: text, leafUuid: leaf });
    await grow('claude', SID, claudeFile, [
      lines(turn('u1', null, 'a1'), JSON.stringify({ type: 'ai-title', aiTitle: 'an ai title', sessionId: SID })),
      lines(turn('u2', 'a1', 'a2')),
      lines(summary('a2', 'summary naming a2')),
    ]);
  });

  it('a torn last line that completes later', async () => {
    // (made in file order: a record without a time of its own takes the latest before it)
    const first = lines(promptedTurns(2));
    const torn = turn('u3', 'a2', 'a3');
    const half = Math.floor((torn[1] as string).length / 2);
    const r = await grow('claude', SID, claudeFile, [
      first,
      async (file) => appendFile(file, `${torn[0]}\n${(torn[1] as string).slice(0, half)}`),
      async (file) => appendFile(file, `${(torn[1] as string).slice(half)}\n${lastPrompt('a3')}\n`),
      async (file) => appendFile(file, lastPrompt('a1', { explicit: true }).slice(0, 20)),
      async (file) => appendFile(file, `${lastPrompt('a1', { explicit: true }).slice(20)}\n`),
    ]);
    expect(r.leaves).toEqual(['a2', 'u3', 'a3', 'a3', 'a1']);
    // (the rewind to a1, before the part re-read, is read whole)
    expect(r.appended).toBe(3);
  });

  // parse.ts: a record without a timestamp takes the greatest one before it (not the last seen)
  const at = (line: string, time: number | undefined): string => {
    const r = JSON.parse(line) as Record<string, unknown>;
    if (time === undefined) delete r.timestamp;
    else r.timestamp = ts(time);
    return JSON.stringify(r);
  };
  const bare = (line: string) => at(line, undefined);

  it('a user prompt without a timestamp that the next sync re-reads from', async () => {
    const r = await grow('claude', SID, claudeFile, [
      lines(turn('u1', null, 'a1'), lastPrompt('a1')),
      // u2 starts the part the next sync re-reads: it takes a1's time only from before that part
      lines(bare(user('u2', 'a1', 'no time')), asst('a2', 'u2', 'reply a2'), lastPrompt('a2')),
      lines(bare(attachment('t2', 'a2')), turn('u3', 't2', 'a3'), lastPrompt('a3')),
      lines(bare(attachment('t3', 'a3')), bare(user('u4', 't3', 'no time either'))),
      lines(lastPrompt('u4')),
    ]);
    expect(r.leaves).toEqual(['a1', 'a2', 'a3', 'u4', 'u4']);
    expect(r.appended).toBe(4);
  });

  it('timestamps going backwards across the part re-read', async () => {
    const r = await grow('claude', SID, claudeFile, [
      // u2 (no time) takes u1's 30, the greatest before it, not a1's 20 (the last seen) nor a2's 40
      lines(at(user('u1', null, 'p1'), 30), at(asst('a1', 'u1', 'r1'), 20), bare(user('u2', 'a1', 'p2'))),
      lines(at(asst('a2', 'u2', 'r2'), 40), lastPrompt('a2')),
      // u3 is earlier than a2; the records without a time after it take a2's 40
      lines(bare(attachment('t2', 'a2')), at(user('u3', 't2', 'p3'), 10), bare(attachment('t3', 'u3'))),
      lines(bare(attachment('t4', 't3')), at(asst('a3', 't4', 'r3'), 5), lastPrompt('a3')),
      lines(bare(user('u4', 'a3', 'p4')), at(asst('a4', 'u4', 'r4'), 50)),
      lines(bare(attachment('t5', 'a4')), lastPrompt('t5')),
    ]);
    expect(r.leaves).toEqual(['u2', 'a2', 't3', 'a3', 'a4', 't5']);
    expect(r.appended).toBe(5);
  });
});

const PI_ID = 'pi-offset-0001';
const piFile = join('.pi', 'agent', 'sessions', '--work-pi--', `2026-01-01T00-00-00-000Z_${PI_ID}.jsonl`);
function piMsg(id: string, parent: string | null, role: 'user' | 'assistant', text: string): string {
  const message =
    role === 'user'
      ? { role, content: [{ type: 'text', text }], timestamp: 1 }
      : {
          role,
          content: [{ type: 'text', text }],
          api: 'anthropic-messages',
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          usage: { input: 3, output: 4, cacheRead: 5, cacheWrite: 6, totalTokens: 18, cost: { total: 0.01 } },
          stopReason: 'stop',
          timestamp: 2,
        };
  return JSON.stringify({ type: 'message', id, parentId: parent, timestamp: ts(++clock), message });
}

describe('pi: an offset sync gives what a full read gives', () => {
  it('new turns, a branch, a name, a compaction, a branch summary and a torn line', async () => {
    const header = JSON.stringify({ type: 'session', version: 3, id: PI_ID, timestamp: ts(0), cwd: '/work/pi' });
    const compact = JSON.stringify({
      type: 'compaction',
      id: 'c1',
      parentId: 'p4',
      timestamp: ts(++clock),
      summary: 'pi summary',
      firstKeptEntryId: 'p3',
      tokensBefore: 999,
    });
    const summary = JSON.stringify({
      type: 'branch_summary',
      id: 'bs1',
      parentId: 'p1',
      timestamp: ts(++clock),
      fromId: 'p1',
      summary: 'what the other branch did',
    });
    const torn = piMsg('p9', 'bs1', 'user', 'after the summary');
    const r = await grow('pi', PI_ID, piFile, [
      async (file) =>
        writeFile(file, `${[header, piMsg('p1', null, 'user', 'q1'), piMsg('p2', 'p1', 'assistant', 'r1')].join('\n')}\n`),
      lines(piMsg('p3', 'p2', 'user', 'q2'), piMsg('p4', 'p3', 'assistant', 'r2')),
      lines(
        JSON.stringify({ type: 'session_info', id: 'n1', parentId: 'p4', timestamp: ts(++clock), name: 'pi name' }),
        piMsg('b1', 'p1', 'user', 'a branch'),
      ),
      lines(compact, piMsg('p5', 'c1', 'user', 'q3')),
      lines(summary),
      async (file) => appendFile(file, torn.slice(0, 30)),
      async (file) => appendFile(file, `${torn.slice(30)}\n`),
    ]);
    expect(r.leaves).toEqual(['p2', 'p4', 'b1', 'p5', 'bs1', 'bs1', 'p9']);
    expect(r.appended).toBe(6);
  });
});

/** Stages that append a file's lines one by one, every third line in two halves (a torn line first). */
function lineByLine(text: string): ((file: string) => Promise<void>)[] {
  const ls = text.split('\n').filter((l) => l.trim() !== '');
  return ls.flatMap((l, i) => {
    if (i % 3 !== 2) return [async (file: string) => appendFile(file, `${l}\n`)];
    const half = Math.floor(l.length / 2);
    return [
      async (file: string) => appendFile(file, l.slice(0, half)),
      async (file: string) => appendFile(file, `${l.slice(half)}\n`),
    ];
  });
}

const FIXTURES = join(__dirname, '..', 'fixtures');

/**
 * A real transcript of `format`, test/fixtures/`rel`, grown line by line (lineByLine) in a home of its own,
 * synced after every line: how many stages there were, and how many syncs read only the added part.
 */
async function growLineByLine(format: 'claude' | 'pi', rel: string): Promise<{ stages: number; appended: number }> {
  const text = await readFile(join(FIXTURES, rel), 'utf8');
  const id =
    format === 'claude'
      ? ((text.match(/"sessionId":"([0-9a-f-]{36})"/) as RegExpMatchArray)[1] as string)
      : (JSON.parse(text.split('\n')[0] as string) as { id: string }).id;
  const file =
    format === 'claude'
      ? join('.claude', 'projects', '-tmp-grown', `${id}.jsonl`)
      : join('.pi', 'agent', 'sessions', '--grown--', `2026-01-01T00-00-00-000Z_${id}.jsonl`);
  const stages = lineByLine(text);
  const r = await grow(format, id, file, stages);
  return { stages: stages.length, appended: r.appended };
}

describe('real transcripts grown line by line, synced after every line', () => {
  const claude = [
    'claude/real/projects/-tmp-cc-proj/0afea31a-5ccc-4b41-8d19-4c8571cb3a03.jsonl',
    'claude/real/projects/-tmp-cc-proj2/9f7f5cd3-8a7d-4c4a-bd84-0310bdd47949.jsonl',
    'claude/real/projects/-tmp-cc-advisor/4cf6af46-90ce-4140-a417-cb383e9c5ef7.jsonl',
    'claude/resume/projects/-tmp-cc-resume/97b77f9e-83ad-43e3-bff0-f682bdf6afd4.jsonl',
    'claude/resume/projects/-tmp-cc-resume/afe3ee95-bd60-4e20-b090-72ddee96297d.jsonl',
    'claude/parallel-tools/transcript.jsonl',
  ];
  for (const rel of claude)
    it(`Claude Code: ${rel}`, async () => {
      const r = await growLineByLine('claude', rel);
      // all but the stages before the first prompt (and a rare one whose leaf needs the earlier part)
      // are read from the offset
      expect(r.appended).toBeGreaterThanOrEqual(r.stages - 5);
    }, 120_000);

  const pi = ['real-branched.jsonl', 'real-compacted.jsonl', 'real-fork.jsonl', 'real-tool-call.jsonl', 'v3-all-types.jsonl'];
  for (const rel of pi)
    it(`pi: ${rel}`, async () => {
      expect((await growLineByLine('pi', join('pi', rel))).appended).toBeGreaterThan(0);
    }, 120_000);
});
