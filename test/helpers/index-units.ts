/** Shared by the tests of one store in the local index (test/index/*-units.test.ts). */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/formats/all.js';
import { type MockInstance, vi } from 'vitest';
import { encodeProjectPath } from '../../src/formats/claude/paths.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv, IncrementalSource, SessionDriver } from '../../src/model/driver.js';
import { messageText } from '../../src/model/tree.js';
import type { Entry, Session, SessionInfo } from '../../src/model/types.js';
import { IndexSync, indexPath, type SyncReport } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

/** A temporary home with its THREADBASE_HOME made; `remove` takes it away. */
export async function tempIndexHome(
  prefix: string,
  extraEnv: (dir: string) => Record<string, string> = () => ({}),
): Promise<{ dir: string; env: DriverEnv; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(dir, '.threadbase'), { recursive: true });
  return {
    dir,
    env: { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase'), ...extraEnv(dir) } },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

/**
 * One sync of one store, in this thread: `spy` gets the store's driver first (to count its calls).
 * Returns the report and the index's listing of the store, by id.
 */
export async function syncStore<D extends SessionDriver>(
  env: DriverEnv,
  format: string,
  spy?: (driver: D) => void,
): Promise<{ report: SyncReport; listed: SessionInfo[] }> {
  const sources = new Sources(env);
  spy?.(sources.driver(format) as D);
  const store = openSqliteStore(indexPath(env));
  try {
    const report = await new IndexSync(store).sync(sources, { formats: [format], workers: 0 });
    return { report, listed: (await store.listSessions({ source: format })).sort(byId) };
  } finally {
    await store.close();
    await sources.close();
  }
}

/**
 * `syncStore` with the driver's calls counted: which sessions it read (`readUnit`, their ids sorted)
 * and how many times it listed the whole store (`listSessions`), for the tests that a sync reads
 * only what changed.
 */
export async function syncStoreCountingReads(
  env: DriverEnv,
  format: string,
): Promise<{ report: SyncReport; listed: SessionInfo[]; read: string[]; listCalls: number }> {
  let reads: MockInstance<IncrementalSource['readUnit']> | undefined;
  let lists: MockInstance<SessionDriver['listSessions']> | undefined;
  const { report, listed } = await syncStore<SessionDriver & IncrementalSource>(env, format, (driver) => {
    reads = vi.spyOn(driver, 'readUnit');
    lists = vi.spyOn(driver, 'listSessions');
  });
  return {
    report,
    listed,
    read: (reads?.mock.calls ?? []).map(([unit]) => unit.sessionId).sort(),
    listCalls: lists?.mock.calls.length ?? 0,
  };
}

/**
 * A home under `root` holding one agent file (`relDir`/`fileName` of `text`) with its THREADBASE_HOME
 * made; its file, sources, index and sync.
 */
export async function homeWithAgentFile(root: string, name: string, relDir: string, fileName: string, text: string) {
  const home = join(root, name);
  const env: DriverEnv = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  const dir = join(home, relDir);
  await mkdir(dir, { recursive: true });
  await mkdir(join(home, '.threadbase'), { recursive: true });
  const file = join(dir, fileName);
  await writeFile(file, text);
  const store = openSqliteStore(indexPath(env));
  return { file, sources: new Sources(env), store, sync: new IndexSync(store) };
}

/**
 * Claude Code records of session `sid` in project `cwd` as JSONL lines: a prompt, or a reply of its own
 * response (`msg_<uuid>`); `second`: its time past 2026-01-01.
 */
export const claudeLines =
  (sid: string, cwd: string) =>
  (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, text: string, second: number) =>
    JSON.stringify({
      type,
      uuid,
      parentUuid,
      sessionId: sid,
      cwd,
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString(),
      message:
        type === 'user'
          ? { role: 'user', content: text }
          : { role: 'assistant', id: `msg_${uuid}`, model: 'claude-opus-5-5', content: [{ type: 'text', text }] },
    });

/** A home holding Claude Code's transcript of `lines` (session `sid`, project `cwd`); its file, sources and index. */
export const homeWithClaudeTranscript = (root: string, name: string, cwd: string, sid: string, lines: string[]) =>
  homeWithAgentFile(root, name, join('.claude', 'projects', encodeProjectPath(cwd)), `${sid}.jsonl`, `${lines.join('\n')}\n`);

/** A session's entries as [id, parent, text or kind] and its leaf: what the repeated-id tests compare. */
export const entryShape = (s: Session | undefined) => ({
  entries: (s?.entries ?? []).map((e: Entry) => [e.id, e.parentId, e.kind === 'message' ? messageText(e.message) : e.kind]),
  leafId: s?.leafId,
});
