/**
 * Compressed rollouts (`.jsonl.zst`) are read as a stream: the compressed file a read at a time, fzstd's
 * streaming decoder a block at a time into the shared line splitter, so memory stays bounded by a read,
 * the zstd window and a line whatever the rollout's size or compression ratio. A stream that breaks off
 * gives the lines before the break and a warning naming the file; appending decompresses as it writes.
 * The files are made by the real zstd (Debian's `zstd`) as codex's compression writes them (level 3, no
 * checksum: codex-rs rollout/src/compression.rs, encode_zstd; the header as the real 0.171 writes it).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, promises as fs, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeRollout, rolloutLines } from '../../src/formats/codex/compressed.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { type JsonlLine, readJsonl } from '../../src/formats/shared/jsonl.js';
import type { Session } from '../../src/model/types.js';
import { codexTempHomes } from '../helpers/codex-homes.js';

const ZSTD = '/usr/bin/zstd';
const zstdAvailable = existsSync(ZSTD);
const isCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const REPO = resolve('.');
const FIXTURE_HOME = resolve('test/fixtures/codex/home');
const REAL = '01a2049f-112d-7912-ae95-4f258b998a24';
const REAL_FILE = 'sessions/2026/11/22/rollout-2026-11-22T18-57-43-01a2049f-112d-7912-ae95-4f258b998a24.jsonl';
const { tempHome } = codexTempHomes(FIXTURE_HOME, 'tb-codex-zst-stream-');

/**
 * Compresses src into dst with the real zstd; by default as codex 0.171 does (level 3, one frame with the
 * content size, a 2 MiB window past 2 MiB, no checksum: `zstd -lv` and the frame header of a 3.7 MB
 * rollout the real codex compressed); `stream`: from a pipe, so with no content size.
 */
function zstd(src: string, dst: string, args: string[] = ['-3', '--no-check'], stream = false): void {
  const input = openSync(src, 'r');
  const output = openSync(dst, 'w');
  try {
    const r = spawnSync(ZSTD, [...args, '-q', '-c', ...(stream ? [] : [src])], { stdio: [input, output, 'pipe'] });
    if (r.status !== 0) throw new Error(`zstd ${args.join(' ')} failed: ${r.stderr?.toString()}`);
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

/** A small deterministic generator (xorshift32), so the files are the same on every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

/**
 * Writes about `bytes` of rollout lines (messages and events of codex's shapes, texts of words, numbers
 * and hex from a seeded generator: they compress about as a real rollout does) after `head`. Past 16 MB
 * the lines written repeat (farther back than zstd's window, so they compress no better).
 */
function writeRollout(file: string, bytes: number, seed = 1, head = ''): number {
  const next = random(seed);
  const words = 'the a file src index const function return await read write test codex rollout line entry'.split(' ');
  const fragments = Array.from({ length: 4096 }, (_, i) => {
    let s = '';
    const n = 5 + Math.floor(next() * 40);
    for (let k = 0; k < n; k++) s += `${words[Math.floor(next() * words.length)]} `;
    return `${s}${Math.floor(next() * 0xffffffff).toString(16)}${i}`;
  });
  const fd = openSync(file, 'w');
  let written = 0;
  try {
    if (head) written += writeSync(fd, head);
    let batch: string[] = [];
    let size = 0;
    const made: Buffer[] = [];
    let distinct = 0;
    for (let i = 0; written + size < bytes && distinct < 16 * 1024 * 1024; i++) {
      let text = '';
      const parts = 1 + Math.floor(next() * 12);
      for (let k = 0; k < parts; k++) text += `${fragments[Math.floor(next() * fragments.length)]}\n`;
      const timestamp = new Date(Date.UTC(2026, 10, 22, 19) + i * 1000).toISOString();
      const rec =
        i % 3 === 2
          ? { timestamp, type: 'event_msg', payload: { type: 'background_event', message: text } }
          : {
              timestamp,
              type: 'response_item',
              payload: {
                type: 'message',
                role: i % 3 ? 'assistant' : 'user',
                content: [{ type: i % 3 ? 'output_text' : 'input_text', text }],
              },
            };
      const line = `${JSON.stringify(rec)}\n`;
      batch.push(line);
      size += line.length;
      if (size >= 1 << 20) {
        const piece = Buffer.from(batch.join(''));
        made.push(piece);
        distinct += piece.length;
        written += writeSync(fd, piece);
        batch = [];
        size = 0;
      }
    }
    written += writeSync(fd, batch.join(''));
    for (let i = 0; written < bytes; i++) written += writeSync(fd, made[i % made.length] as Buffer);
  } finally {
    closeSync(fd);
  }
  return written;
}

async function collect(lines: AsyncIterable<JsonlLine>): Promise<JsonlLine[]> {
  const out: JsonlLine[] = [];
  for await (const l of lines) out.push(l);
  return out;
}

/** A skippable frame (RFC 8878 3.1.2): a decoder passes over it. */
function skippableFrame(data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32LE(0x184d2a53, 0);
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data]);
}

interface ChildReport {
  lines: number;
  errors: number;
  lastEnd: number;
  maxRssMb: number;
  bytes?: number;
}

/** Runs `body` (a module body with `file` and `report`) in a fresh node and returns what it reported with its peak RSS. */
function inChild(dir: string, body: string, file: string): ChildReport {
  const script = join(dir, `child-${Math.random().toString(16).slice(2)}.mjs`);
  const source = `import { materializeRollout, rolloutLines } from ${JSON.stringify(join(REPO, 'src/formats/codex/compressed.ts'))};
import { statSync } from 'node:fs';
const file = process.argv[2];
const out = { lines: 0, errors: 0, lastEnd: 0 };
${body}
out.maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(out));
`;
  writeFileSync(script, source);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, file], { cwd: REPO, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as ChildReport;
}

/** Peak RSS a child reading or decompressing a rollout may reach (node + tsx alone take ≈ 60 MB). */
const RSS_LIMIT_MB = 200;

describe.skipIf(!zstdAvailable && !isCI)('codex: compressed rollouts read as a stream', () => {
  let dir: string;
  beforeAll(async () => {
    if (!zstdAvailable) throw new Error(`${ZSTD} is missing, and CI=${process.env.CI}: these tests must run here, not skip`);
    dir = await fs.mkdtemp(join(tmpdir(), 'tb-codex-zst-stream-'));
  });
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('reads the same lines as the plain file, however the compressed bytes are read and framed', async () => {
    const plain = join(dir, 'rollout-same.jsonl');
    writeRollout(plain, 3 * 1024 * 1024, 7);
    const expected = await collect(readJsonl(plain));
    expect(expected.length).toBeGreaterThan(2000);

    const codexLike = join(dir, 'codex-like.jsonl.zst');
    zstd(plain, codexLike);
    const streamed = join(dir, 'streamed.jsonl.zst');
    zstd(plain, streamed, ['-3', '--no-check'], true);
    // the zstd tool's own files: the content size in the frame header and a checksum after the last block
    const withChecksum = join(dir, 'with-checksum.jsonl.zst');
    expect(spawnSync(ZSTD, ['-3', '-q', '-f', plain, '-o', withChecksum]).status).toBe(0);
    // several frames (one at level 12), a skippable frame between them, as a decoder must read them
    const text = await fs.readFile(plain);
    const cut = text.indexOf(0x0a, text.length >> 1) - 100;
    const [first, second] = [join(dir, 'first.jsonl'), join(dir, 'second.jsonl')];
    await fs.writeFile(first, text.subarray(0, cut));
    await fs.writeFile(second, text.subarray(cut));
    zstd(first, `${first}.zst`);
    zstd(second, `${second}.zst`, ['-12']);
    const frames = join(dir, 'frames.jsonl.zst');
    await fs.writeFile(
      frames,
      Buffer.concat([
        await fs.readFile(`${first}.zst`),
        skippableFrame(Buffer.from('skipped')),
        await fs.readFile(`${second}.zst`),
      ]),
    );
    expect((await fs.stat(codexLike)).size).toBeGreaterThan(3 * 131_075);

    for (const zst of [codexLike, streamed, withChecksum, frames])
      for (const readBytes of [undefined, 7, 4096, 131_075]) {
        // 7-byte reads of every file would take long: the codex-like one has them
        if (readBytes === 7 && zst !== codexLike) continue;
        const got = await collect(rolloutLines(zst, { readBytes }));
        expect({ zst: basename(zst), readBytes, same: got.length === expected.length }).toEqual({
          zst: basename(zst),
          readBytes,
          same: true,
        });
        expect(got).toEqual(expected);
      }
  }, 120_000);

  it('a rollout cut short gives the lines before the cut, then a warning naming the file where it breaks off', async () => {
    const plain = join(dir, 'rollout-cut.jsonl');
    writeRollout(plain, 4 * 1024 * 1024, 11);
    const zst = join(dir, 'rollout-cut.jsonl.zst');
    zstd(plain, zst);
    const whole = await fs.readFile(zst);
    const cut = join(dir, 'rollout-cut-short.jsonl.zst');
    await fs.writeFile(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const expected = await collect(readJsonl(plain));

    const got = await collect(rolloutLines(cut));
    const broke = got.at(-1) as JsonlLine;
    expect(broke.error).toMatch(
      /^the compressed rollout breaks off after \d+ bytes of text \(.+\); the rest of rollout-cut-short\.jsonl\.zst is not read$/,
    );
    const complete = got.filter((l) => !l.partial && l !== broke);
    // most of the text came through, line by line as in the plain file
    expect(complete.length).toBeGreaterThan(expected.length / 3);
    expect(complete).toEqual(expected.slice(0, complete.length));
    // the line the break falls in: torn, and the warning names it
    const torn = got.find((l) => l.partial);
    const next = expected[complete.length] as JsonlLine;
    if (torn) {
      expect(torn).toMatchObject({ line: next.line, offset: next.offset, error: expect.stringMatching(/^torn last line/) });
      expect(broke).toMatchObject({ line: next.line, offset: torn.end });
    } else expect(broke).toMatchObject({ line: next.line, offset: next.offset });
    // the text before the break is the plain file's
    const text = await fs.readFile(plain);
    expect(broke.offset).toBeGreaterThan(text.length / 3);
    expect(broke.offset).toBeLessThan(text.length);
  });

  it('lists and shows a session whose compressed rollout is cut short, with the entries before the cut and a warning', async () => {
    const env = await tempHome();
    const plain = join(env.home, '.codex', REAL_FILE);
    // the fixture rollout and then ~1 MB of events: more blocks than one, so a cut leaves the session's start
    const head = await fs.readFile(plain, 'utf8');
    writeRollout(`${plain}.padded`, 1024 * 1024, 3, head);
    await fs.rename(`${plain}.padded`, plain);
    const full = (await new CodexDriver(env).getSession(REAL)) as Session;
    const zst = `${plain}.zst`;
    zstd(plain, zst);
    await fs.rm(plain);
    const whole = await fs.readFile(zst);
    await fs.writeFile(zst, whole.subarray(0, Math.floor(whole.length * 0.7)));

    const driver = new CodexDriver(env);
    expect((await driver.listSessions()).filter((s) => s.id === REAL).map((s) => s.path)).toEqual([zst]);
    const s = (await driver.getSession(REAL)) as Session;
    expect(s.path).toBe(zst);
    expect(s.entries.length).toBeGreaterThan(100);
    expect(s.entries.length).toBeLessThan(full.entries.length);
    // the entries before the cut, as the whole rollout has them (the last one may be cut: not compared)
    const before = s.entries.slice(0, -1);
    expect(before.map((e) => e.id)).toEqual(full.entries.slice(0, before.length).map((e) => e.id));
    expect(s.entries.slice(0, 20)).toEqual(full.entries.slice(0, 20));
    expect(s.warnings).toContainEqual(
      expect.objectContaining({
        file: zst,
        message: expect.stringMatching(/breaks off after \d+ bytes.*rollout-2026-11-22T18-57-43-.*\.jsonl\.zst is not read/),
      }),
    );
  });

  it('appending to a rollout cut short refuses, and leaves the compressed file as it was and no other file', async () => {
    const env = await tempHome();
    const plain = join(env.home, '.codex', REAL_FILE);
    const head = await fs.readFile(plain, 'utf8');
    writeRollout(`${plain}.padded`, 1024 * 1024, 5, head);
    await fs.rename(`${plain}.padded`, plain);
    const zst = `${plain}.zst`;
    zstd(plain, zst);
    await fs.rm(plain);
    const whole = await fs.readFile(zst);
    const cutShort = whole.subarray(0, Math.floor(whole.length * 0.5));
    await fs.writeFile(zst, cutShort);
    const listing = await fs.readdir(dirname(zst));

    await expect(materializeRollout(zst)).rejects.toThrow(/cannot decompress the codex rollout/);
    expect((await fs.readFile(zst)).equals(cutShort)).toBe(true);
    expect(await fs.readdir(dirname(zst))).toEqual(listing);
  });

  it("a frame asking for a window over zstd's default limit (128 MiB) is an error naming the file, as codex's decoder refuses it", async () => {
    const plain = join(dir, 'rollout-window.jsonl');
    writeRollout(plain, 256 * 1024, 19);
    const zst = join(dir, 'rollout-window.jsonl.zst');
    zstd(plain, zst, ['-3', '--no-check'], true);
    const bytes = await fs.readFile(zst);
    // from a pipe: no single segment, so byte 5 is the window descriptor (2 MiB at level 3)
    expect([bytes[4] as number & 0x20, bytes[5]]).toEqual([0, 11 << 3]);
    const expected = await collect(readJsonl(plain));
    await fs.rm(plain);
    // 2^27, the limit: read (the data fits any window as large as the one it was made with)
    bytes[5] = 17 << 3;
    await fs.writeFile(zst, bytes);
    expect(await collect(rolloutLines(zst))).toEqual(expected);
    bytes[5] = (17 << 3) | 1;
    await fs.writeFile(zst, bytes);
    await expect(collect(rolloutLines(zst))).rejects.toThrow(
      /rollout-window\.jsonl\.zst: cannot decompress the codex rollout: the zstd frame's window of 150994944 bytes is over/,
    );
    await expect(materializeRollout(zst)).rejects.toThrow(/window of 150994944 bytes/);
    expect((await fs.readFile(zst)).equals(bytes)).toBe(true);
    expect(existsSync(plain)).toBe(false);
  });

  it('appending decompresses a compressed rollout back to the same bytes as it writes, its mode kept', async () => {
    const plain = join(dir, 'rollout-2026-11-01T00-00-00-0000aaaa-0000-7000-8000-000000000001.jsonl');
    writeRollout(plain, 5 * 1024 * 1024, 13);
    const text = await fs.readFile(plain);
    const zst = `${plain}.zst`;
    zstd(plain, zst);
    await fs.chmod(zst, 0o640);
    await fs.rm(plain);
    expect(await materializeRollout(zst)).toBe(plain);
    expect((await fs.readFile(plain)).equals(text)).toBe(true);
    expect((await fs.stat(plain)).mode & 0o777).toBe(0o640);
    expect(existsSync(zst)).toBe(false);
  });

  it('reads a 200 MB rollout, and one of 300 MB compressed into 30 KB, holding no more than a bounded amount', async () => {
    const plain = join(dir, 'rollout-big.jsonl');
    const size = writeRollout(plain, 200 * 1024 * 1024, 17);
    const big = `${plain}.zst`;
    zstd(plain, big);
    await fs.rm(plain);
    // many reads of compressed bytes
    expect((await fs.stat(big)).size).toBeGreaterThan(8 * (1 << 20));

    // the same line again and again: a read of the compressed file holds all of its 300 MB
    const repeated = join(dir, 'rollout-repeated.jsonl');
    const line = `${JSON.stringify({ timestamp: '2026-11-22T19:00:00.000Z', type: 'event_msg', payload: { type: 'agent_message', message: 'x'.repeat(2000) } })}\n`;
    const block = Buffer.from(line.repeat(512));
    const fd = openSync(repeated, 'w');
    const copies = Math.ceil((300 * 1024 * 1024) / block.length);
    for (let i = 0; i < copies; i++) writeSync(fd, block);
    closeSync(fd);
    const small = `${repeated}.zst`;
    zstd(repeated, small);
    await fs.rm(repeated);
    expect((await fs.stat(small)).size).toBeLessThan(1 << 20);

    const read = `for await (const l of rolloutLines(file)) { out.lines++; if (l.error) out.errors++; out.lastEnd = l.end; }`;
    const bigRead = inChild(dir, read, big);
    expect(bigRead).toMatchObject({ errors: 0, lastEnd: size });
    expect(bigRead.maxRssMb).toBeLessThan(RSS_LIMIT_MB);
    const smallRead = inChild(dir, read, small);
    expect(smallRead).toMatchObject({ errors: 0, lines: copies * 512, lastEnd: copies * block.length });
    expect(smallRead.maxRssMb).toBeLessThan(RSS_LIMIT_MB);

    // appending writes the plain file as it decompresses
    const materialized = inChild(dir, 'out.bytes = statSync(await materializeRollout(file)).size;', small);
    expect(materialized.bytes).toBe(copies * block.length);
    expect(materialized.maxRssMb).toBeLessThan(RSS_LIMIT_MB);
  }, 180_000);
});
