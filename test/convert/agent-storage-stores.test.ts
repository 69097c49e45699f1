/** ClaudeAgentStorage against the real stores openStore() opens (PostgreSQL on 127.0.0.1:5432, SQLite), when they are in the build. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import type { SessionDriver } from '../../src/model/driver.js';
import { openStore } from '../../src/stores/open.js';

const PG = process.env.THREADBASE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `tb_convert_${process.pid}_${Date.now().toString(36)}`;
const hasPostgres = existsSync(new URL('../../src/stores/postgres/index.ts', import.meta.url));
const hasSqlite = existsSync(new URL('../../src/stores/sqlite/index.ts', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function storeRun(store: SessionDriver, sessionId: string): Promise<void> {
  const errors: unknown[] = [];
  const storage = new ClaudeAgentStorage({ store, onError: (e) => errors.push(e) });
  const sdk = (type: string, message: unknown) => ({ type, message, session_id: sessionId, parent_tool_use_id: null });
  await storage.saveMessage({ type: 'system', subtype: 'init', session_id: sessionId, cwd: '/srv/app' });
  await storage.saveMessage(sdk('user', { role: 'user', content: 'RUN: echo hi' }));
  await storage.saveMessage(
    sdk('assistant', {
      id: 'm1',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'tool_use', id: 'tu', name: 'Bash', input: { command: 'echo hi' } }],
    }),
  );
  await storage.saveMessage(
    sdk('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu', content: 'hi', is_error: false }] }),
  );
  await storage.saveMessage(
    sdk('assistant', { id: 'm2', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'done' }] }),
  );
  expect(errors).toEqual([]);
  const session = await store.getSession(sessionId);
  expect(session?.source).toBe('threadbase');
  expect(session?.project).toBe('/srv/app');
  expect(contextToAnthropic(await store.getContext(sessionId)).messages).toEqual([
    { role: 'user', content: [{ type: 'text', text: 'RUN: echo hi' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'tu', name: 'Bash', input: { command: 'echo hi' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu', content: 'hi', is_error: false }] },
    { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
  ]);
  // a second storage on the same session (a resumed run) appends after the leaf
  const again = new ClaudeAgentStorage({ store, onError: (e) => errors.push(e) });
  await again.saveMessage({ type: 'system', subtype: 'init', session_id: sessionId });
  await again.saveMessage(sdk('user', { role: 'user', content: 'and again' }));
  expect(errors).toEqual([]);
  const ctx = await store.getContext(sessionId);
  expect(ctx.messages).toHaveLength(5);
}

describe.skipIf(!hasPostgres)('ClaudeAgentStorage over openStore(postgres://…)', () => {
  it('stores an SDK run in PostgreSQL', async () => {
    const store = await openStore(`${PG}?schema=${schema}`);
    cleanups.push(async () => {
      await store.close?.();
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    });
    expect(store.name).toBe('postgres');
    await storeRun(store, `pg-${Date.now()}`);
  });
});

describe.skipIf(!hasSqlite)('ClaudeAgentStorage over openStore() (SQLite)', () => {
  it('stores an SDK run in $THREADBASE_HOME/index.db', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tb-conv-sqlite-'));
    const store = await openStore(undefined, { env: { home, env: {} } });
    cleanups.push(async () => {
      await store.close?.();
      await rm(home, { recursive: true, force: true });
    });
    expect(store.name).not.toBe('memory');
    expect(existsSync(join(home, '.threadbase', 'index.db'))).toBe(true);
    await storeRun(store, 'sqlite-run-1');
  });
});
