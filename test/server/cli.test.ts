/**
 * The CLI end to end over the real PostgreSQL: `token create`, `serve`, and `push` of pi sessions
 * read from their files (first push sends everything, a second nothing, a third only what is new).
 */
import type { ChildProcess } from 'node:child_process';
import { appendFile, copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliProcess, startServeProcess } from '../helpers/cli-process.js';
import { freshSchema, type TestSchema } from './pg-helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
let db: TestSchema;
let home: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess | undefined;

const run = (args: string[]) => runCliProcess(args, env);
const startServe = (args: string[]) => startServeProcess(args, env);

beforeAll(async () => {
  db = await freshSchema('tb_cli');
  home = await mkdtemp(join(tmpdir(), 'tb-server-cli-'));
  const piDir = join(home, 'pi-sessions');
  await mkdir(piDir, { recursive: true });
  for (const f of ['real-tool-call.jsonl', 'real-branched.jsonl'])
    await copyFile(join(ROOT, 'test/fixtures/pi', f), join(piDir, f));
  env = {
    ...process.env,
    HOME: home,
    THREADBASE_HOME: join(home, '.threadbase'),
    PI_CODING_AGENT_SESSION_DIR: piDir,
  };
}, 60_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  await db?.drop();
  await rm(home, { recursive: true, force: true });
});

const get = (url: string, key: string) => fetch(url, { headers: { authorization: `Bearer ${key}` } });

describe('threadbase token / serve / push', () => {
  it('creates a key, serves, and pushes incrementally', async () => {
    const created = await run(['token', 'create', '--project', 'alpha', '--db', db.url, '--json']);
    expect(created.code, created.stderr).toBe(0);
    const { key, project } = JSON.parse(created.stdout) as { key: string; project: { name: string } };
    expect(project.name).toBe('alpha');
    expect(key).toMatch(/^tb_/);
    // only the hash is stored
    const stored = await db.store.pool.query<{ hash: string }>('SELECT hash FROM tb_tokens');
    expect(stored.rows.map((r) => r.hash)).not.toContain(key);
    expect(stored.rows).toHaveLength(1);

    const started = await startServe(['--db', db.url, '--port', '0', '--max-body', '200000']);
    server = started.proc;
    const { url } = started;

    expect((await fetch(`${url}/api/v1/session`)).status).toBe(401);
    expect((await get(`${url}/api/v1/session`, 'tb_wrong')).status).toBe(401);
    const spec = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(spec.openapi).toBe('3.1.0');
    expect(Object.keys(spec.paths)).toContain('/api/v1/session/{id}/messages');

    const big = await fetch(`${url}/api/v1/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ configs: { pad: 'x'.repeat(300_000) } }),
    });
    expect(big.status).toBe(413);

    const first = await run(['push', '--to', url, '--key', key, '--source', 'pi', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const r1 = JSON.parse(first.stdout) as { created: number; entriesSent: number; unchanged: number };
    expect(r1.created).toBe(2);
    expect(r1.entriesSent).toBeGreaterThan(10);

    const second = await run(['push', '--to', url, '--key', key, '--source', 'pi', '--json']);
    const r2 = JSON.parse(second.stdout) as { created: number; updated: number; entriesSent: number; unchanged: number };
    expect(r2).toMatchObject({ created: 0, updated: 0, entriesSent: 0, unchanged: 2 });

    // pi appends one more message to a session; the next push sends just that one.
    const line = {
      type: 'message',
      id: 'feedbeef',
      parentId: '85a81f1f',
      timestamp: '2026-11-22T19:10:00.000Z',
      message: { role: 'user', content: [{ type: 'text', text: 'one more question' }], timestamp: 1795000000000 },
    };
    await appendFile(join(home, 'pi-sessions', 'real-tool-call.jsonl'), `${JSON.stringify(line)}\n`);
    const third = await run(['push', '--to', url, '--key', key, '--source', 'pi', '--json']);
    const r3 = JSON.parse(third.stdout) as { created: number; updated: number; entriesSent: number };
    expect(r3).toMatchObject({ created: 0, updated: 1, entriesSent: 1 });

    const listed = (await (await get(`${url}/api/v1/threadbase/sessions`, key)).json()) as {
      data: { sessions: { id: string; messageCount: number; meta?: { importedFrom?: { source: string } } }[] };
    };
    expect(listed.data.sessions).toHaveLength(2);
    expect(listed.data.sessions.every((s) => s.meta?.importedFrom?.source === 'pi')).toBe(true);
    const pushed = listed.data.sessions.find((s) => s.id === '01a204a9-a834-77e0-b180-e676a5436126');
    expect(pushed).toBeDefined();
    const ctx = (await (await get(`${url}/api/v1/threadbase/sessions/${pushed?.id}/context?format=openai`, key)).json()) as {
      data: { context: { messages: { role: string; content: unknown }[] } };
    };
    const msgs = ctx.data.context.messages;
    expect(msgs[msgs.length - 1]).toEqual({ role: 'user', content: 'one more question' });
    expect(msgs.some((m) => m.role === 'tool')).toBe(true);
    const search = (await (await get(`${url}/api/v1/threadbase/search?q=question`, key)).json()) as {
      data: { hits: { entryId: string }[] };
    };
    expect(search.data.hits.map((h) => h.entryId)).toContain('feedbeef');

    // Another project's key sees none of it.
    const other = JSON.parse((await run(['token', 'create', '--project', 'beta', '--db', db.url, '--json'])).stdout) as {
      key: string;
    };
    const theirs = (await (await get(`${url}/api/v1/threadbase/sessions`, other.key)).json()) as {
      data: { sessions: unknown[] };
    };
    expect(theirs.data.sessions).toEqual([]);
    expect((await get(`${url}/api/v1/threadbase/sessions/${pushed?.id}`, other.key)).status).toBe(404);
  });

  it('serves over a SQLite file with the key kept in the same file', async () => {
    const file = join(home, 'team.db');
    const created = await run(['token', 'create', '--project', 'gamma', '--db', file]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const started = await startServe(['--db', file, '--port', '0']);
    try {
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const made = await fetch(`${started.url}/api/v1/session`, { method: 'POST', headers, body: '{}' });
      expect(made.status).toBe(201);
      const { id } = ((await made.json()) as { data: { id: string } }).data;
      const stored = await fetch(`${started.url}/api/v1/session/${id}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ blob: { role: 'user', content: 'kept in sqlite' }, format: 'anthropic' }),
      });
      expect(stored.status).toBe(201);
      const hits = (await (await get(`${started.url}/api/v1/threadbase/search?q=sqlite`, key)).json()) as {
        data: { hits: { sessionId: string }[] };
      };
      expect(hits.data.hits.map((h) => h.sessionId)).toEqual([id]);
    } finally {
      started.proc.kill('SIGTERM');
      await new Promise((r) => started.proc.once('close', r));
    }
    // the session outlived the server: it is in the file
    const again = await startServe(['--db', file, '--port', '0']);
    try {
      const listed = (await (await get(`${again.url}/api/v1/session`, key)).json()) as { data: { items: unknown[] } };
      expect(listed.data.items).toHaveLength(1);
    } finally {
      again.proc.kill('SIGTERM');
    }
  });

  it('pushes the local index (the SQLite store in THREADBASE_HOME) by default', async () => {
    const tbHome = join(home, 'index-home');
    await mkdir(tbHome, { recursive: true });
    const local = openSqliteStore(join(tbHome, 'index.db'));
    const info = await local.writeSession({
      id: 'idx-1',
      source: 'threadbase',
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      messageCount: 0,
      entries: [
        {
          kind: 'message',
          id: 'e1',
          parentId: null,
          timestamp: '2025-01-01T00:00:00.000Z',
          message: { role: 'user', parts: [{ type: 'text', text: 'from the local index' }] },
        },
      ],
    });
    await local.close();
    const { key } = JSON.parse((await run(['token', 'create', '--project', 'delta', '--db', db.url, '--json'])).stdout) as {
      key: string;
    };
    const started = await startServe(['--db', db.url, '--port', '0']);
    const saved = env;
    env = { ...env, THREADBASE_HOME: tbHome };
    // the index as this test wrote it (push syncs the agents' stores first, and this home holds others)
    try {
      const pushed = await run(['push', '--to', started.url, '--key', key, '--no-sync', '--json']);
      expect(pushed.code, pushed.stderr).toBe(0);
      expect(JSON.parse(pushed.stdout)).toMatchObject({ created: 1, entriesSent: 1 });
      const again = await run(['push', '--to', started.url, '--key', key, '--no-sync', '--json']);
      expect(JSON.parse(again.stdout)).toMatchObject({ created: 0, entriesSent: 0, unchanged: 1 });
      const listed = (await (await get(`${started.url}/api/v1/threadbase/sessions`, key)).json()) as {
        data: { sessions: { id: string; title?: string }[] };
      };
      expect(listed.data.sessions.map((s) => s.id)).toEqual([info.id]);
    } finally {
      env = saved;
      started.proc.kill('SIGTERM');
    }
  });
});
