/** `threadbase ui` as a user runs it: a real child process, its URL read from what it prints. */
import { type ChildProcess, spawn } from 'node:child_process';

export interface UiProcess {
  url: string;
  proc: ChildProcess;
  /** what it printed so far */
  stdout(): string;
  stderr(): string;
  /** SIGTERM and the exit code */
  stop(): Promise<number | null>;
}

export function startUi(args: string[], env: NodeJS.ProcessEnv): Promise<UiProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/run.ts', 'ui', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    // Not a timed assertion: only a bound so a process that never prints its URL fails the test.
    const timer = setTimeout(() => reject(new Error(`ui did not start: ${out} ${err}`)), 60_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/on (http:\/\/\S+\/)/);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, stdout: () => out, stderr: () => err, stop });
      }
    });
    proc.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ui exited with ${code}: ${out} ${err}`));
    });
  });
}
