/**
 * Qwen Code in the local index: each chat file is a unit known by its size and time (its name is
 * its session id, so a listing reads no file), a warm sync reads nothing, and a turn Qwen Code
 * appended re-reads that chat only; `show`, `context`, `search` and `stats` answer from it.
 */
import { appendFile, cp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import type { DriverEnv, SourceUnit } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';

const REAL = 'ee2a1197-112a-4879-a9f4-4ee94585ced0';
const OTHER = '22222222-3333-4444-8555-666666666666';
/** The real chat that ran a sub-agent, and the sub-agent (a unit of its own) */
const SUB_PARENT = '1865e916-c5ec-4265-a939-6e90168805d2';
const SUB_AGENT = 'general-purpose-toolu_standin_0001';
const ALL = [OTHER, REAL, SUB_PARENT, SUB_AGENT].sort();
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let env: DriverEnv;
let chats: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-qwen-units-');
  env = home.env;
  await cp(resolve('test/fixtures/qwen/real-0.24.4'), join(home.dir, '.qwen'), { recursive: true });
  chats = join(home.dir, '.qwen', 'projects', '-tmp-qwen-fixture-proj', 'chats');
  // a second chat of the same project: the real one's first turn under another session id
  const lines = (await readFile(join(chats, `${REAL}.jsonl`), 'utf8')).trim().split('\n').slice(0, 8);
  await appendFile(join(chats, `${OTHER}.jsonl`), `${lines.map((l) => l.split(REAL).join(OTHER)).join('\n')}\n`);
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  project: s.project,
  messageCount: s.messageCount,
  usage: s.usage,
  path: s.path,
});

async function sync() {
  let reads: { mock: { calls: [SourceUnit, ...unknown[]][] } } | undefined;
  const { report, listed } = await syncStore<QwenDriver>(env, 'qwen', (driver) => {
    reads = vi.spyOn(driver, 'readUnit');
  });
  return { report, indexed: listed.map(fields), read: (reads?.mock.calls ?? []).map(([u]) => u.sessionId).sort() };
}

describe('Qwen Code chats as units of the index', () => {
  it('indexes one unit per chat, as the driver lists them', async () => {
    const first = await sync();
    const fromDriver = (await new QwenDriver(env).listSessions()).map(fields).sort(byId);
    expect(first.indexed).toEqual(fromDriver);
    expect(first.indexed.map((s) => s.id)).toEqual(ALL);
    expect(first.read).toEqual(ALL);
    expect(first.indexed.find((s) => s.id === SUB_AGENT)).toMatchObject({ title: 'count the files' });
  });

  it('a warm sync reads no chat', async () => {
    const warm = await sync();
    expect(warm.read).toEqual([]);
    expect(warm.report).toMatchObject({ reread: 0, removed: 0 });
  });

  it('a turn Qwen Code appended re-reads that chat only', async () => {
    const last = JSON.parse((await readFile(join(chats, `${OTHER}.jsonl`), 'utf8')).trim().split('\n').at(-1) as string) as {
      uuid: string;
    };
    await appendFile(
      join(chats, `${OTHER}.jsonl`),
      `${JSON.stringify({
        uuid: 'appended-1',
        parentUuid: last.uuid,
        sessionId: OTHER,
        timestamp: '2026-11-26T04:00:00.000Z',
        type: 'user',
        cwd: '/tmp/qwen-fixture/proj',
        message: { role: 'user', parts: [{ text: 'a zanzibarquokka question' }] },
      })}\n`,
    );
    const after = await sync();
    expect(after.read).toEqual([OTHER]);
    expect(after.indexed.find((s) => s.id === OTHER)?.messageCount).toBe(5);
    expect(after.indexed).toEqual((await new QwenDriver(env).listSessions()).map(fields).sort(byId));
  });

  it('answers show, context, search and stats from the index', async () => {
    const ok = async (args: string[]) => {
      const r = await runCli(env, args);
      expect(r.code, r.err).toBe(0);
      return r.out;
    };
    const shown = JSON.parse(await ok(['show', REAL, '--json'])) as { id: string; source: string };
    expect(shown).toMatchObject({ id: REAL, source: 'qwen' });
    const ctx = JSON.parse(await ok(['context', REAL, '--format', 'anthropic'])) as { messages: { role: string }[] };
    expect(ctx.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const hits = JSON.parse(await ok(['search', 'zanzibarquokka', '--json'])) as { sessionId: string }[];
    expect(hits.map((h) => h.sessionId)).toEqual([OTHER]);
    const stats = JSON.parse(await ok(['stats', '--by', 'session', '--json'])) as { key: string; inputTokens: number }[];
    expect(stats.map((s) => s.key).sort()).toEqual(ALL);
    // the real chat's four responses, 10312 prompt tokens, each counted once (the second chat holds copies of two)
    const copies = stats.filter((s) => s.key === OTHER || s.key === REAL);
    expect(copies.reduce((n, s) => n + s.inputTokens, 0)).toBe(10312);
  });
});
