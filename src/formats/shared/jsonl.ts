/**
 * Streaming JSONL reading with exact byte offsets, so a sync can resume from the last complete
 * line, and so that damaged input (torn last line, bad JSON, invalid UTF-8, huge lines) is
 * reported by line and never stops the rest.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export interface JsonlLine {
  /** 1-based line number (counting from the start of the file, also when reading from an offset) */
  line: number;
  /** byte offset of the line's first byte */
  offset: number;
  /** byte offset just after the line's newline (where the next read would start) */
  end: number;
  /** the parsed value, when the line parsed */
  value?: unknown;
  /** why the line did not parse */
  error?: string;
  /** true for a last line with no newline: a writer may still be writing it */
  partial?: boolean;
}

export interface ReadJsonlOptions {
  /** byte offset to start at (must be the start of a line) */
  start?: number;
  /** line number of the line at `start` (1-based) */
  startLine?: number;
  /** lines longer than this are reported as errors, not parsed (default 64 MiB) */
  maxLineBytes?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Deepest JSON nesting read from agent data. Deeper values are reported, not loaded: every later
 * step (export, the index, the server) walks values recursively and would overflow the stack.
 */
export const MAX_JSON_DEPTH = 1000;

/** Whether JSON text nests arrays/objects deeper than max (strings and escapes skipped). */
export function jsonNestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  // Fewer characters than that cannot open so many brackets.
  if (text.length <= max) return false;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Jump over the string with indexOf (most bytes are in strings; a char loop cost 0.4 s per
      // 200 MB): its end is the next quote preceded by an even run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let k = end - 1;
        while (text.charCodeAt(k) === 0x5c) k--;
        if ((end - 1 - k) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return false;
      i = end + 1;
      continue;
    }
    if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
    i++;
  }
  return false;
}

/** JSON.parse that refuses values nested deeper than MAX_JSON_DEPTH (throws a SyntaxError). */
export function parseJson(text: string): unknown {
  if (jsonNestsDeeperThan(text)) throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  return JSON.parse(text);
}

/** parseJson's value, or undefined when the text is no JSON (or nests too deep): for JSON inside a record. */
export function jsonValueOf(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}

function parseLine(buf: Buffer): { value?: unknown; error?: string } {
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    return { error: 'line is not valid UTF-8' };
  }
  if (text.trim() === '') return {};
  try {
    return { value: parseJson(text) };
  } catch (err) {
    return { error: `malformed JSON: ${(err as Error).message}` };
  }
}

const CHUNK_BYTES = 1 << 20;

/**
 * A file's bytes from `start`, 1 MB at a time, read on the thread: a session file is read from the
 * system's cache far more often than from the disk, and there a read takes microseconds where each
 * one through libuv's pool (and its open and close) costs a round trip of the event loop (a cold
 * sync of 200 MB of sessions in one thread spent ≈ 14 % of its time waiting on them).
 */
function* fileChunks(file: string, start: number): Generator<Buffer> {
  const fd = openSync(file, 'r');
  try {
    for (let pos = start; ; ) {
      const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = readSync(fd, chunk, 0, CHUNK_BYTES, pos);
      if (n === 0) return;
      pos += n;
      yield n === CHUNK_BYTES ? chunk : chunk.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

/** Yields every line of a JSONL file; blank lines are skipped. */
export async function* readJsonl(file: string, opts: ReadJsonlOptions = {}): AsyncGenerator<JsonlLine> {
  yield* jsonlLines(fileChunks(file, opts.start ?? 0), opts);
}

/**
 * The lines of JSONL bytes given in chunks (a file's from `opts.start`, or bytes as they are decompressed),
 * numbered and placed as in the file; blank lines are skipped.
 */
export function* jsonlLines(bytes: Iterable<Buffer>, opts: ReadJsonlOptions = {}): Generator<JsonlLine> {
  const maxLine = opts.maxLineBytes ?? 64 * 1024 * 1024;
  let offset = opts.start ?? 0;
  let lineNo = opts.startLine ?? 1;
  let chunks: Buffer[] = [];
  let pending = 0;
  let oversized = false;
  for (const chunk of bytes) {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const stop = nl === -1 ? chunk.length : nl;
      if (!oversized) {
        chunks.push(chunk.subarray(from, stop));
        pending += stop - from;
        if (pending > maxLine) {
          oversized = true;
          chunks = [];
        }
      } else pending += stop - from;
      if (nl === -1) break;
      const start = offset;
      const len = pending;
      const end = start + len + 1;
      if (oversized) {
        yield { line: lineNo, offset: start, end, error: `line of ${len} bytes is over the ${maxLine}-byte limit` };
      } else if (len > 0) {
        const buf = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, len);
        const r = parseLine(buf);
        if (r.value !== undefined || r.error) yield { line: lineNo, offset: start, end, ...r };
      }
      offset = end;
      lineNo++;
      chunks = [];
      pending = 0;
      oversized = false;
      from = nl + 1;
    }
  }
  if (pending > 0) {
    const start = offset;
    const end = start + pending;
    if (oversized) {
      yield { line: lineNo, offset: start, end, partial: true, error: `line of ${pending} bytes is over the limit` };
    } else {
      const r = parseLine(Buffer.concat(chunks, pending));
      if (r.value !== undefined) yield { line: lineNo, offset: start, end, partial: true, value: r.value };
      else if (r.error) yield { line: lineNo, offset: start, end, partial: true, error: `torn last line (${r.error})` };
    }
  }
}

/** Reads only the first line that parses (a header), without reading the rest of the file. */
export async function readFirstJsonLine(file: string): Promise<JsonlLine | undefined> {
  // A header line is short: one small read answers, where a stream would fill a 1 MB buffer per file.
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16 * 1024);
    const bytesRead = readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) {
      const parsed = parseLine(head.subarray(0, nl));
      if (parsed.value !== undefined) return { line: 1, offset: 0, end: nl + 1, value: parsed.value };
    }
  } finally {
    closeSync(fd);
  }
  for await (const l of readJsonl(file)) {
    if (l.value !== undefined) return l;
    if (l.line > 20) return undefined;
  }
  return undefined;
}
