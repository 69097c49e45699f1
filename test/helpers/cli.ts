/** Runs the CLI in-process and captures what it prints, as the tests of every surface need. */
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { DriverEnv } from '../../src/model/driver.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function runCli(env: DriverEnv, args: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    out += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    err += String(s);
    return true;
  });
  try {
    const code = await main(['node', 'threadbase', ...args], env);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

/** stdout of a command that must succeed; its stderr is in the error when it does not. */
export async function runCliOk(env: DriverEnv, args: string[]): Promise<string> {
  const r = await runCli(env, args);
  if (r.code !== 0) throw new Error(`threadbase ${args.join(' ')} exited ${r.code}: ${r.err}`);
  return r.out;
}
