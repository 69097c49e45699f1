/**
 * The CLI as a user meets it on real Claude Code sessions (the fixtures copied where Claude Code keeps
 * them): option values it cannot use are refused with a clear error instead of matching nothing or
 * failing inside a query, and the values it takes mean what a user means by them.
 */

import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { startServer } from '../../src/server/index.js';
import { MemoryTokenStore } from '../../src/server/tokens.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { runCli, runCliOk } from '../helpers/cli.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-option-values-'));
  await mkdir(join(root, '.claude'), { recursive: true });
  // Counting cats in pictures: a session of 2025-10-01, 10:00 UTC
  await cp(resolve('test/fixtures/claude/older/projects'), join(root, '.claude', 'projects'), { recursive: true });
  env = { home: root, env: { HOME: root } };
  await runCliOk(env, ['sync', '--json']);
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

const json = async <T>(args: string[]): Promise<T> => JSON.parse(await runCliOk(env, args)) as T;

describe('time options (--since, --until)', () => {
  it.each([
    ['sessions', '--since', 'garbage'],
    ['search', 'cats', '--since', 'yesterday'],
    ['search', 'cats', '--until', 'nope'],
    ['stats', '--since', 'garbage'],
    ['stats', '--until', '12'],
  ])('%s refuses a time it cannot read (%s %s)', async (...args) => {
    const r = await runCli(env, [...args, '--json']);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--(since|until) <time>.*invalid.*ISO date/);
  });

  it('a date alone in --until covers that whole day', async () => {
    const rows = await json<{ key: string; messages: number }[]>([
      'stats',
      '--since',
      '2025-10-01',
      '--until',
      '2025-10-01',
      '--no-sync',
      '--json',
    ]);
    expect(rows.map((r) => r.key)).toEqual(['2025-10-01']);
    expect(rows[0]?.messages).toBeGreaterThan(0);
    const hits = await json<{ sessionId: string }[]>(['search', 'cats', '--until', '2025-10-01', '--no-sync', '--json']);
    expect(hits.length).toBeGreaterThan(0);
    const month = await json<{ key: string }[]>(['stats', '--until', '2025-10', '--no-sync', '--json']);
    expect(month.map((r) => r.key)).toEqual(['2025-10-01']);
    expect(await json<unknown[]>(['stats', '--until', '2025-09-30', '--no-sync', '--json'])).toEqual([]);
  });

  it('a time with an offset is the instant it names', async () => {
    // 11:00 at +02:00 is 09:00 UTC, before the session's turns at 10:00 UTC
    const rows = await json<{ key: string }[]>(['stats', '--since', '2025-10-01T11:00:00+02:00', '--no-sync', '--json']);
    expect(rows.map((r) => r.key)).toEqual(['2025-10-01']);
    const none = await json<unknown[]>(['stats', '--until', '2025-10-01T11:00:00+02:00', '--no-sync', '--json']);
    expect(none).toEqual([]);
  });
});

describe('--limit', () => {
  it.each([
    ['sessions', '--limit', 'abc'],
    ['sessions', '--limit', '0'],
    ['search', 'cats', '--limit', 'abc'],
    ['search', 'cats', '--limit', '-3'],
  ])('%s refuses a limit that is no count (%s %s)', async (...args) => {
    const r = await runCli(env, [...args, '--json']);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--limit <n>.*invalid.*whole number/);
  });

  it('a count limits', async () => {
    expect(await json<unknown[]>(['sessions', '--limit', '1', '--json'])).toHaveLength(1);
  });
});

describe('agent names (--source, --to)', () => {
  it.each([
    ['sessions', '--source', 'claud'],
    ['show', '11111111', '--source', 'claud'],
    ['context', '11111111', '--source', 'claud'],
    ['export', '11111111', '--source', 'claud'],
    ['fork', '11111111', '--source', 'claud'],
    ['search', 'cats', '--source', 'claud'],
    ['stats', '--source', 'claud'],
    ['convert', '11111111', '--to', 'py'],
    ['handoff', '11111111', '--to', 'py'],
  ])('%s refuses an agent it does not know, naming those it knows (%s %s)', async (...args) => {
    const r = await runCli(env, [...args, '--json']);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--(source|to) <\w+>.*invalid.*(Known agents|Agents threadbase writes into): .*claude.*pi/);
  });

  it('a known agent is taken', async () => {
    const rows = await json<{ source: string }[]>(['sessions', '--source', 'claude', '--json']);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.source === 'claude')).toBe(true);
  });
});

describe('search --role', () => {
  it('refuses a role no message has, naming the roles', async () => {
    const r = await runCli(env, ['search', 'cats', '--role', 'users', '--no-sync', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--role <role>.*invalid.*user, assistant, tool, system/);
  });

  it('takes a role', async () => {
    const hits = await json<{ role: string }[]>(['search', 'cats', '--role', 'user', '--no-sync', '--json']);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.role === 'user')).toBe(true);
  });
});

describe('--project', () => {
  // the older fixture ran in /work/proj.a
  it.each([
    ['with a trailing slash', '/work/proj.a/'],
    ['relative to the current directory', relative(process.cwd(), '/work/proj.a')],
  ])('names the directory %s', async (_how, project) => {
    const rows = await json<{ project: string }[]>(['sessions', '--project', project, '--json']);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.project === '/work/proj.a')).toBe(true);
    const hits = await json<unknown[]>(['search', 'cats', '--project', project, '--no-sync', '--json']);
    expect(hits.length).toBeGreaterThan(0);
    const counted = await json<{ key: string }[]>(['stats', '--by', 'project', '--project', project, '--no-sync', '--json']);
    expect(counted.map((r) => r.key)).toEqual(['/work/proj.a']);
  });
});

describe('--prices', () => {
  it.each([
    ['stats', '--no-sync'],
    ['export', '11111111', '--format', 'md'],
  ])('%s refuses a price file that is not there (it priced with the bundled table as if given)', async (...args) => {
    const r = await runCli(env, [...args, '--prices', join(root, 'no-such-prices.json')]);
    expect(r.code).not.toBe(0);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/--prices <file>.*invalid.*No such file/);
  });

  it('names the price file it cannot read', async () => {
    const bad = join(root, 'bad-prices.json');
    await writeFile(bad, '{"claude-sonnet-4-5": ');
    const r = await runCli(env, ['stats', '--no-sync', '--prices', bad]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${bad}: `);
  });
});

describe('numbers of the long-running commands', () => {
  it.each([
    ['serve', '--db', 'memory:', '--port', 'abc', /--port <n>.*invalid.*port/],
    ['serve', '--db', 'memory:', '--port', '70000', /--port <n>.*invalid.*port/],
    ['serve', '--db', 'memory:', '--max-body', 'big', /--max-body <bytes>.*invalid.*whole number/],
    ['sync', '--watch', '--interval', 'abc', /--interval <ms>.*invalid.*whole number/],
  ])('%s refuses a value that is no number before it starts (%s %s %s %s)', async (...args) => {
    const want = args.pop() as RegExp;
    const r = await runCli(env, args as string[]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(want);
  });
});

describe('push', () => {
  it('exits 1 when sessions were not pushed (it exited 0 whatever failed)', async () => {
    // nothing listens on port 1: one error naming the server, before any session is sent (acc23e8)
    const r = await runCli(env, ['push', '--to', 'http://127.0.0.1:1', '--key', 'tb_x', '--source', 'claude', '--json']);
    expect(r.err).toContain('cannot reach http://127.0.0.1:1');
    expect(r.out).toBe('');
    expect(r.code).toBe(1);
  });

  it('exits 1 and names each session a reachable server refused', async () => {
    // a server that takes small requests only: the sessions with an entry larger than that are refused
    const tokens = new MemoryTokenStore();
    const { key } = await tokens.createToken('p');
    const server = await startServer({ store: new MemoryStore(), tokens, port: 0, maxBodyBytes: 700, log: () => undefined });
    try {
      const r = await runCli({ ...env, env: { ...env.env, THREADBASE_HOME: join(root, 'push-home') } }, [
        'push',
        '--to',
        server.url,
        '--key',
        key,
        '--source',
        'claude',
        '--json',
      ]);
      const report = JSON.parse(r.out) as { failed: { id: string; error: string }[] };
      expect(report.failed.length).toBeGreaterThan(0);
      for (const f of report.failed) expect(r.err).toContain(`session ${f.id} not pushed`);
      expect(r.code).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('takes its key from $THREADBASE_API_KEY, as --from and ui do', async () => {
    const keyed = { ...env, env: { ...env.env, THREADBASE_API_KEY: 'tb_x' } };
    const r = await runCli(keyed, ['push', '--to', 'http://127.0.0.1:1', '--source', 'claude', '--json']);
    expect(r.err).not.toContain('no API key');
    expect(r.err).toContain('cannot reach');
    const none = await runCli(env, ['push', '--to', 'http://127.0.0.1:1', '--source', 'claude']);
    expect(none.err).toContain('THREADBASE_API_KEY');
  });
});

describe('convert --from a store file', () => {
  it("names a session of the store by a unique prefix, as in the agents' stores", async () => {
    const index = `sqlite:${join(root, '.threadbase', 'index.db')}`;
    const written = await json<{ source: string }>(['convert', '11111111', '--from', index, '--to', 'pi', '--json']);
    expect(written.source).toBe('pi');
  });

  it('refuses a store file that is not there, and makes none', async () => {
    const missing = join(root, 'no-such-index.db');
    const r = await runCli(env, ['convert', '11111111', '--from', `sqlite:${missing}`, '--to', 'pi']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('no such file');
    expect(existsSync(missing)).toBe(false);
  });
});

describe('--no-sync on an index never synced', () => {
  it.each([
    ['search', 'cats'],
    ['stats', '--source', 'claude'],
  ])('%s says the index holds nothing yet instead of answering as if nothing matched', async (...args) => {
    const fresh = { ...env, env: { ...env.env, THREADBASE_HOME: join(root, 'fresh-home') } };
    const r = await runCli(fresh, [...args, '--no-sync']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/the index holds no (claude )?sessions: run `threadbase sync`/);
    // the synced index says nothing of the kind
    const synced = await runCli(env, [...args, '--no-sync']);
    expect(synced.err).not.toContain('the index holds no');
  });
});
