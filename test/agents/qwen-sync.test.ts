/**
 * The real `qwen` (offline against the Anthropic stand-in) appends a turn to a chat the index holds:
 * the next sync reads that chat from its last record on (appended, not re-read whole), and the index
 * then holds what a cold sync of the same files gives.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import type { AgentHome } from '../helpers/agents.js';
import { syncStore } from '../helpers/index-units.js';
import { runQwen, setupQwenHome } from '../helpers/qwen.js';

let home: AgentHome;
let cold: string;
beforeAll(async () => {
  home = await setupQwenHome();
  cold = await mkdtemp(join(tmpdir(), 'tb-qwen-sync-cold-'));
  await mkdir(join(home.root, '.threadbase'), { recursive: true });
  await mkdir(join(cold, '.threadbase'), { recursive: true });
});
afterAll(async () => {
  await home?.close();
  if (cold) await rm(cold, { recursive: true, force: true });
});

const envOf = (dir: string): DriverEnv => ({ home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } });

/** The index's copy of a session, its file's path relative to the home (what the chat holds is the same in both). */
async function indexed(env: DriverEnv, id: string): Promise<unknown> {
  const store = openSqliteStore(indexPath(env));
  try {
    const s = await store.getSession(id);
    return { ...s, path: s?.path?.slice(env.home.length) };
  } finally {
    await store.close();
  }
}

describe('Qwen Code: a turn the real qwen appended is read from the last indexed record', () => {
  it('appends to the index what a cold sync of the same chat holds', async () => {
    const env = envOf(home.root);
    await runQwen(home, ['-p', 'RUN: echo one']);
    const first = await syncStore(env, 'qwen');
    expect(first.listed).toHaveLength(1);
    const id = first.listed[0]?.id as string;
    await runQwen(home, ['--resume', id, '-p', 'RUN: echo two']);
    const second = await syncStore(env, 'qwen');
    expect(second.report).toMatchObject({ appended: 1, reread: 0 });
    await cp(join(home.root, '.qwen'), join(cold, '.qwen'), { recursive: true });
    const coldSync = await syncStore(envOf(cold), 'qwen');
    expect(coldSync.report.appended).toBe(0);
    const warm = (await indexed(env, id)) as { entries: unknown[] };
    expect(warm.entries.length).toBeGreaterThan(first.listed[0]?.messageCount ?? 0);
    expect(warm).toEqual(await indexed(envOf(cold), id));
  });
});
