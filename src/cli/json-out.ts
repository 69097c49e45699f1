/**
 * JSON written in pieces, at the reader's pace: the text JSON.stringify(value, null, indent) makes, byte
 * for byte, without ever holding all of it. `show --json` on a large session made one string of the
 * whole document (68 MB seen) before writing it, twice the memory, and one over V8's longest string
 * (~512 MB) threw.
 */

/** Where the pieces go: `write` answers false when the reader is behind (wait for `drained`), as a stream's does. */
export interface TextSink {
  write(text: string): boolean;
  drained(): Promise<void>;
}

/** About this many characters a write: few writes, and no string of the whole document. */
export const JSON_CHUNK_CHARS = 1 << 20;

/**
 * Writes `value` as JSON.stringify(value, null, indent) would print it, then `end`, in writes of about
 * `chunkChars` characters (a long string's escaped slices can make one up to 7 times that), waiting for
 * the sink to drain whenever a write says its buffer is full. A value JSON has no text for (undefined,
 * a function) is written as `undefined`, as `${JSON.stringify(value)}` printed it. A cycle or a BigInt
 * throws as in JSON.stringify, but after what came before it was written.
 */
export async function writeJson(
  sink: TextSink,
  value: unknown,
  opts: { indent?: number; end?: string; chunkChars?: number } = {},
): Promise<void> {
  await writePieces(sink, jsonChunks(value, opts));
}

/** Writes the pieces in order, waiting for the sink to drain whenever a write says its buffer is full. */
export async function writePieces(sink: TextSink, pieces: Iterable<string>): Promise<void> {
  for (const piece of pieces) if (sink.write(piece) === false) await sink.drained();
}

/** The text of writeJson, as a sequence of chunks (joined: the whole text). */
export function* jsonChunks(
  value: unknown,
  opts: { indent?: number; end?: string; chunkChars?: number } = {},
): Generator<string, void, undefined> {
  const writer = new ChunkedJson(' '.repeat(Math.max(0, Math.min(10, Math.floor(opts.indent ?? 0)))), opts.chunkChars);
  const top = prepared('', value);
  if (top === NOTHING) writer.text += 'undefined';
  else yield* writer.value(top, '');
  writer.text += opts.end ?? '';
  if (writer.text) yield writer.text;
}

/** A value that has no JSON text (undefined, a function, a symbol): skipped as a property, null in an array. */
const NOTHING: unique symbol = Symbol('nothing');

/** What JSON.stringify serializes for `value` under `key`: its toJSON's answer, a boxed primitive unboxed. */
function prepared(key: string, value: unknown): unknown {
  let v = value;
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key) as unknown;
  }
  if (typeof v === 'object' && v !== null) {
    if (v instanceof Number) return Number(v);
    if (v instanceof String) return String(v);
    if (v instanceof Boolean || v instanceof BigInt) return v.valueOf();
    return v;
  }
  return v === undefined || typeof v === 'function' || typeof v === 'symbol' ? NOTHING : v;
}

class ChunkedJson {
  /** what is written and not yet handed out */
  text = '';
  /** the objects and arrays being written, outermost first (a value inside itself is a cycle) */
  private readonly open = new Set<object>();
  private readonly colon: string;
  /** an object or array whose text is about this long at most is stringified natively, whole */
  private readonly nativeChars: number;

  constructor(
    private readonly gap: string,
    private readonly chunkChars = JSON_CHUNK_CHARS,
  ) {
    this.colon = gap ? ': ' : ':';
    this.nativeChars = Math.floor(chunkChars / 8);
  }

  /** Writes a prepared value; `indent` is the indent of the line it starts on. */
  *value(v: unknown, indent: string): Generator<string, void, undefined> {
    if (typeof v === 'string') yield* this.string(v);
    else if (typeof v === 'number') this.text += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'object' && v !== null) {
      if (this.open.has(v)) throw new TypeError('Converting circular structure to JSON');
      // a small object or array (most of a session's) in one native call, several times faster than
      // walking it here; not one with a toJSON of its own, which JSON.stringify would call again
      if (typeof (v as { toJSON?: unknown }).toJSON !== 'function' && roomLeft(v, this.nativeChars) >= 0) {
        const text = JSON.stringify(v, null, this.gap);
        // JSON text has no raw newline in its strings: each newline starts a line, indented one level more here
        this.text += indent && this.gap ? text.replaceAll('\n', `\n${indent}`) : text;
        if (this.text.length >= this.chunkChars) yield this.take();
        return;
      }
      this.open.add(v);
      if (Array.isArray(v)) yield* this.array(v, indent);
      else yield* this.object(v as Record<string, unknown>, indent);
      this.open.delete(v);
    } else if (v === null || typeof v === 'boolean') this.text += String(v);
    // a BigInt without a toJSON: JSON.stringify's own TypeError
    else this.text += JSON.stringify(v);
    if (this.text.length >= this.chunkChars) yield this.take();
  }

  private *array(items: readonly unknown[], indent: string): Generator<string, void, undefined> {
    const length = items.length;
    if (length === 0) {
      this.text += '[]';
      return;
    }
    const inner = indent + this.gap;
    const lead = this.gap ? `\n${inner}` : '';
    this.text += '[';
    for (let i = 0; i < length; i++) {
      this.text += i === 0 ? lead : `,${lead}`;
      const item = prepared(String(i), items[i]);
      if (item === NOTHING) this.text += 'null';
      else yield* this.value(item, inner);
    }
    this.text += this.gap ? `\n${indent}]` : ']';
  }

  private *object(fields: Record<string, unknown>, indent: string): Generator<string, void, undefined> {
    const inner = indent + this.gap;
    const lead = this.gap ? `\n${inner}` : '';
    let written = false;
    this.text += '{';
    for (const key of Object.keys(fields)) {
      const field = prepared(key, fields[key]);
      if (field === NOTHING) continue;
      this.text += written ? `,${lead}` : lead;
      written = true;
      yield* this.string(key);
      this.text += this.colon;
      yield* this.value(field, inner);
    }
    this.text += written && this.gap ? `\n${indent}}` : '}';
  }

  /** A string quoted and escaped; a long one in slices, none splitting a surrogate pair (escaped alone otherwise). */
  private *string(s: string): Generator<string, void, undefined> {
    if (s.length <= this.chunkChars) {
      this.text += JSON.stringify(s);
      return;
    }
    this.text += '"';
    for (let from = 0; from < s.length; ) {
      let to = Math.min(from + this.chunkChars, s.length);
      if (to < s.length && isHighSurrogate(s.charCodeAt(to - 1)) && isLowSurrogate(s.charCodeAt(to)))
        to += to - 1 > from ? -1 : 1;
      this.text += JSON.stringify(s.slice(from, to)).slice(1, -1);
      from = to;
      if (this.text.length >= this.chunkChars) yield this.take();
    }
    this.text += '"';
  }

  private take(): string {
    const chunk = this.text;
    this.text = '';
    return chunk;
  }
}

/**
 * `budget` less about the length of `v`'s JSON text (its strings, keys and a few characters a value, not
 * indents or escapes), given up as soon as that is below 0: cheap, and walks no further than the budget.
 */
function roomLeft(v: unknown, budget: number): number {
  let left = budget - 4;
  if (left < 0) return left;
  if (typeof v === 'string') return left - v.length;
  if (typeof v !== 'object' || v === null) return left;
  if (Array.isArray(v)) {
    for (const item of v) {
      left = roomLeft(item, left);
      if (left < 0) return left;
    }
    return left;
  }
  const fields = v as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    left = roomLeft(fields[key], left - key.length);
    if (left < 0) return left;
  }
  return left;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A Writable (stdout) as a sink. */
export function streamSink(stream: NodeJS.WritableStream): TextSink {
  return { write: (text) => stream.write(text), drained: () => drainOf(stream) };
}

/** Resolves at the stream's next 'drain'; its error, or its close before then, rejects. */
export function drainOf(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const settle = (err?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => settle();
    const onError = (err: Error) => settle(err);
    const onClose = () => settle(new Error('the output closed before all of it was written'));
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
