/**
 * The commands that run until stopped (`sync --watch`, `ui`, `serve`) close cleanly on Ctrl-C (SIGINT)
 * or SIGTERM and exit 0: being stopped is how they end (systemd counts exit 143 after its own SIGTERM
 * as a failed stop), unlike `push`, whose stop cuts its work short (130/143). They listen for the
 * signal before saying they run: a signal right after that line killed the process unclosed. Each is
 * a real process from the sources, stopped by a real signal.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-polish-signals-'));
});

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `threadbase <args>` until it prints `ready`, then sends it `signal`: how it ended. */
function stopWhenReady(args: string[], tbHome: string, ready: RegExp, signal: NodeJS.Signals): Promise<Stopped> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HOME: home, THREADBASE_HOME: tbHome, NO_COLOR: '1', BROWSER: 'true' };
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    let sent = false;
    const look = () => {
      if (!sent && ready.test(stdout + stderr)) {
        sent = true;
        proc.kill(signal);
      }
    };
    proc.stdout.on('data', (d) => {
      stdout += d;
      look();
    });
    proc.stderr.on('data', (d) => {
      stderr += d;
      look();
    });
    proc.on('error', reject);
    proc.on('close', (code, by) => resolve({ code, signal: by, stdout, stderr }));
  });
}

describe('a command that runs until stopped closes and exits 0', () => {
  it.each([
    ['sync --watch', 'SIGINT', 0, ['sync', '--watch', '--interval', '200'], /watching for changes/],
    ['sync --watch', 'SIGTERM', 0, ['sync', '--watch', '--interval', '200'], /watching for changes/],
    ['ui', 'SIGINT', 0, ['ui', '--no-open', '--port', '0'], /threadbase viewer on/],
    ['serve', 'SIGTERM', 0, ['serve', '--port', '0'], /listening on/],
    ['serve --db memory:', 'SIGINT', 0, ['serve', '--port', '0', '--db', 'memory:'], /listening on/],
  ] as const)(
    '%s, %s → %i',
    async (_, signal, exitCode, args, ready) => {
      const tbHome = join(home, `${args[0]}-${signal}-${args.length}`);
      const r = await stopWhenReady([...args], tbHome, ready, signal);
      // exited by itself with the code, not killed by the signal
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stderr).toBe(exitCode);
      expect(r.stderr).not.toMatch(/threadbase: (?!warning)/);
      // closed cleanly: SQLite removes the write-ahead log when the last connection to the index closes
      if (existsSync(join(tbHome, 'index.db'))) expect(existsSync(join(tbHome, 'index.db-wal'))).toBe(false);
    },
    60_000,
  );
});
