/**
 * A Qwen Code chat that grew is read from its last indexed record on (that record again, since a
 * record's fragments may follow it, and what was appended), and the index then equals a cold sync of
 * the same files; a torn last line is read again once whole; a chat that shrank, or whose new records
 * branch off an earlier one, is read whole.
 */
import { appendFile, cp, mkdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import type { QwenDriver } from '../../src/formats/qwen/index.js';
import type { DriverEnv, ReadFrom, SourceUnit, UnitRead } from '../../src/model/driver.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { syncStore, tempIndexHome } from '../helpers/index-units.js';

const REAL = 'ee2a1197-112a-4879-a9f4-4ee94585ced0';
const CWD = '/tmp/qwen-fixture/proj';
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let chat: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  home = await tempIndexHome('tb-qwen-append-');
  await cp(resolve('test/fixtures/qwen/real-0.24.4'), join(home.dir, '.qwen'), { recursive: true });
  chat = join(home.dir, '.qwen', 'projects', '-tmp-qwen-fixture-proj', 'chats', `${REAL}.jsonl`);
});
afterAll(async () => {
  await home.remove();
  for (const c of cleanups) await c();
});

const record = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', text: string, extra: object = {}) =>
  `${JSON.stringify({
    uuid,
    parentUuid,
    sessionId: REAL,
    timestamp: `2026-11-26T04:${String(10 + Number(uuid.slice(-2))).padStart(2, '0')}:00.000Z`,
    type,
    cwd: CWD,
    version: '0.24.4',
    message: { role: type === 'user' ? 'user' : 'model', parts: [{ text }] },
    ...(type === 'assistant'
      ? { model: 'claude-standin', usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 7 } }
      : {}),
    ...extra,
  })}\n`;

type Call = { from?: ReadFrom; read?: UnitRead };

/** One sync of the Qwen store, recording each readUnit call (where it read from) and what it returned. */
async function sync(env: DriverEnv) {
  const calls: Call[] = [];
  const { report, listed } = await syncStore<QwenDriver>(env, 'qwen', (driver) => {
    const real = driver.readUnit.bind(driver);
    vi.spyOn(driver, 'readUnit').mockImplementation(async (unit: SourceUnit, from?: ReadFrom) => {
      const read = await real(unit, from);
      if (unit.sessionId === REAL) calls.push({ ...(from ? { from } : {}), ...(read ? { read } : {}) });
      return read;
    });
  });
  return { report, listed, calls };
}

/** What the index holds of the chat: its listing, entries (id, parent, kind, text) and warnings. */
async function indexed(env: DriverEnv) {
  const store = openSqliteStore(indexPath(env));
  try {
    const s = await store.getSession(REAL);
    if (!s) throw new Error('not indexed');
    const { entries, warnings, ...info } = s;
    return {
      info,
      entries: entries.map((e) => ({
        id: e.id,
        parentId: e.parentId,
        kind: e.kind,
        parts: e.kind === 'message' ? e.message.parts : undefined,
      })),
      warnings: (warnings ?? []).map((w) => ({ line: w.line, message: w.message })),
    };
  } finally {
    await store.close();
  }
}

/** The same files synced into a new, empty index. */
async function coldIndex() {
  const cold = await tempIndexHome('tb-qwen-append-cold-');
  cleanups.push(cold.remove);
  await cp(join(home.dir, '.qwen'), join(cold.dir, '.qwen'), { recursive: true });
  const first = await sync(cold.env);
  expect(first.calls.every((c) => !c.from)).toBe(true);
  return indexed(cold.env);
}

/** The index, with paths as the cold copy has them. */
async function warmIndex() {
  const warm = await indexed(home.env);
  return JSON.parse(JSON.stringify(warm).split(home.dir).join('<home>'));
}
async function coldOf() {
  const cold = await coldIndex();
  const text = JSON.stringify(cold);
  const dir = /"path":"([^"]*)\/\.qwen\//.exec(text)?.[1] ?? '';
  return JSON.parse(text.split(dir).join('<home>'));
}

describe('Qwen Code: a grown chat read from its last record', () => {
  it('reads an appended turn from the offset of the last record, and the index equals a cold sync', async () => {
    await sync(home.env);
    const before = await readFile(chat);
    const lastLine = before.subarray(0, before.length - 1).lastIndexOf(0x0a) + 1;
    const last = JSON.parse(before.subarray(lastLine).toString()) as { uuid: string };
    await appendFile(chat, record('aaaaaaaa-0000-4000-8000-000000000001', last.uuid, 'user', 'a wombatquince question'));
    // an answer in two fragments (one uuid), the second not yet whole: Qwen Code is still writing it
    await appendFile(
      chat,
      record('aaaaaaaa-0000-4000-8000-000000000002', 'aaaaaaaa-0000-4000-8000-000000000001', 'assistant', 'first half'),
    );
    const torn = record(
      'aaaaaaaa-0000-4000-8000-000000000002',
      'aaaaaaaa-0000-4000-8000-000000000001',
      'assistant',
      'second half',
    );
    await appendFile(chat, torn.slice(0, 40));

    const grown = await sync(home.env);
    expect(grown.report).toMatchObject({ appended: 1, reread: 0 });
    expect(grown.calls).toHaveLength(1);
    // asked to read from the indexed end; it re-read only the last record indexed (line 16) and what follows
    expect(grown.calls[0]?.from?.offset).toBe(before.length);
    expect(grown.calls[0]?.read).toMatchObject({ appended: true, replaces: 1, fromLine: 16 });
    expect(grown.calls[0]?.read?.session.entries.map((e) => e.id)).toEqual([
      last.uuid,
      'aaaaaaaa-0000-4000-8000-000000000001',
      'aaaaaaaa-0000-4000-8000-000000000002',
    ]);
    expect((await warmIndex()).warnings).toEqual([{ line: 19, message: expect.stringMatching(/^torn last line/) }]);
    expect(await warmIndex()).toEqual(await coldOf());

    // the torn fragment finished, and one more turn: the answer is read again, now whole
    await appendFile(chat, torn.slice(40));
    await appendFile(
      chat,
      record('aaaaaaaa-0000-4000-8000-000000000003', 'aaaaaaaa-0000-4000-8000-000000000002', 'user', 'thanks'),
    );
    const finished = await sync(home.env);
    expect(finished.report).toMatchObject({ appended: 1, reread: 0 });
    expect(finished.calls[0]?.read?.appended).toBe(true);
    const warm = await warmIndex();
    const answer = warm.entries.find((e: { id: string }) => e.id === 'aaaaaaaa-0000-4000-8000-000000000002');
    expect(answer.parts).toEqual([
      { type: 'text', text: 'first half' },
      { type: 'text', text: 'second half' },
    ]);
    expect(warm.warnings).toEqual([]);
    expect(warm).toEqual(await coldOf());
  });

  it('reads whole a chat whose new records branch off an earlier record', async () => {
    const firstUser = JSON.parse((await readFile(chat, 'utf8')).split('\n')[0] as string) as { uuid: string };
    await appendFile(chat, record('bbbbbbbb-0000-4000-8000-000000000004', firstUser.uuid, 'assistant', 'another answer'));
    const branched = await sync(home.env);
    expect(branched.calls[0]?.from).toBeDefined();
    expect(branched.calls[0]?.read?.appended).toBeUndefined();
    const warm = await warmIndex();
    expect(warm.info.leafId).toBe('bbbbbbbb-0000-4000-8000-000000000004');
    expect(warm).toEqual(await coldOf());
  });

  it('reads whole a chat that shrank', async () => {
    const text = await readFile(chat, 'utf8');
    await truncate(chat, Buffer.byteLength(text.split('\n').slice(0, 8).join('\n')) + 1);
    const shrunk = await sync(home.env);
    expect(shrunk.report).toMatchObject({ reread: 1, appended: 0 });
    expect(shrunk.calls[0]?.from).toBeUndefined();
    expect(await warmIndex()).toEqual(await coldOf());
  });
});

describe('Qwen Code: a chat cut anywhere, then grown', () => {
  it('gives the index a cold sync gives, at every line and mid-line', async () => {
    const full = await readFile(
      resolve('test/fixtures/qwen/real-0.24.4/projects/-tmp-qwen-fixture-proj/chats', `${REAL}.jsonl`),
      'utf8',
    );
    const last = JSON.parse(full.trim().split('\n').at(-1) as string) as { uuid: string };
    // the real chat, then a question and an answer written in two fragments of one record
    const text =
      full +
      record('cccccccc-0000-4000-8000-000000000001', last.uuid, 'user', 'a cut question') +
      record('cccccccc-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000001', 'assistant', 'one') +
      record('cccccccc-0000-4000-8000-000000000002', 'cccccccc-0000-4000-8000-000000000001', 'assistant', 'two');
    const ends = [...text.matchAll(/\n/g)].map((m) => (m.index ?? 0) + 1);
    // at every line end; mid-line too around the fragments (the last lines)
    const cuts = ends.flatMap((e, i) => [e, ...(i >= ends.length - 5 && i + 1 < ends.length ? [e + 20] : [])]).slice(0, -1);
    let appended = 0;
    for (const cut of cuts) {
      const h = await tempIndexHome('tb-qwen-cut-');
      cleanups.push(h.remove);
      const dir = join(h.dir, '.qwen', 'projects', '-tmp-qwen-fixture-proj', 'chats');
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${REAL}.jsonl`);
      await writeFile(file, text.slice(0, cut));
      await sync(h.env);
      await appendFile(file, text.slice(cut));
      const grown = await sync(h.env);
      appended += grown.report.appended;
      const cold = await tempIndexHome('tb-qwen-cut-cold-');
      cleanups.push(cold.remove);
      await cp(join(h.dir, '.qwen'), join(cold.dir, '.qwen'), { recursive: true });
      await sync(cold.env);
      const strip = (v: unknown, dir: string) => JSON.parse(JSON.stringify(v).split(dir).join('<home>'));
      expect(strip(await indexed(h.env), h.dir), `cut at byte ${cut}`).toEqual(strip(await indexed(cold.env), cold.dir));
    }
    // every cut appended (the first line was whole at each)
    expect(appended).toBe(cuts.length);
  });
});
