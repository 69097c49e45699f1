import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { IndexSync, indexPath } from '../../src/stores/index-sync/sync.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';

const FILES = 100;
const TURNS = 30;
let dir: string;
let env: DriverEnv;

function transcript(n: number): string {
  const sid = `5e55e55e-0000-4000-8000-${String(n).padStart(12, '0')}`;
  const base = { sessionId: sid, cwd: `/work/p${n % 7}`, version: '2.0.0', userType: 'external', isSidechain: false };
  const lines: string[] = [];
  let parent: string | null = null;
  for (let t = 0; t < TURNS; t++) {
    const u = `${sid.slice(0, 24)}u${String(t).padStart(11, '0')}`;
    const a = `${sid.slice(0, 24)}a${String(t).padStart(11, '0')}`;
    const ts = new Date(Date.UTC(2025, 0, 1, 0, 0, t * 2)).toISOString();
    lines.push(
      JSON.stringify({
        ...base,
        type: 'user',
        uuid: u,
        parentUuid: parent,
        timestamp: ts,
        message: { role: 'user', content: `question ${t} of session ${n} ${'lorem ipsum '.repeat(20)}` },
      }),
    );
    lines.push(
      JSON.stringify({
        ...base,
        type: 'assistant',
        uuid: a,
        parentUuid: u,
        timestamp: ts,
        requestId: `req_${n}_${t}`,
        message: {
          id: `msg_${n}_${t}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: `answer ${t} ${'dolor sit amet '.repeat(30)}` }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      }),
    );
    parent = a;
  }
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-killsync-'));
  env = { home: dir, env: { HOME: dir, THREADBASE_HOME: join(dir, '.threadbase') } };
  for (let n = 0; n < FILES; n++) {
    const pd = join(dir, '.claude', 'projects', `-work-p${n % 7}`);
    await mkdir(pd, { recursive: true });
    await writeFile(join(pd, `5e55e55e-0000-4000-8000-${String(n).padStart(12, '0')}.jsonl`), transcript(n));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a sync killed mid-way leaves a sound index that the next sync completes', async () => {
  await mkdir(join(dir, '.threadbase'), { recursive: true });
  const db = indexPath(env);
  // Killed (SIGKILL, no cleanup) after 45 of 100 units, committing every 10: 40 are in, 5 were in the lost batch.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/index/kill-mid-sync.ts', dir, '45', '10'], {
    cwd: process.cwd(),
    stdio: 'ignore',
  });
  const signal = await new Promise((r) => child.once('exit', (_code, sig) => r(sig)));
  expect(signal).toBe('SIGKILL');

  const store = openSqliteStore(db);
  try {
    expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
    const partial = store.db.prepare('SELECT count(*) n FROM sessions').get() as { n: number };
    expect(partial.n).toBe(40);
    expect((store.db.prepare('SELECT count(*) n FROM units').get() as { n: number }).n).toBe(40);
    // every session that made it in is whole
    const short = store.db.prepare('SELECT count(*) n FROM sessions WHERE message_count != ?').get(TURNS * 2) as { n: number };
    expect(short.n).toBe(0);
    const report = await new IndexSync(store).sync(new Sources(env), { formats: ['claude'] });
    expect(report.unchanged).toBe(partial.n);
    expect(report.reread).toBe(FILES - partial.n);
    expect((store.db.prepare('SELECT count(*) n FROM sessions').get() as { n: number }).n).toBe(FILES);
    const u = await store.usage({ source: 'claude' });
    expect(u.messages).toBe(FILES * TURNS);
  } finally {
    await store.close();
  }
}, 90_000);
