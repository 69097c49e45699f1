/**
 * `serve --db memory:` keeps its keys in memory, where `token create` cannot reach (it refuses
 * memory:): the server makes one key at start and prints it once, so the server it starts can be used.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
let home: string;
let proc: ChildProcess | undefined;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-qa-serve-memory-'));
});

afterAll(async () => {
  proc?.kill('SIGTERM');
  if (home) await rm(home, { recursive: true, force: true });
});

/** Starts `threadbase serve --db memory: --port 0`; resolves with what it printed once it listens. */
function startMemoryServer(): Promise<string> {
  return new Promise((resolve, reject) => {
    proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'serve', '--db', 'memory:', '--port', '0'], {
      cwd: ROOT,
      env: { ...process.env, HOME: home, THREADBASE_HOME: join(home, '.threadbase') },
    });
    let out = '';
    let err = '';
    proc.stdout?.on('data', (d) => {
      out += d;
      if (/listening on http:\/\/\S+/.test(out)) resolve(out);
    });
    proc.stderr?.on('data', (d) => (err += d));
    proc.on('close', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

it('serve --db memory: prints a key its API takes, once; a made-up key is still refused', async () => {
  const out = await startMemoryServer();
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  const key = /API key of project default .*: (tb_\S+)\n/.exec(out)?.[1];
  expect(key, out).toBeDefined();
  const ping = (k: string) => fetch(`${url}/api/v1/threadbase/sessions`, { headers: { authorization: `Bearer ${k}` } });
  const ok = await ping(key as string);
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { data: { sessions: unknown[] } }).data.sessions).toEqual([]);
  expect((await ping(`${key}x`)).status).toBe(401);
  expect(out.match(/tb_/g)).toHaveLength(1);
}, 60_000);
