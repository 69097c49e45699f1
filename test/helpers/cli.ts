/** Runs the CLI in-process and captures what it prints, as the tests of every surface need. */
import { vi } from 'vitest';
// registered at import, as the CLI did before it loaded them per command: tests list and register formats beside it
import '../../src/formats/all.js';
import '../../src/stores/local-source.js';
import { main } from '../../src/cli/main.js';
import type { DriverEnv } from '../../src/model/driver.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stdout write by write (joined: out) */
  writes: string[];
}

export async function runCli(env: DriverEnv, args: string[]): Promise<CliResult> {
  const writes: string[] = [];
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    writes.push(String(s));
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    err += String(s);
    return true;
  });
  try {
    const code = await main(['node', 'threadbase', ...args], env);
    return { code, out: writes.join(''), err, writes };
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

/** Token and cost totals over a stats answer's rows. */
export interface StatsTotals {
  cost: number;
  input: number;
  output: number;
  messages: number;
}

/** A row of `threadbase stats --by model --json`. */
export interface ModelStatsRow {
  key: string;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  messages: number;
}

/** `threadbase stats --by model --json --no-sync [args]`: what the local index counts, per model. */
export async function localStatsByModel(env: DriverEnv, args: string[] = []): Promise<ModelStatsRow[]> {
  return JSON.parse(await runCliOk(env, ['stats', '--by', 'model', '--json', '--no-sync', ...args])) as ModelStatsRow[];
}

/** `threadbase stats --by model --json --no-sync [args]` summed: what the local index counts. */
export async function localStatsTotals(env: DriverEnv, args: string[] = []): Promise<StatsTotals> {
  const rows = await localStatsByModel(env, args);
  return {
    cost: rows.reduce((a, r) => a + r.cost, 0),
    input: rows.reduce((a, r) => a + r.inputTokens, 0),
    output: rows.reduce((a, r) => a + r.outputTokens, 0),
    messages: rows.reduce((a, r) => a + r.messages, 0),
  };
}
