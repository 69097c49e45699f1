/**
 * A grown JSONL file is read from its last indexed byte, and the index then holds exactly what a
 * whole read gives: for Claude Code (parallel tool results and a compaction straddling the old end)
 * and pi, cut at every line and in the middle of a line. A file changed before its offset, or one
 * that shrank, is read whole.
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-incr-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const SID = '7a7a7a7a-0000-4000-8000-000000000001';

/** A Claude Code transcript: prompts, a response split over records with two parallel tool calls, their results, a compaction. */
function claudeLines(): string[] {
  const base = { sessionId: SID, cwd: '/work/incr', version: '2.0.14', userType: 'external', isSidechain: false };
  const ts = (n: number) => new Date(Date.UTC(2025, 5, 1, 0, 0, n)).toISOString();
  const usage = { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 };
  const lines: object[] = [];
  let parent: string | null = null;
  const uuid = (n: number) => `7a7a7a7a-1111-4000-8000-${String(n).padStart(12, '0')}`;
  let n = 0;
  for (let turn = 0; turn < 3; turn++) {
    const u = uuid(++n);
    lines.push({
      ...base,
      type: 'user',
      uuid: u,
      parentUuid: parent,
      timestamp: ts(n),
      message: { role: 'user', content: `turn ${turn} wombatword` },
    });
    const msg = `msg_${turn}`;
    const a1 = uuid(++n);
    const a2 = uuid(++n);
    for (const [id, par, call] of [
      [a1, u, 'a'],
      [a2, a1, 'b'],
    ] as const) {
      lines.push({
        ...base,
        type: 'assistant',
        uuid: id,
        parentUuid: par,
        timestamp: ts(n),
        requestId: `req_${turn}`,
        message: {
          id: msg,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: `toolu_${turn}${call}`, name: 'Bash', input: { command: `ls ${call}` } }],
          stop_reason: 'tool_use',
          usage,
        },
      });
    }
    // each result hangs from its own call's record (Claude Code's parallel layout)
    const r1 = uuid(++n);
    const r2 = uuid(++n);
    lines.push({
      ...base,
      type: 'user',
      uuid: r1,
      parentUuid: a1,
      timestamp: ts(n),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}a`, content: 'out a koalaword' }] },
    });
    lines.push({
      ...base,
      type: 'user',
      uuid: r2,
      parentUuid: a2,
      timestamp: ts(n),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}b`, content: 'out b' }] },
    });
    const a3 = uuid(++n);
    lines.push({
      ...base,
      type: 'assistant',
      uuid: a3,
      parentUuid: r2,
      timestamp: ts(n),
      requestId: `req_${turn}x`,
      message: {
        id: `${msg}x`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: `done ${turn}` }],
        stop_reason: 'end_turn',
        usage,
      },
    });
    parent = a3;
    if (turn === 1) {
      const c = uuid(++n);
      lines.push({
        ...base,
        type: 'system',
        subtype: 'compact_boundary',
        uuid: c,
        parentUuid: null,
        logicalParentUuid: a3,
        timestamp: ts(n),
        compactMetadata: { trigger: 'manual', preTokens: 1234 },
      });
      const sum = uuid(++n);
      lines.push({
        ...base,
        type: 'user',
        uuid: sum,
        parentUuid: c,
        isCompactSummary: true,
        timestamp: ts(n),
        message: { role: 'user', content: 'summary of the first turns' },
      });
      lines.push({ type: 'custom-title', customTitle: 'incremental title', sessionId: SID });
      parent = sum;
    }
  }
  return lines.map((l) => JSON.stringify(l));
}

function piLines(): string[] {
  const ts = (n: number) => new Date(Date.UTC(2025, 6, 1, 0, 0, n)).toISOString();
  const out: object[] = [{ type: 'session', version: 3, id: 'pi-incr-0001', timestamp: ts(0), cwd: '/work/pi' }];
  let parent: string | null = null;
  for (let i = 0; i < 6; i++) {
    const u = `u${i}`;
    const a = `a${i}`;
    out.push({
      type: 'message',
      id: u,
      parentId: parent,
      timestamp: ts(i * 2 + 1),
      message: { role: 'user', content: [{ type: 'text', text: `question ${i} numbatword` }], timestamp: 1 },
    });
    out.push({
      type: 'message',
      id: a,
      parentId: u,
      timestamp: ts(i * 2 + 2),
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: `answer ${i}` }],
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: { input: 3, output: 4, cacheRead: 5, cacheWrite: 6, totalTokens: 18, cost: { total: 0.01 } },
        stopReason: 'stop',
        timestamp: 2,
      },
    });
    parent = a;
    if (i === 2) out.push({ type: 'session_info', id: 'n1', parentId: a, timestamp: ts(20), name: 'named pi session' });
    // a branch from an earlier entry
    if (i === 4)
      out.push({
        type: 'message',
        id: 'b1',
        parentId: 'u1',
        timestamp: ts(30),
        message: { role: 'user', content: [{ type: 'text', text: 'a branch' }], timestamp: 3 },
      });
  }
  return out.map((l) => JSON.stringify(l));
}

interface Snapshot {
  info: unknown;
  row: unknown;
  entries: unknown[];
  hits: string[];
}

function snapshot(store: SqliteStore, id: string): Snapshot {
  const row = store.db
    .prepare(
      'SELECT source, project, title, created_at, updated_at, message_count, first_user_text, leaf_id, next_seq, warnings_json FROM sessions WHERE id = ?',
    )
    .get(id) as Record<string, unknown> | undefined;
  // (the file path differs between the homes compared)
  const { path: _path, ...info } = JSON.parse(
    (store.db.prepare('SELECT info_json FROM sessions WHERE id = ?').get(id) as { info_json: string }).info_json,
  );
  const entries = store.db
    .prepare(
      'SELECT id, parent_id, seq, kind, role, response_id, counted, input, output, cache_read, cache_write, cost, json FROM entries WHERE session_id = ? ORDER BY seq',
    )
    .all(id);
  const hits = (
    store.db
      .prepare(
        `SELECT e.id FROM entries_fts JOIN entries e ON e.rowid = entries_fts.rowid WHERE entries_fts MATCH 'wombatword OR koalaword OR numbatword' ORDER BY e.seq`,
      )
      .all() as { id: string }[]
  ).map((r) => r.id);
  return { info, row, entries, hits };
}

/** A Claude Code transcript of `lines` under another session id, in a project folder of `home`. */
async function writeClaudeCopy(home: string, project: string, id: string, lines: readonly string[]): Promise<void> {
  const file = join(home, '.claude', 'projects', project, `${id}.jsonl`);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, `${lines.map((l) => l.replaceAll(SID, id)).join('\n')}\n`);
}

async function indexOf(home: string, format: string): Promise<{ store: SqliteStore; sync: IndexSync; sources: Sources }> {
  const env: DriverEnv = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  await mkdir(join(home, '.threadbase'), { recursive: true });
  const store = openSqliteStore(indexPath(env));
  void format;
  return { store, sync: new IndexSync(store), sources: new Sources(env) };
}

async function checkCuts(format: 'claude' | 'pi', lines: string[], fileOf: (home: string) => string, id: string): Promise<void> {
  const text = `${lines.join('\n')}\n`;
  // The whole read, once.
  const wholeHome = join(root, `${format}-whole`);
  await mkdir(join(fileOf(wholeHome), '..'), { recursive: true });
  await writeFile(fileOf(wholeHome), text);
  const whole = await indexOf(wholeHome, format);
  expect((await whole.sync.sync(whole.sources, { formats: [format], workers: 0 })).reread).toBe(1);
  const expected = snapshot(whole.store, id);
  await whole.store.close();
  expect(expected.entries.length).toBeGreaterThan(10);

  // Cuts after every line (from the second), and one in the middle of a line.
  const ends: number[] = [];
  let at = 0;
  for (const l of lines) {
    at += Buffer.byteLength(l) + 1;
    ends.push(at);
  }
  const cuts = [...ends.slice(1, -1), (ends[3] as number) + 7];
  let appended = 0;
  for (const cut of cuts) {
    const home = join(root, `${format}-cut-${cut}`);
    await mkdir(join(fileOf(home), '..'), { recursive: true });
    const bytes = Buffer.from(text);
    await writeFile(fileOf(home), bytes.subarray(0, cut));
    const idx = await indexOf(home, format);
    try {
      expect((await idx.sync.sync(idx.sources, { formats: [format], workers: 0 })).reread).toBe(1);
      await appendFile(fileOf(home), bytes.subarray(cut));
      const second = await idx.sync.sync(idx.sources, { formats: [format], workers: 0 });
      expect(second.reread + second.appended).toBe(1);
      appended += second.appended;
      const got = snapshot(idx.store, id);
      expect({ cut, ...got }).toEqual({ cut, ...expected });
    } finally {
      await idx.store.close();
    }
  }
  // every cut after the first turn began was read from its offset, not whole
  expect(appended).toBe(cuts.length);
}

describe('reading a grown JSONL from its last indexed byte', () => {
  it('Claude Code: gives what a whole read gives, at every cut', async () => {
    await checkCuts('claude', claudeLines(), (home) => join(home, '.claude', 'projects', '-work-incr', `${SID}.jsonl`), SID);
  }, 60_000);

  it('pi: gives what a whole read gives, at every cut', async () => {
    await checkCuts(
      'pi',
      piLines(),
      (home) => join(home, '.pi', 'agent', 'sessions', '--work-pi--', '2025-07-01T00-00-00-000Z_pi-incr-0001.jsonl'),
      'pi-incr-0001',
    );
  }, 60_000);

  it('reads a file whole when bytes before its offset changed, or when it shrank', async () => {
    const home = join(root, 'rewrite');
    const file = join(home, '.claude', 'projects', '-work-incr', `${SID}.jsonl`);
    await mkdir(join(file, '..'), { recursive: true });
    const lines = claudeLines();
    await writeFile(file, `${lines.slice(0, 8).join('\n')}\n`);
    const idx = await indexOf(home, 'claude');
    try {
      await idx.sync.sync(idx.sources, { formats: ['claude'], workers: 0 });
      // same length, different bytes in the last indexed line, then more lines
      const original = await readFile(file, 'utf8');
      await writeFile(file, `${original.replace('done 0', 'DONE 0')}${lines.slice(8).join('\n')}\n`);
      const rewritten = await idx.sync.sync(idx.sources, { formats: ['claude'], workers: 0 });
      expect(rewritten.reread).toBe(1);
      expect(rewritten.appended).toBe(0);
      expect(JSON.stringify(snapshot(idx.store, SID).entries)).toContain('DONE 0');
      await writeFile(file, `${lines.slice(0, 4).join('\n')}\n`);
      const shrunk = await idx.sync.sync(idx.sources, { formats: ['claude'], workers: 0 });
      expect(shrunk.reread).toBe(1);
      expect(snapshot(idx.store, SID).entries.length).toBe(4);
      // and a plain append after that is read from the offset again
      await appendFile(file, `${lines.slice(4, 10).join('\n')}\n`);
      expect((await idx.sync.sync(idx.sources, { formats: ['claude'], workers: 0 })).appended).toBe(1);
      expect(snapshot(idx.store, SID).entries.length).toBe(10);
    } finally {
      await idx.store.close();
    }
  });
});

describe('reading in a worker thread', () => {
  it('stores exactly what reading in this thread stores', async () => {
    const lines = claudeLines();
    const homes = [join(root, 'thread-0'), join(root, 'thread-1')];
    const snaps: Snapshot[][] = [];
    for (const [i, home] of homes.entries()) {
      for (let n = 0; n < 4; n++) await writeClaudeCopy(home, '-work-incr', SID.replace(/1$/, String(n + 2)), lines);
      const pi = join(home, '.pi', 'agent', 'sessions', '--work-pi--', '2025-07-01T00-00-00-000Z_pi-incr-0001.jsonl');
      await mkdir(join(pi, '..'), { recursive: true });
      await writeFile(pi, `${piLines().join('\n')}\n`);
      const idx = await indexOf(home, 'claude');
      try {
        const r = await idx.sync.sync(idx.sources, { formats: ['claude', 'pi'], workers: i });
        expect(r.reread).toBe(5);
        expect(r.failed).toBe(0);
        expect(r.inWorker).toBe(i === 1 ? 5 : 0);
        const ids = (idx.store.db.prepare('SELECT id FROM sessions ORDER BY id').all() as { id: string }[]).map((x) => x.id);
        expect(ids.length).toBe(5);
        snaps.push(ids.map((id) => snapshot(idx.store, id)));
      } finally {
        await idx.store.close();
      }
    }
    expect(snaps[1]).toEqual(snaps[0]);
  }, 60_000);

  it('is not started for a small sync, where starting it costs more than it saves', async () => {
    // 12 sessions of ≈ 0.5 MB: over the old threshold (8 units, 4 MB), under the new one (16 MB)
    const home = join(root, 'small-default');
    const padding = 'x'.repeat(512 * 1024);
    const lines = claudeLines().map((l) => l.replace('done 0', `done 0 ${padding}`));
    for (let n = 0; n < 12; n++) await writeClaudeCopy(home, '-work-small', SID.replace(/01$/, String(n + 10)), lines);
    const idx = await indexOf(home, 'claude');
    try {
      const r = await idx.sync.sync(idx.sources, { formats: ['claude'] });
      expect(r.reread).toBe(12);
      expect(r.inWorker).toBe(0);
    } finally {
      await idx.store.close();
    }
  });
});
