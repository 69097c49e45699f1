/**
 * The CLI as a real process from the TypeScript sources (`node --import tsx src/cli/run.ts`), for
 * what an in-process run cannot show: a server that keeps running, two commands at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', 'src/cli/run.ts'];

export interface CliProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `threadbase <args>` to its end. */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliProcessResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Starts `threadbase serve <args>`: its address once it says it listens, and the process to stop. */
export function startServeProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; proc: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...CLI, 'serve', ...args], { cwd: ROOT, env });
    let out = '';
    let err = '';
    proc.stdout?.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ url: m[1], proc });
    });
    proc.stderr?.on('data', (d) => (err += d));
    proc.on('close', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}
