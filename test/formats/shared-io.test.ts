import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendJsonlLines, writeFileAtomic } from '../../src/formats/shared/atomic.js';
import { type JsonlLine, jsonNestsDeeperThan, readFirstJsonLine, readJsonl } from '../../src/formats/shared/jsonl.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-io-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function collect(file: string, opts = {}): Promise<JsonlLine[]> {
  const out: JsonlLine[] = [];
  for await (const l of readJsonl(file, opts)) out.push(l);
  return out;
}

describe('readFirstJsonLine', () => {
  it('gives the first line that parses, with its place, short or long, after damaged lines or none at all', async () => {
    const short = join(dir, 'first-short.jsonl');
    await fs.writeFile(short, '{"type":"session","id":"s1"}\n{"n":2}\n');
    expect(await readFirstJsonLine(short)).toEqual({ line: 1, offset: 0, end: 29, value: { type: 'session', id: 's1' } });
    const long = join(dir, 'first-long.jsonl');
    const big = { type: 'session', pad: 'x'.repeat(40_000) };
    await fs.writeFile(long, `${JSON.stringify(big)}\n{"n":2}\n`);
    expect((await readFirstJsonLine(long))?.value).toEqual(big);
    const damaged = join(dir, 'first-damaged.jsonl');
    await fs.writeFile(damaged, 'not json\n\n{"n":3}\n');
    expect(await readFirstJsonLine(damaged)).toMatchObject({ line: 3, offset: 10, value: { n: 3 } });
    const torn = join(dir, 'first-torn.jsonl');
    await fs.writeFile(torn, '{"type":"sess');
    expect(await readFirstJsonLine(torn)).toBeUndefined();
  });
});

describe('readJsonl', () => {
  it('reports bad lines by number and keeps reading, with exact byte offsets', async () => {
    const f = join(dir, 'a.jsonl');
    const bad = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"<invalid utf-8>"}
    await fs.writeFile(f, Buffer.concat([Buffer.from('{"n":1}\n\nnot json\n'), bad, Buffer.from('\n{"n":"é"}\n{"n":3, "torn"')]));
    const lines = await collect(f);
    expect(lines.map((l) => [l.line, l.value !== undefined, l.partial ?? false])).toEqual([
      [1, true, false],
      [3, false, false],
      [4, false, false],
      [5, true, false],
      [6, false, true],
    ]);
    expect(lines[1]?.error).toMatch(/malformed JSON/);
    expect(lines[2]?.error).toMatch(/UTF-8/);
    expect(lines[5 - 2]?.value).toEqual({ n: 'é' });
    // resuming from a line's offset yields the same lines with the same numbers
    const from = lines[3] as JsonlLine;
    const rest = await collect(f, { start: from.offset, startLine: from.line });
    expect(rest.map((l) => l.line)).toEqual([5, 6]);
    expect(rest[0]?.value).toEqual({ n: 'é' });
    const { size } = await fs.stat(f);
    expect(lines.at(-1)?.end).toBe(size);
  });

  it('reports a line over the limit without holding it, and reads past it', async () => {
    const f = join(dir, 'big.jsonl');
    await fs.writeFile(f, `{"big":"${'x'.repeat(3 * 1024 * 1024)}"}\n{"after":true}\n`);
    const lines = await collect(f, { maxLineBytes: 1024 * 1024 });
    expect(lines[0]?.error).toMatch(/over the 1048576-byte limit/);
    expect(lines[1]).toMatchObject({ line: 2, value: { after: true } });
    const all = await collect(f);
    expect((all[0]?.value as { big: string } | undefined)?.big.length).toBe(3 * 1024 * 1024);
  });
});

describe('jsonNestsDeeperThan', () => {
  it('counts brackets outside strings only, past escaped quotes and backslashes', () => {
    const nest = (n: number, inner = '1') => `${'{"a":'.repeat(n)}${inner}${'}'.repeat(n)}`;
    expect(jsonNestsDeeperThan(nest(1001))).toBe(true);
    expect(jsonNestsDeeperThan(nest(1000))).toBe(false);
    expect(jsonNestsDeeperThan(`[${'['.repeat(1000)}${']'.repeat(1000)}]`)).toBe(true);
    // brackets in strings do not count, whatever the escapes before the closing quote
    expect(jsonNestsDeeperThan(JSON.stringify(['['.repeat(5000)]))).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify([`\\"${'{'.repeat(3000)}\\`]))).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify(['a"b\\', '['.repeat(2000)]))).toBe(false);
    // an escaped backslash ends right before the quote: the brackets after it are structure again
    expect(jsonNestsDeeperThan(`["x\\\\",${'['.repeat(1001)}${']'.repeat(1001)}]`)).toBe(true);
    // an unterminated string: nothing after its quote counts
    expect(jsonNestsDeeperThan(`["${'['.repeat(2000)}`)).toBe(false);
    // a string with quotes and brackets in the middle of deep structure
    expect(jsonNestsDeeperThan(nest(1001, JSON.stringify({ s: 'q"\\[' })))).toBe(true);
    expect(jsonNestsDeeperThan(nest(999, JSON.stringify({ s: 'q"\\[' })))).toBe(false);
  });
});

describe('atomic writes', () => {
  it('writes a new file whole and refuses to overwrite when exclusive', async () => {
    const f = join(dir, 'sub', 'new.jsonl');
    await writeFileAtomic(f, 'one\n');
    expect(await fs.readFile(f, 'utf8')).toBe('one\n');
    await expect(writeFileAtomic(f, 'two\n', { exclusive: true })).rejects.toThrow(/already exists/);
    expect(await fs.readFile(f, 'utf8')).toBe('one\n');
    expect((await fs.readdir(join(dir, 'sub'))).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('appends whole lines, isolating a torn last line', async () => {
    const f = join(dir, 'torn.jsonl');
    await fs.writeFile(f, '{"a":1}\n{"b":');
    await appendJsonlLines(f, [{ c: 3 }, { d: 4 }]);
    const lines = await collect(f);
    expect(lines.map((l) => l.value ?? 'ERR')).toEqual([{ a: 1 }, 'ERR', { c: 3 }, { d: 4 }]);
  });

  it("appends a line longer than Node's 512 KiB write chunk in one write, so a kill cannot split it", async () => {
    const f = join(dir, 'long-append.jsonl');
    await fs.writeFile(f, '{"a":1}');
    const probe = await fs.open(f, 'r');
    const FileHandle = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const writes = vi.spyOn(FileHandle, 'write');
    const record = { pad: 'x'.repeat(3 * 1024 * 1024) };
    let calls: unknown[][];
    try {
      await appendJsonlLines(f, [record, { b: 2 }]);
    } finally {
      calls = [...writes.mock.calls]; // (mockRestore clears them)
      writes.mockRestore();
    }
    const expected = Buffer.byteLength(`\n${JSON.stringify(record)}\n{"b":2}\n`);
    // One call carrying every byte (the newline that closes the torn line included).
    expect(calls.length).toBe(1);
    const [buf, offset, length] = calls[0] as [Buffer, number, number];
    expect([buf.length, offset, length]).toEqual([expected, 0, expected]);
    const lines = await collect(f);
    expect(lines.map((l) => l.value)).toEqual([{ a: 1 }, record, { b: 2 }]);
  });
});
