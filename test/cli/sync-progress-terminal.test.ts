/**
 * `sync` on a narrow terminal (40 columns) over real sessions with damaged lines: each warning is
 * printed whole above the progress bar, the bar never wider than the terminal, and the summary last.
 * cli-progress's single bar turned the terminal's line wrapping off while it ran (each warning cut at
 * the 40th column: its file and line lost) and at its end put the cursor back where the bar had
 * started, so the summary and the prompt were written over the warnings; its multi-bar, wrapping on,
 * prints them above the bar (sync.ts SyncProgress).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { syncBarText } from '../../src/cli/commands/sync.js';
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

/**
 * What a terminal shows of `text`: its lines after the cursor moves and clears cli-progress writes
 * (column 1, clear line / to its end / below, up n lines), wrapping off the question (no line is wider
 * than the widest written).
 */
const ESC = '\x1b';

function screenOf(text: string): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  const put = (ch: string) => {
    const line = lines[row] ?? '';
    lines[row] = line.slice(0, col).padEnd(col) + ch + line.slice(col + 1);
    col++;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === ESC) {
      const m = /^\[(\d*)([A-Za-z])/.exec(text.slice(i + 1));
      if (!m) throw new Error(`unknown escape at ${i}: ${JSON.stringify(text.slice(i, i + 8))}`);
      const n = Number(m[1] || '0');
      const op = m[2];
      if (op === 'G') col = Math.max(0, n - 1);
      else if (op === 'K') lines[row] = n === 2 ? '' : (lines[row] ?? '').slice(0, col);
      else if (op === 'J') {
        lines.splice(row + 1);
        lines[row] = (lines[row] ?? '').slice(0, col);
      } else if (op === 'A') row = Math.max(0, row - (n || 1));
      else throw new Error(`unknown escape ${JSON.stringify(m[0])}`);
      i += m[0].length;
    } else if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
      if (lines[row] === undefined) lines[row] = '';
    } else put(ch);
  }
  return lines.filter((line, i, all) => line !== '' || i < all.length - 1);
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
  // each drawing of the progress bar fits in the 40 columns
  const drawn = r.err
    .split('\x1b[1G')
    .filter((s) => s.startsWith('sync '))
    .map((s) =>
      s
        .split(ESC)
        .map((piece, i) => (i === 0 ? piece : piece.replace(/^\[\d*[A-Za-z]/, '')))
        .join(''),
    );
  expect(drawn.length).toBeGreaterThan(0);
  for (const d of drawn) expect(d.length).toBeLessThan(40);
});

it('draws the bar as wide as the terminal leaves room for', () => {
  const chars = { barCompleteChar: '#', barIncompleteChar: '-' };
  const at = { value: 12, total: 45 };
  expect(syncBarText(chars, at, 'codex', 80)).toBe(`sync [${'#'.repeat(11)}${'-'.repeat(29)}] 12/45 codex`);
  expect(syncBarText(chars, at, 'codex', 40).length).toBeLessThan(40);
  expect(syncBarText(chars, at, 'codex', 20)).toBe('sync 12/45 codex');
});
