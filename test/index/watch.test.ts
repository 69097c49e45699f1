import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { watchDelay } from '../../src/stores/index-sync/watch.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-watch-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function transcript(sid: string, text: string): string {
  const base = { sessionId: sid, cwd: '/w', version: '2.0.0', userType: 'external', isSidechain: false };
  return `${JSON.stringify({ ...base, type: 'user', uuid: `${sid}-u`, parentUuid: null, timestamp: '2025-05-05T05:05:05.000Z', message: { role: 'user', content: text } })}\n`;
}

function indexedIds(): string[] {
  try {
    const db = new Database(join(dir, '.threadbase', 'index.db'), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT id FROM sessions').all() as { id: string }[]).map((r) => r.id);
    } finally {
      db.close();
    }
  } catch {
    return [];
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

it('sync --watch picks up a session written while it runs, and one deleted', async () => {
  const projects = join(dir, '.claude', 'projects', '-w');
  await mkdir(projects, { recursive: true });
  const a = '11111111-2222-4333-8444-555555555555';
  const b = '66666666-7777-4888-8999-aaaaaaaaaaaa';
  await writeFile(join(projects, `${a}.jsonl`), transcript(a, 'first one'));
  const child = spawn('npx', ['tsx', 'src/cli/run.ts', 'sync', '--watch', '--interval', '200', '--source', 'claude'], {
    cwd: process.cwd(),
    env: { ...process.env, HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') },
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    expect(await until(() => indexedIds().includes(a), 30_000)).toBe(true);
    await writeFile(join(projects, `${b}.jsonl`), transcript(b, 'second one'));
    expect(await until(() => indexedIds().includes(b), 10_000)).toBe(true);
    await rm(join(projects, `${a}.jsonl`));
    expect(await until(() => !indexedIds().includes(a), 10_000)).toBe(true);
  } finally {
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
}, 60_000);

it('--watch waits at least 9× as long as a look took, so watching a large history stays under a tenth of a core', () => {
  expect(watchDelay(1000, 40)).toBe(1000);
  expect(watchDelay(200, 400)).toBe(3600);
  // the share of time spent looking never exceeds 10 %
  for (const look of [1, 50, 111, 384, 2000]) expect(look / (look + watchDelay(100, look))).toBeLessThanOrEqual(0.1);
});
