/**
 * `export` writes its document a piece at a time, to stdout (awaiting 'drain') and to `-o FILE`
 * (a temp file written piece by piece, then fsync and rename), never joined into one string: a large
 * session's document doubled the memory and one over V8's longest string (~512 MB) threw. The bytes
 * stay those the joined text had, in every format; a write failing midway leaves the old file as it was.
 */
import { promises as fsPromises } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { exportSessionPieces } from '../../src/export/index.js';
import { writeFileAtomic } from '../../src/formats/shared/atomic.js';
import '../../src/formats/all.js';
import { sessionAsOpencodeExport } from '../../src/formats/opencode/export.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Session } from '../../src/model/types.js';
import { runCli } from '../helpers/cli.js';
import { longTranscript } from '../helpers/long-transcript.js';

const ID = '5e55a0b1-0000-4000-8000-0000000b1ece';
const FORMATS = ['html', 'md', 'json', 'opencode'] as const;
let root: string;
let env: DriverEnv;
let session: Session;

/** The document as the old command made it: the pieces joined, the JSON formats stringified whole. */
function joinedText(format: (typeof FORMATS)[number]): string {
  if (format === 'opencode') return `${JSON.stringify(sessionAsOpencodeExport(session), null, 2)}\n`;
  if (format === 'json') return `${JSON.stringify(session, null, 2)}\n`;
  return [...exportSessionPieces(session, format, { subAgents: new Map() })].join('');
}

/**
 * OpenCode's ids, slug and time of update are made anew each export (from the clock and random): the
 * same document with them named alike.
 */
const sameIds = (text: string) =>
  text
    .replace(/\b(prt|ses|msg)_[0-9a-f]{12}[0-9A-Za-z]{14}\b/g, '$1_ID')
    .replace(/^( {4}"slug": )"[a-z]+-[a-z]+"/m, '$1"SLUG"')
    .replace(/^( {6}"updated": )\d+$/m, '$1TIME');

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-export-pieces-'));
  const dir = join(root, '.claude', 'projects', '-p');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, `${ID}.jsonl`),
    longTranscript(ID, 6, 400_000, (q) => `"${q}"`),
  );
  env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
  const sources = new Sources({ home: root, env: { HOME: root } });
  try {
    session = (await sources.driver('claude').getSession(ID)) as Session;
  } finally {
    await sources.close();
  }
});

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Makes the second FileHandle.writeFile from now on fail with ENOSPC, as a full disk would; restore the spy after. */
async function failSecondHandleWrite(dir: string) {
  const probe = await fsPromises.open(join(dir, '.probe'), 'w');
  const handleProto = Object.getPrototypeOf(probe) as { writeFile: (...args: unknown[]) => Promise<void> };
  await probe.close();
  await rm(join(dir, '.probe'));
  const original = handleProto.writeFile;
  let calls = 0;
  return vi.spyOn(handleProto, 'writeFile').mockImplementation(function (this: unknown, ...args: unknown[]) {
    calls++;
    if (calls === 2)
      return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    return original.apply(this, args);
  });
}

describe('export writes its pieces', () => {
  for (const format of FORMATS) {
    it(`${format}: stdout and -o get the joined text's bytes, stdout in several writes`, async () => {
      const expected = joinedText(format);
      if (format === 'opencode') expect(sameIds(expected)).not.toBe(expected);
      expect(expected.length).toBeGreaterThan(4_000_000);
      const { code, writes } = await runCli(env, ['export', ID, '--no-index', '--format', format]);
      expect(code).toBe(0);
      const written = writes.join('');
      expect(sameIds(written)).toBe(sameIds(expected));
      // byte for byte as JSON.stringify writes the value it holds
      if (format === 'opencode') expect(written).toBe(`${JSON.stringify(JSON.parse(written), null, 2)}\n`);
      // about a MiB a write, not the whole document in one
      expect(writes.length).toBeGreaterThan(2);
      for (const w of writes) expect(w.length).toBeLessThan(2 ** 20 + 1_000_000);

      const file = join(root, `out.${format}`);
      const r = await runCli(env, ['export', ID, '--no-index', '--format', format, '-o', file]);
      expect(r.code).toBe(0);
      expect(sameIds(await readFile(file, 'utf8'))).toBe(sameIds(expected));
    });
  }

  it("stdout: after a write its buffer could not take, the next waits for 'drain'", async () => {
    let written = 0;
    let drains = 0;
    let ahead = 0;
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => {
      written++;
      ahead = Math.max(ahead, written - drains);
      setTimeout(() => {
        drains++;
        process.stdout.emit('drain');
      }, 5);
      return false;
    });
    let code: number;
    try {
      code = await main(['node', 'threadbase', 'export', ID, '--no-index', '--format', 'json'], env);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(0);
    expect(written).toBeGreaterThan(2);
    // never a write while one before it was still waiting
    expect(ahead).toBe(1);
  });

  it('-o FILE: a write failing midway leaves the old file as it was and no temp file', async () => {
    const dir = join(root, 'atomic');
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'page.md');
    await writeFile(file, 'the old export\n');
    // the second write into the temp file fails, as a full disk would
    const spy = await failSecondHandleWrite(dir);
    let r: Awaited<ReturnType<typeof runCli>>;
    let calls: number;
    try {
      r = await runCli(env, ['export', ID, '--no-index', '--format', 'md', '-o', file]);
    } finally {
      calls = spy.mock.calls.length;
      spy.mockRestore();
    }
    const errText = r.err;
    expect(r.code).toBe(1);
    expect(calls).toBeGreaterThan(1);
    expect(errText).toContain('cannot write');
    expect(errText).toContain('ENOSPC');
    expect(await readFile(file, 'utf8')).toBe('the old export\n');
    expect(await readdir(dir)).toEqual(['page.md']);
  });
});

describe('writeFileAtomic of pieces', () => {
  it('writes the pieces in order; a piece that throws leaves the old file, no temp, and its own error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-atomic-pieces-'));
    try {
      const file = join(dir, 'doc.txt');
      await writeFileAtomic(file, ['a', 'é', '', 'c\n']);
      expect(await readFile(file, 'utf8')).toBe('aéc\n');
      const broken = new TypeError('Converting circular structure to JSON');
      function* failing(): Generator<string> {
        yield 'new ';
        yield 'text ';
        throw broken;
      }
      await expect(writeFileAtomic(file, failing())).rejects.toBe(broken);
      expect(await readFile(file, 'utf8')).toBe('aéc\n');
      expect(await readdir(dir)).toEqual(['doc.txt']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('writes byte pieces; a write failing midway stops their source (its finally runs: an open file is closed)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tb-atomic-pieces-'));
    try {
      const file = join(dir, 'doc.bin');
      await writeFileAtomic(file, [Buffer.from('ab'), new Uint8Array([0x63, 0x0a])]);
      expect(await readFile(file, 'utf8')).toBe('abc\n');
      let closed = false;
      function* source(): Generator<Uint8Array> {
        try {
          for (let i = 0; i < 5; i++) yield Buffer.from(`piece ${i}\n`);
        } finally {
          closed = true;
        }
      }
      const spy = await failSecondHandleWrite(dir);
      try {
        await expect(writeFileAtomic(file, source())).rejects.toThrow(/ENOSPC/);
      } finally {
        spy.mockRestore();
      }
      expect(closed).toBe(true);
      expect(await readFile(file, 'utf8')).toBe('abc\n');
      expect(await readdir(dir)).toEqual(['doc.bin']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
