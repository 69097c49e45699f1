/**
 * `sync` on a narrow terminal (40 columns) over real sessions with damaged lines: each warning is
 * printed whole above the progress line, the progress line never wider than the terminal, and the
 * summary last. cli-progress turned the terminal's line wrapping off while it ran (each warning cut at
 * the 40th column: its file and line lost) and at its end put the cursor back where the bar had
 * started, so the summary and the prompt were written over the warnings.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { syncProgressText } from '../../src/cli/progress-line.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';

let root: string;
let env: DriverEnv;

beforeAll(async () => {
  ({ home: root, env } = await fixtureHome({ prefix: 'tb-sync-terminal-', agents: ['pi', 'codex', 'claude'] }));
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Runs `fn` with stderr taken for a terminal `columns` wide. */
async function onNarrowTerminal<T>(columns: number, fn: () => Promise<T>): Promise<T> {
  const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  const cols = Object.getOwnPropertyDescriptor(process.stderr, 'columns');
  Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
  Object.defineProperty(process.stderr, 'columns', { value: columns, configurable: true });
  try {
    return await fn();
  } finally {
    if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    if (cols) Object.defineProperty(process.stderr, 'columns', cols);
    else delete (process.stderr as { columns?: number }).columns;
  }
}

const CLEAR = '\r\x1b[K';

/** What a terminal shows of `text`, each line as what was written after its last carriage return and clear. */
function screenOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => (line.includes(CLEAR) ? line.slice(line.lastIndexOf(CLEAR) + CLEAR.length) : line))
    .filter((line, i, all) => line !== '' || i < all.length - 1);
}

it('prints each warning whole above a progress line no wider than the terminal, then the summary', async () => {
  const r = await onNarrowTerminal(40, () => runCli(env, ['sync', '--full']));
  expect(r.code, r.err).toBe(0);
  // the terminal's line wrapping left on, the cursor never put back over what was printed meanwhile
  expect(r.err).not.toContain('\x1b[?7l');
  expect(r.err).not.toContain('\x1b7');
  expect(r.err).not.toContain('\x1b8');
  const screen = screenOf(r.err);
  const pi = join(root, '.pi/agent/sessions/--work-proj--/v3-all-types.jsonl');
  expect(screen).toContain(`threadbase: warning: ${pi}:18: unknown entry type "future_thing"; kept raw (e0000017)`);
  expect(screen.filter((l) => l.startsWith('threadbase: warning: ')).length).toBeGreaterThan(2);
  expect(screen.at(-1)).toMatch(/^indexed \d+ sessions in [\d.]+ s: /);
  // every line but the warnings and the summary is gone from the screen: no progress line left over
  expect(screen.filter((l) => !/^(threadbase: warning: |indexed )/.test(l))).toEqual([]);
  // each drawing of the progress line fits in the 40 columns
  const drawn = r.err.split(CLEAR).filter((s) => s.startsWith('sync '));
  expect(drawn.length).toBeGreaterThan(1);
  for (const d of drawn) expect(d.length).toBeLessThan(40);
});

it('draws the bar as wide as the terminal leaves room for', () => {
  expect(syncProgressText(12, 45, 'codex', 80)).toBe(`sync [${'#'.repeat(11)}${'-'.repeat(29)}] 12/45 codex`);
  expect(syncProgressText(12, 45, 'codex', 40).length).toBeLessThan(40);
  expect(syncProgressText(12, 45, 'codex', 20)).toBe('sync 12/45 codex');
});
