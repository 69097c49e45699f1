/**
 * Ctrl-C (SIGINT) or SIGTERM during `push`: the push stops at the session it is sending and saves its
 * state (written whole, then renamed) before the process exits; killed at once, it lost up to the last
 * second's saved progress (the state is saved at most once a second), and the next push sent those
 * sessions again. A real `threadbase push` process is stopped mid-push against a real `threadbase serve`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry, Session } from '../../src/model/types.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { runCliProcess, startServeProcess } from '../helpers/cli-process.js';
import { textEntry } from '../helpers/sessions.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SESSIONS = 300;

let home: string;
let url: string;
let key: string;
let serverDb: string;
let server: ChildProcess | undefined;

function envOf(tbHome: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: home, THREADBASE_HOME: tbHome, THREADBASE_API_KEY: '', NO_COLOR: '1' };
}

/** A session of a dozen entries, so that each upload takes a moment. */
function sessionOf(prefix: string, n: number): Session {
  const at = '2026-01-01T00:00:00.000Z';
  const entries: Entry[] = [];
  for (let i = 0; i < 12; i++)
    entries.push(
      textEntry(
        `${prefix}${n}-e${i}`,
        i ? `${prefix}${n}-e${i - 1}` : null,
        i,
        i % 2 ? 'assistant' : 'user',
        `${'word '.repeat(200)}${i}`,
      ),
    );
  return { id: `${prefix}-${n}`, source: 'threadbase', createdAt: at, updatedAt: at, messageCount: 0, entries };
}

async function sessionCount(db: string): Promise<number> {
  const store = openSqliteStore(db);
  try {
    return (await store.listSessions()).length;
  } finally {
    await store.close();
  }
}

/** The local ids the push state holds as sent (one server and key in it). */
async function savedIds(statePath: string): Promise<string[]> {
  const state = JSON.parse(await readFile(statePath, 'utf8')) as Record<string, Record<string, unknown>>;
  return Object.values(state).flatMap((sent) => Object.keys(sent));
}

const until = async (done: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-push-interrupt-'));
  const serverHome = join(home, 'server');
  await mkdir(serverHome, { recursive: true });
  serverDb = join(serverHome, 'index.db');
  const token = await runCliProcess(['token', 'create', '--project', 'p', '--json'], envOf(serverHome));
  expect(token.code, token.stderr).toBe(0);
  key = (JSON.parse(token.stdout) as { key: string }).key;
  const started = await startServeProcess(['--port', '0'], envOf(serverHome));
  server = started.proc;
  url = started.url;
}, 60_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  if (home) await rm(home, { recursive: true, force: true });
});

describe('push stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'saves what it sent before exiting (%s), and the next push sends only the rest',
    async (signal) => {
      const tbHome = join(home, `pusher-${signal}`);
      const statePath = join(tbHome, 'push-state.json');
      // sessions of their own: the server has none of them yet
      const sourceDb = join(home, `source-${signal}.db`);
      const store = openSqliteStore(sourceDb);
      for (let n = 0; n < SESSIONS; n++) await store.writeSession(sessionOf(signal, n));
      await store.close();
      const before = await sessionCount(serverDb);
      const args = ['--import', 'tsx', 'src/cli/run.ts', 'push', '--from', `sqlite:${sourceDb}`, '--to', url, '--key', key];
      const child = spawn(process.execPath, args, { cwd: ROOT, env: envOf(tbHome) });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.on('close', (code, sig) => resolve({ code, signal: sig })),
      );
      // the first session is saved at once; the next save would come a second later
      await until(() => existsSync(statePath), 30_000);
      await new Promise((r) => setTimeout(r, 300));
      child.kill(signal);
      const end = await exited;

      const saved = await savedIds(statePath);
      const onServer = (await sessionCount(serverDb)) - before;
      // stopped mid-push, with more than the first session sent
      expect(onServer).toBeGreaterThan(2);
      expect(onServer).toBeLessThan(SESSIONS);
      // every session the server holds is saved as sent but the one cut short
      expect(onServer - saved.length).toBeLessThanOrEqual(1);
      expect(saved.length).toBeGreaterThan(2);
      // exits as a process stopped by the signal does, after saying so (the upload cut short is no failure)
      expect(end, stderr).toEqual({ code: signal === 'SIGINT' ? 130 : 143, signal: null });
      expect(stderr).toMatch(new RegExp(`push stopped by ${signal} after \\d+ sessions pushed; what went is saved`));
      expect(stderr).not.toMatch(/not pushed/);

      const again = await runCliProcess(
        ['push', '--from', `sqlite:${sourceDb}`, '--to', url, '--key', key, '--json'],
        envOf(tbHome),
      );
      expect(again.code, again.stderr).toBe(0);
      const report = JSON.parse(again.stdout) as { unchanged: number; created: number; updated: number };
      expect(report.unchanged).toBe(saved.length);
      expect(report.created + report.updated).toBe(SESSIONS - saved.length);
    },
    90_000,
  );
});
