/**
 * `export` to stdout writes the page in batches of its pieces (a turn a piece: a 30 MB session's page
 * was one string of 23 MB, made and encoded whole): the bytes are the page `-o FILE` writes, in order,
 * and a large page goes in several writes of about a MiB.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesOf } from '../../src/cli/commands/export.js';
import { main } from '../../src/cli/main.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { longTranscript } from '../helpers/long-transcript.js';

const ID = '5e55a0b1-0000-4000-8000-00000000b16b';
let root: string;
let env: DriverEnv;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-export-batches-'));
  const dir = join(root, '.claude', 'projects', '-p');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, `${ID}.jsonl`),
    longTranscript(ID, 6, 400_000, (q) => `<${q}>`),
  );
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('export to stdout in batches', () => {
  it('writes the bytes -o writes, in several writes of about a MiB', async () => {
    const file = join(root, 'page.html');
    expect(await main(['node', 'threadbase', 'export', ID, '--no-index', '-o', file], env)).toBe(0);
    const { code, writes } = await runCli(env, ['export', ID, '--no-index']);
    expect(code).toBe(0);
    const page = await readFile(file, 'utf8');
    expect(writes.join('')).toBe(page);
    // 12 turns of ≈ 400 K characters each: more than one write, none much over a MiB plus a turn
    expect(writes.length).toBeGreaterThan(1);
    for (const w of writes) expect(w.length).toBeLessThan(2 ** 20 + 500_000);
    for (let t = 0; t < 6; t++) expect(page).toContain(`reply ${t} &amp; r`);
    expect(page.indexOf('reply 4 &amp;')).toBeGreaterThan(page.indexOf('reply 3 &amp;'));
  });
});

describe('batchesOf', () => {
  it('joins pieces in order into batches of about a MiB, a longer piece alone', () => {
    const pieces = ['<head>', 'a'.repeat(700_000), '\n', 'b'.repeat(700_000), '\n', 'c'.repeat(3_000_000), '', 'd', '</end>'];
    const batches = [...batchesOf(pieces)];
    expect(batches.join('')).toBe(pieces.join(''));
    expect(batches.length).toBe(4);
    expect(batches[2]).toBe('c'.repeat(3_000_000));
    for (const b of batches) if (b !== batches[2]) expect(b.length).toBeLessThanOrEqual(2 ** 20);
    expect([...batchesOf([])]).toEqual([]);
    expect([...batchesOf(['', ''])]).toEqual([]);
  });
});
