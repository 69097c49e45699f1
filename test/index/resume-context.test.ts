/**
 * A store holding an agent's sessions gives the context that agent sends on resume, as the agent's
 * own files do: the local index's `getContext` (the viewer's context view, the server's context
 * route) against each format's driver, on transcripts the real Claude Code and pi wrote.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore, type SqliteStore } from '../../src/stores/sqlite/index.js';

let home: string;
let env: DriverEnv;
let store: SqliteStore;

beforeAll(async () => {
  home = await fs.mkdtemp(join(tmpdir(), 'tb-resume-context-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  await fs.cp(resolve('test/fixtures/claude/resume'), join(home, '.claude'), { recursive: true });
  const pi = join(home, '.pi', 'agent', 'sessions', '--work-proj--');
  await fs.mkdir(pi, { recursive: true });
  for (const f of ['real-tool-call.jsonl', 'real-branched.jsonl', 'real-compacted.jsonl', 'api-signatures.jsonl'])
    await fs.copyFile(resolve('test/fixtures/pi', f), join(pi, f));
  await fs.mkdir(join(home, '.threadbase'), { recursive: true });
  store = openSqliteStore(indexPath(env));
  await new IndexSync(store).sync(new Sources(env));
});

afterAll(async () => {
  await store?.close();
  await fs.rm(home, { recursive: true, force: true });
});

it("the local index gives each Claude Code and pi session the context its agent sends, as the agent's files do", async () => {
  const sources = new Sources(env);
  const sessions = await store.listSessions();
  expect(new Set(sessions.map((s) => s.source))).toEqual(new Set(['claude', 'pi']));
  expect(sessions.length).toBeGreaterThanOrEqual(8);
  for (const s of sessions) {
    const fromFiles = await sources.driver(s.source).getContext(s.id);
    const fromIndex = await store.getContext(s.id);
    expect(fromIndex.messages, `${s.source} ${s.id}`).toEqual(fromFiles.messages);
    expect(fromIndex.model, `${s.source} ${s.id}`).toEqual(fromFiles.model);
  }
});
