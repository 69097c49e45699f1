/**
 * `--prices FILE` is read once: the option's value is the table the command counts by. The option's
 * check read the file, then the command read it again, so a file that gives its content once (a pipe,
 * as `--prices <(curl …)` is) was read to its end by the check and waited on by the command.
 */
import { execFileSync, spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pricesFileOption } from '../../src/cli/options.js';
import { PRICES } from '../../src/stores/index-sync/prices.js';
import { runCliProcess } from '../helpers/cli-process.js';
import { claudeOlderCliHome } from '../helpers/fixture-homes.js';

let root: string;
let table: string;
const PRICE = { input: 3000, output: 15000 };

beforeAll(async () => {
  ({ root } = await claudeOlderCliHome('tb-prices-once-'));
  table = join(root, 'prices.json');
  await writeFile(table, JSON.stringify({ 'claude-sonnet-4-5': PRICE }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

it("the option's value is the table: the bundled prices with the file's over them", () => {
  const prices = pricesFileOption(table);
  expect(prices['claude-sonnet-4-5']).toEqual(PRICE);
  expect(prices['claude-opus-4-5']).toEqual(PRICES['claude-opus-4-5']);
});

it('stats --prices on a pipe counts by what the pipe gave', async () => {
  const pipe = join(root, 'prices.fifo');
  execFileSync('mkfifo', [pipe]);
  // the table, then (should a second reader open the pipe) a torn one: read twice, the command got that
  const writer = spawn('sh', ['-c', 'cat "$1" > "$2"; sleep 1; printf "{" > "$2"', 'sh', table, pipe]);
  try {
    const env = { PATH: process.env.PATH, HOME: root, THREADBASE_HOME: join(root, '.tb') };
    const r = await runCliProcess(['stats', '--by', 'model', '--json', '--prices', pipe], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [row] = JSON.parse(r.stdout) as { key: string; cost: number }[];
    // 656 input and 54 output tokens, and 60 cache tokens at the input rate (the file gives no cache rates)
    expect(row?.key).toBe('claude-sonnet-4-5-20250929');
    expect(row?.cost).toBeCloseTo(2.958, 6);
  } finally {
    writer.kill();
  }
}, 60_000);
