/**
 * `--json` output written in pieces at the reader's pace (src/cli/json-out.ts): the bytes
 * JSON.stringify(value, null, 2) printed, but never one string of the whole document (`show --json`
 * on a large session made one of 68 MB), and no more buffered than the reader takes.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_CHUNK_CHARS, jsonChunks, streamSink, type TextSink, writeJson } from '../../src/cli/json-out.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCli } from '../helpers/cli.js';
import { longTranscript } from '../helpers/long-transcript.js';

/** What printJson printed before: the whole text at once. */
const stringified = (value: unknown, indent = 2) => `${JSON.stringify(value, null, indent)}\n`;

/** writeJson's text as one string, and each write it made. */
async function written(value: unknown, opts: { indent?: number; chunkChars?: number } = {}) {
  const writes: string[] = [];
  const sink: TextSink = { write: (t) => writes.push(t) > 0, drained: async () => {} };
  await writeJson(sink, value, { indent: 2, end: '\n', ...opts });
  return { text: writes.join(''), writes };
}

/** A value of every case JSON.stringify treats its own way. */
function awkwardValue(): unknown {
  class WithToJSON {
    constructor(private readonly n: number) {}
    toJSON(key: string) {
      return { key, n: this.n, when: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)) };
    }
  }
  return {
    plain: 'hello',
    unicode: 'héllo 世界 🎉 — “quotes” \u2028\u2029',
    loneSurrogates: 'a\ud800b\udc00c\ud83d',
    escapes: 'quote " backslash \\ newline \n tab \t nul \u0000 bell \u0007 del \u007f',
    numbers: [0, -0, 1.5, -2e-7, 1e21, Number.MAX_VALUE, Number.NaN, Number.POSITIVE_INFINITY, -Number.POSITIVE_INFINITY],
    booleans: [true, false, null],
    missing: undefined,
    fn: () => 1,
    sym: Symbol('s'),
    holes: [undefined, () => 1, Symbol('t'), null],
    emptyArray: [],
    emptyObject: {},
    onlyUndefined: { a: undefined, b: undefined },
    nestedEmpty: [[], {}, [[]], { a: {} }, { a: [] }],
    date: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)),
    dates: [new Date(0), new Date(Number.NaN)],
    custom: new WithToJSON(3),
    customInArray: [new WithToJSON(4)],
    boxed: [Object(1), Object('s'), Object(false)],
    'key with "quotes" and \n': 1,
    '🔑': { '': 'empty key' },
    deep: { a: { b: { c: { d: [1, [2, [3, { e: 'f' }]]] } } } },
  };
}

describe('the text of JSON.stringify, byte for byte', () => {
  it('for a nested value of every awkward case, whatever the chunk size and indent', async () => {
    const value = awkwardValue();
    for (const chunkChars of [1, 2, 7, 64, 1000, JSON_CHUNK_CHARS])
      for (const indent of [0, 2, 4])
        expect((await written(value, { chunkChars, indent })).text).toBe(stringified(value, indent));
  });

  it('for arbitrary values (fast-check)', () => {
    const values = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withNullPrototype: true,
      withSparseArray: true,
      withObjectString: true,
      withMap: true,
      withSet: true,
      withUnicodeString: true,
    });
    fc.assert(
      fc.property(values, fc.constantFrom(1, 3, 16, 256, JSON_CHUNK_CHARS), (value, chunkChars) => {
        expect([...jsonChunks(value, { indent: 2, end: '\n', chunkChars })].join('')).toBe(stringified(value));
      }),
      { numRuns: 300 },
    );
  });

  it('for strings longer than a chunk, cut between the halves of no surrogate pair', async () => {
    const value = { s: `${'é'.repeat(5)}🎉${'"'.repeat(6)}🎉\ud800${'x'.repeat(9)}🎉`, t: ['🎉'.repeat(40)] };
    for (const chunkChars of [1, 2, 3, 5, 6, 7, 8]) expect((await written(value, { chunkChars })).text).toBe(stringified(value));
  });

  it('for a value with no JSON text, `undefined`, as printJson printed it', async () => {
    expect((await written(undefined)).text).toBe('undefined\n');
    expect((await written(() => 1)).text).toBe(stringified(() => 1));
    expect((await written({ toJSON: () => undefined })).text).toBe('undefined\n');
  });

  it('throws as JSON.stringify does for a cycle and a BigInt', async () => {
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] };
    cyclic.list.push({ back: cyclic });
    await expect(written(cyclic, { chunkChars: 4096 })).rejects.toThrow(TypeError);
    await expect(written({ n: 1n })).rejects.toThrow(TypeError);
  });
});

describe('in pieces', () => {
  it('writes a big value in several writes, none much over a chunk', async () => {
    const value = {
      entries: Array.from({ length: 3000 }, (_, i) => ({ id: `e${i}`, text: `${i} ${'x'.repeat(1000)}`, at: new Date(i) })),
      long: 'y'.repeat(3 * JSON_CHUNK_CHARS),
    };
    const { text, writes } = await written(value);
    expect(text).toBe(stringified(value));
    expect(writes.length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThanOrEqual(2 * JSON_CHUNK_CHARS);
  });

  it('waits for a slow reader: no more buffered than it asked for and a chunk, all of it in order', async () => {
    const received: string[] = [];
    let mostBuffered = 0;
    const slow = new Writable({
      highWaterMark: 64,
      decodeStrings: false,
      write(chunk: string, _encoding, done) {
        received.push(chunk);
        setTimeout(done, 1);
      },
    });
    const sink = streamSink(slow);
    let waits = 0;
    const counted: TextSink = {
      write: (t) => {
        const more = sink.write(t);
        mostBuffered = Math.max(mostBuffered, slow.writableLength);
        return more;
      },
      drained: () => {
        waits++;
        return sink.drained();
      },
    };
    const value = { rows: Array.from({ length: 200 }, (_, i) => ({ i, name: `row ${i} ü🎉` })) };
    await writeJson(counted, value, { indent: 2, end: '\n', chunkChars: 32 });
    await new Promise<void>((resolve) => slow.end(resolve));
    expect(received.join('')).toBe(stringified(value));
    expect(waits).toBeGreaterThan(10);
    // each write waited for the one before it to be taken: a chunk is at most 32 characters here, 6 bytes each at worst
    expect(mostBuffered).toBeLessThanOrEqual(64 + 32 * 6);
  });

  it('stops waiting, with an error, when the reader goes away', async () => {
    const stuck = new Writable({ highWaterMark: 1, write: () => {} });
    const value = Array.from({ length: 100 }, (_, i) => i);
    const writing = writeJson(streamSink(stuck), value, { indent: 2, chunkChars: 8 });
    setTimeout(() => stuck.destroy(), 5);
    await expect(writing).rejects.toThrow();
  });
});

describe('show --json of a large session', () => {
  const ID = '5e55a0b1-0000-4000-8000-00000000a50e';
  let root: string;
  let env: DriverEnv;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'tb-json-out-'));
    const dir = join(root, '.claude', 'projects', '-p');
    await mkdir(dir, { recursive: true });
    // texts of 400 K characters with quotes a format escapes and an emoji (a surrogate pair) after them
    await writeFile(
      join(dir, `${ID}.jsonl`),
      longTranscript(ID, 4, 400_000, (q) => `“${q}” 🎉`),
    );
    env = { home: root, env: { HOME: root, THREADBASE_HOME: join(root, '.tb') } };
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('prints the document JSON.stringify(…, null, 2) made, in several writes of about a MiB', async () => {
    const { code, out, writes } = await runCli(env, ['show', ID, '--json', '--no-index']);
    expect(code).toBe(0);
    const doc = JSON.parse(out) as { id: string; entries: unknown[] };
    expect(doc.id).toBe(ID);
    expect(out).toBe(stringified(doc));
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThanOrEqual(2 * JSON_CHUNK_CHARS);
  });
});
