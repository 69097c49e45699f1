/** The Zed driver over a threads.db built in Zed's real shapes (see test/fixtures/zed/README.md). */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { decodeThread, ZedDriver } from '../../src/formats/zed/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { pairToolCalls } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { summarizeUsage } from '../../src/model/usage.js';
import { runCli } from '../helpers/cli.js';
import { messageOutline } from '../helpers/sessions.js';

const HOME = resolve('test/fixtures/zed/home');
const DB = join(HOME, '.local/share/zed/threads/threads.db');
const env: DriverEnv = { home: HOME, env: {} };
const CURRENT = '4b0c9d7e-zed-thread-current';

describe('zed: threads.db', () => {
  it('lists every thread, damaged rows included, with projects, worktrees and parents', async () => {
    const list = await new ZedDriver(env).listSessions();
    expect(list.map((s) => s.id)).toEqual([CURRENT, '9e1f-zed-subagent', 'legacy-thread-v020', 'broken-row']);
    expect(list[0]).toMatchObject({
      source: 'zed',
      title: 'Fix the flaky test',
      project: '/home/u/app',
      directories: ['/home/u/shared-lib'],
      // Zed's row says 2026-03-01T12:00:00+00:00: given in the model's one form
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    for (const t of list.flatMap((x) => [x.createdAt, x.updatedAt]))
      expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list[1]).toMatchObject({ parentId: CURRENT, parentToolCallId: 'toolu_spawn', models: ['claude-haiku-4-5'] });
    expect(new Sources(env).names()).toContain('zed');
  });

  it('decompresses a zstd thread: mentions, images, thinking, tool results, Resume and per-turn usage', async () => {
    const driver = new ZedDriver(env);
    const s = (await driver.getSession(CURRENT)) as Session;
    expect(s.warnings).toEqual([]);
    const ctx = await driver.getContext(CURRENT);
    expect(messageOutline(ctx.messages)).toEqual([
      "user:Why does this test flake?,test('a', ...),image",
      'assistant:thinking,Let me look at the file.,tool_call',
      'tool:tool_result',
      'assistant:It races a 10ms timer.,redacted_thinking',
      'user:Fix it',
      'assistant:tool_call',
      'tool:tool_result',
      'user:Continue where you left off',
      'assistant:Done after retrying.',
    ]);
    expect(ctx.messages[0]?.parts[1]?.meta).toEqual({ mentionUri: { File: { abs_path: '/home/u/app/test/a.test.ts' } } });
    expect(ctx.messages[1]?.parts[0]).toEqual({ type: 'thinking', thinking: 'Probably timing.', signature: 'sig-abc' });
    expect(ctx.messages[6]?.parts[0]).toMatchObject({
      callId: 'toolu_02',
      isError: true,
      content: 'file not found',
      name: 'edit_file',
    });
    const pairing = pairToolCalls(ctx.messages);
    expect([...pairing.answered].sort()).toEqual(['toolu_01', 'toolu_02']);
    // request_token_usage sits on the last agent message of each user turn; what Zed's running
    // total counts beyond the turns' figures (earlier requests of a turn) is added on the last one,
    // whose own figure stays in its meta, so that the messages sum to Zed's total.
    expect(ctx.messages[3]?.usage).toEqual({ input: 300, output: 40, cacheRead: 0, cacheWrite: 50, reasoning: 0 });
    expect(ctx.messages[8]?.meta?.zedTurnUsage).toEqual({ input: 350, output: 30, cacheRead: 200, cacheWrite: 0, reasoning: 0 });
    expect(ctx.messages[8]?.usage).toEqual({ input: 600, output: 80, cacheRead: 400, cacheWrite: 0, reasoning: 0 });
    expect(ctx.messages[8]).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic' });
    // The thread's own running total is the session's usage, and what the messages sum to.
    const total = { input: 900, output: 120, cacheRead: 400, cacheWrite: 50, reasoning: 0 };
    expect(s.usage).toEqual(total);
    expect(summarizeUsage(s.entries).usage).toEqual(total);
    expect(s.meta).toMatchObject({
      cumulativeUsage: total,
      perTurnUsage: { input: 650, output: 70, cacheRead: 200, cacheWrite: 50, reasoning: 0 },
    });
    expect(s.meta).toMatchObject({ profile: 'write', thinking_enabled: true });
    // Every thread field is kept: the row and the thread (less its messages) in raw.
    expect(s.raw).toMatchObject({
      row: { id: CURRENT, folder_paths: '/home/u/app\n/home/u/shared-lib' },
      thread: { version: '0.3.0', imported: false },
    });
    expect((s.raw as { thread: object }).thread).not.toHaveProperty('messages');
  });

  it('reads a 0.2.0 JSON thread (context, segments, tool uses with results)', async () => {
    const ctx = await new ZedDriver(env).getContext('legacy-thread-v020');
    expect(messageOutline(ctx.messages)).toEqual([
      'user:<files>README.md</files>,list files',
      'assistant:thinking,Listing.,tool_call',
      'tool:tool_result',
      'assistant:One file: README.md',
    ]);
    expect(ctx.messages[1]?.usage).toMatchObject({ input: 30, output: 5 });
  });

  it('reports a damaged row with file and thread id and still lists it', async () => {
    const s = (await new ZedDriver(env).getSession('broken-row')) as Session;
    expect(s.entries).toEqual([]);
    expect(s.warnings).toEqual([{ file: DB, id: 'broken-row', message: expect.stringMatching(/cannot decode zstd/) }]);
    expect(decodeThread('brotli', Buffer.from('x')).error).toMatch(/unknown data_type/);
  });

  it('never changes the database it reads', async () => {
    const before = await fs.readFile(DB);
    const st = await fs.stat(DB);
    const driver = new ZedDriver(env);
    await driver.listSessions();
    await driver.getSession(CURRENT);
    expect((await fs.readFile(DB)).equals(before)).toBe(true);
    expect((await fs.stat(DB)).mtimeMs).toBe(st.mtimeMs);
    const dir = await fs.readdir(join(HOME, '.local/share/zed/threads'));
    expect(dir).toEqual(['threads.db']);
  });

  it('honours XDG_DATA_HOME and lists nothing when Zed has no database', async () => {
    const empty = await fs.mkdtemp(join(tmpdir(), 'tb-zed-'));
    try {
      expect(await new ZedDriver({ home: empty, env: {} }).listSessions()).toEqual([]);
      expect(
        await new ZedDriver({ home: empty, env: { XDG_DATA_HOME: join(HOME, '.local/share') } }).listSessions(),
      ).toHaveLength(4);
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });
});

describe('zed: through the CLI', () => {
  it('lists threads and prints a context by id prefix', async () => {
    const listed = await runCli(env, ['sessions', '--source', 'zed', '--json']);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.out) as { id: string; messageCount: number }[];
    expect(rows.map((r) => r.id)).toEqual([CURRENT, '9e1f-zed-subagent', 'legacy-thread-v020', 'broken-row']);
    const context = await runCli(env, ['context', '4b0c9d7e', '--format', 'markdown']);
    expect(context.code).toBe(0);
    const md = context.out;
    expect(md).toContain('Why does this test flake?');
    expect(md).toContain('It races a 10ms timer.');
  });
});

describe('zed: damaged rows in an older schema', () => {
  it('reads a table without the later columns; bad JSON and odd messages are warnings naming the thread', async () => {
    const { default: Database } = await import('better-sqlite3');
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-zed-'));
    try {
      const dir = join(home, '.local/share/zed/threads');
      await fs.mkdir(dir, { recursive: true });
      const db = new Database(join(dir, 'threads.db'));
      db.exec(
        'CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL, data BLOB NOT NULL)',
      );
      const insert = db.prepare('INSERT INTO threads VALUES (?, ?, ?, ?, ?)');
      insert.run('bad-json', 'Bad', '2025-01-01T00:00:00Z', 'json', Buffer.from('{"messages": ['));
      const odd = {
        version: '0.3.0',
        title: 'Odd',
        updated_at: '2025-01-02T00:00:00Z',
        messages: [42, { User: { id: 'u', content: [{ Text: 'kept' }] } }, { Weird: {} }],
      };
      insert.run('odd', 'Odd', '2025-01-02T00:00:00Z', 'json', Buffer.from(JSON.stringify(odd)));
      db.close();
      const driver = new ZedDriver({ home, env: {} });
      expect((await driver.listSessions()).map((s) => s.id)).toEqual(['odd', 'bad-json']);
      const bad = (await driver.getSession('bad-json')) as Session;
      expect(bad.warnings?.[0]).toMatchObject({ id: 'bad-json', message: expect.stringMatching(/cannot decode json/) });
      const s = (await driver.getSession('odd')) as Session;
      expect(s.warnings?.map((w) => w.id)).toEqual(['odd', 'odd']);
      expect(s.createdAt).toBe('2025-01-02T00:00:00.000Z');
      expect(messageOutline((await driver.getContext('odd')).messages)).toEqual(['user:kept']);
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});

describe('zed: a threads.db without its table', () => {
  it('is refused naming the file, in `sessions` too', async () => {
    const { default: Database } = await import('better-sqlite3');
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-zed-'));
    try {
      const dir = join(home, '.local/share/zed/threads');
      await fs.mkdir(dir, { recursive: true });
      const file = join(dir, 'threads.db');
      new Database(file).close();
      const err = await new ZedDriver({ home, env: {} }).listSessions().catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'schema', file, message: expect.stringContaining('no "threads" table') });
      const r = await runCli({ home, env: { HOME: home, THREADBASE_HOME: join(home, '.tb') } }, ['sessions', '--no-index']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(file);
      expect(r.err).toContain('no "threads" table');
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });
});
