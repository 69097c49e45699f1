/**
 * Gemini CLI in the local index: each chat and checkpoint file is a unit known by its size and time
 * (a full Gemini listing parses every chat), one per session where a legacy .json was migrated to
 * .jsonl, and a sub-agent is read again when its parent chat changes (the call that spawned it is
 * there).
 */
import { appendFile, cp, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { writeLinkedSubAgent } from '../helpers/gemini-orphans.js';
import { byId, syncStoreCountingReads, tempIndexHome } from '../helpers/index-units.js';

const MAIN = '8a2f0c1e-1111-4222-8333-944455556666';
let home: Awaited<ReturnType<typeof tempIndexHome>>;
let dir: string;
let env: DriverEnv;
let chats: string;

beforeAll(async () => {
  home = await tempIndexHome('tb-gemini-units-');
  ({ dir, env } = home);
  await cp(resolve('test/fixtures/gemini/home/.gemini'), join(dir, '.gemini'), { recursive: true });
  chats = join(dir, '.gemini', 'tmp', 'myproj', 'chats');
  // the main chat as Gemini CLI kept it before migrating it to .jsonl: the same session id, older
  const lines = (await readFile(join(chats, 'session-2025-11-01T10-00-8a2f0c1e.jsonl'), 'utf8')).trim().split('\n');
  const meta = JSON.parse(lines[0] as string) as Record<string, unknown>;
  const first = JSON.parse(lines[1] as string) as Record<string, unknown>;
  await writeFile(join(chats, 'session-2025-11-01T10-00-8a2f0c1e.json'), JSON.stringify({ ...meta, messages: [first] }));
  // a sub-agent whose call in the parent carries its id (ToolCallRecord.agentId)
  await writeLinkedSubAgent(chats);
});
afterAll(() => home.remove());

const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  project: s.project,
  parentId: s.parentId ?? null,
  parentToolCallId: s.parentToolCallId,
  messageCount: s.messageCount,
  usage: s.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
  path: s.path,
});

async function sync() {
  const { report, listed, read, listCalls } = await syncStoreCountingReads(env, 'gemini');
  return { report, indexed: listed.map(fields), read, listed: listCalls };
}

describe('Gemini CLI chats as units of the index', () => {
  it('indexes one unit per session with the listing the driver gives, sub-agent link included', async () => {
    const first = await sync();
    const fromDriver = (await new GeminiDriver(env).listSessions()).map(fields).sort(byId);
    expect(first.indexed).toEqual(fromDriver);
    expect(first.listed).toBe(0);
    // the migrated chat is the .jsonl, once; the sub-agent knows the call that spawned it
    expect(first.indexed.filter((s) => s.id === MAIN).map((s) => s.path?.endsWith('.jsonl'))).toEqual([true]);
    expect(first.indexed.find((s) => s.id === 'child-1')).toMatchObject({ parentId: 'parent-1', parentToolCallId: 'call-9' });
    expect(first.report.units).toBe(fromDriver.length);
  });

  it('a warm sync reads no chat, not even a first line', async () => {
    const sources = new Sources(env);
    const driver = sources.driver('gemini') as GeminiDriver;
    const ids = vi.spyOn(driver as unknown as { chatId: () => Promise<string> }, 'chatId');
    const store = openSqliteStore(indexPath(env));
    try {
      const report = await new IndexSync(store).sync(sources, { formats: ['gemini'], workers: 0 });
      expect(report).toMatchObject({ reread: 0, removed: 0 });
      expect(report.unchanged).toBe(report.units);
      expect(ids).not.toHaveBeenCalled();
    } finally {
      await store.close();
      await sources.close();
    }
  });

  it('a turn added to the parent chat re-reads it and its sub-agent, nothing else', async () => {
    const store = openSqliteStore(indexPath(env));
    const before = (await store.listSessions({ source: 'gemini' })).find((s) => s.id === MAIN)?.messageCount ?? 0;
    await store.close();
    await appendFile(
      join(chats, 'session-2025-11-01T10-00-8a2f0c1e.jsonl'),
      `${JSON.stringify({ id: 'u9', timestamp: '2025-11-01T11:00:00.000Z', type: 'user', content: [{ text: 'One more thing' }] })}\n`,
    );
    const after = await sync();
    expect(after.read).toEqual([MAIN, 'sub-7c1d']);
    expect(after.report.reread).toBe(2);
    expect(after.indexed.find((s) => s.id === MAIN)?.messageCount).toBe(before + 1);
    const fromDriver = (await new GeminiDriver(env).listSessions()).map(fields).sort(byId);
    expect(after.indexed).toEqual(fromDriver);
  });
});
