/**
 * Codex in the local index: each rollout is a unit known by its size and time, so a warm sync and
 * the reading commands' freshness check parse nothing (a full Codex listing parses every rollout),
 * and a /rename, which changes no rollout, still reaches the index through the unit's version.
 */
import { appendFile, cp } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import '../../src/formats/all.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { SessionInfo } from '../../src/model/types.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { byId, syncStore, tempIndexHome } from '../helpers/index-units.js';

let home: Awaited<ReturnType<typeof tempIndexHome>>;
let dir: string;
let env: DriverEnv;

beforeAll(async () => {
  home = await tempIndexHome('tb-codex-units-', (d) => ({ CODEX_HOME: join(d, 'codex') }));
  ({ dir, env } = home);
  // a home with a sub-agent and its parent, and the rollouts of every shape the fixtures hold
  await cp(resolve('test/fixtures/codex/home'), join(dir, 'codex'), { recursive: true });
  await cp(resolve('test/fixtures/codex/subagent-home/sessions'), join(dir, 'codex', 'sessions'), { recursive: true });
});
afterAll(() => home.remove());

/** The listing fields the index and the driver must agree on. */
const fields = (s: SessionInfo) => ({
  id: s.id,
  title: s.title,
  parentId: s.parentId ?? null,
  parentToolCallId: s.parentToolCallId,
  messageCount: s.messageCount,
  usage: s.usage,
});

async function sync(spy?: (d: CodexDriver) => void) {
  const { report, listed } = await syncStore(env, 'codex', spy);
  return { report, listed: listed.map(fields) };
}

describe('Codex rollouts as units of the index', () => {
  it('indexes every rollout with the listing the driver gives, sub-agent links included', async () => {
    const { report, listed } = await sync();
    const direct = (await new CodexDriver(env).listSessions()).map(fields);
    expect(report.reread).toBe(direct.length);
    expect(direct.length).toBeGreaterThanOrEqual(6);
    expect(listed.sort(byId)).toEqual(direct.sort(byId));
    expect(listed.some((s) => s.parentToolCallId === 'call_standin_0001')).toBe(true);
  });

  it('a warm sync and the freshness check stat the rollouts and parse none', async () => {
    let reads = 0;
    let fullListings = 0;
    const { report } = await sync((d) => {
      const readUnit = d.readUnit.bind(d);
      vi.spyOn(d, 'readUnit').mockImplementation((u) => {
        reads++;
        return readUnit(u);
      });
      vi.spyOn(d, 'listSessions').mockImplementation(async () => {
        fullListings++;
        return [];
      });
    });
    expect(report.unchanged).toBe(report.units);
    expect(reads).toBe(0);
    expect(fullListings).toBe(0);
    const sources = new Sources(env);
    const store = openSqliteStore(indexPath(env));
    const listing = vi.spyOn(sources.driver('codex'), 'listSessions');
    const [codex] = await new IndexSync(store).freshness(sources, ['codex']);
    expect(codex?.fresh).toBe(true);
    expect(listing).not.toHaveBeenCalled();
    await store.close();
    await sources.close();
  });

  it('a /rename re-reads that session alone, and the index shows the new title', async () => {
    const target = (await new CodexDriver(env).listSessions()).find((s) => !s.parentId) as SessionInfo;
    // older codex appends renames to session_index.jsonl
    await appendFile(
      join(dir, 'codex', 'session_index.jsonl'),
      `${JSON.stringify({ id: target.id, thread_name: 'renamed by the user', updated_at: '2026-11-23T00:00:00Z' })}\n`,
    );
    const { report, listed } = await sync();
    expect(report.reread).toBe(1);
    expect(listed.find((s) => s.id === target.id)?.title).toBe('renamed by the user');
    expect((await new CodexDriver(env).getSession(target.id))?.title).toBe('renamed by the user');
  });
});
