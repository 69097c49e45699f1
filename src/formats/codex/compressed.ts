/**
 * Codex's compressed rollouts. With its feature `local_thread_store_compression` on (0.171: "under
 * development", off by default) codex replaces a rollout under `sessions/` or `archived_sessions/` whose
 * mtime is 7 days old or more by `<name>.jsonl.zst` (one zstd stream of the same bytes, the mtime kept),
 * and reads either one (codex-rs rollout/src/compression.rs): the plain `<name>.jsonl` when both exist.
 * Before it appends to a compressed one (a resume) it decompresses it back to `<name>.jsonl` and removes
 * the `.zst` (`materialize_rollout_for_append`); threadbase's append does the same (materializeRollout).
 */
import { closeSync, promises as fs, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { Decompress } from 'fzstd';
import { ThreadbaseError } from '../../model/errors.js';
import { writeFileAtomic } from '../shared/atomic.js';
import { type JsonlLine, jsonlLines, readJsonl } from '../shared/jsonl.js';

const COMPRESSED_SUFFIX = '.zst';

/** Whether a rollout's name is that of a compressed one (`….jsonl.zst`). */
export function isCompressedRollout(file: string): boolean {
  return file.endsWith(`.jsonl${COMPRESSED_SUFFIX}`);
}

/** The plain `.jsonl` path of a plain or compressed rollout, which codex names the rollout by. */
export function plainRolloutPath(file: string): string {
  return isCompressedRollout(file) ? file.slice(0, -COMPRESSED_SUFFIX.length) : file;
}

/** A rollout file's name as codex takes it: `rollout-….jsonl`, or its compressed `rollout-….jsonl.zst`. */
export function isRolloutName(name: string): boolean {
  const plain = plainRolloutPath(name);
  return plain.startsWith('rollout-') && plain.endsWith('.jsonl');
}

/** Compressed bytes read at a time (as the plain reader reads). */
const READ_BYTES = 1 << 20;

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames' magic numbers are 0x184D2A50 to 0x184D2A5F. */
const SKIPPABLE_MAGIC_HIGH = 0x184d2a5;

/**
 * The largest window a frame may ask for: zstd's decoders refuse more by default (ZSTD_WINDOWLOG_LIMIT_DEFAULT
 * 27), codex's (the zstd crate's stream Decoder) too; fzstd would hold it, and move it at every block.
 */
const MAX_WINDOW = 1 << 27;

/** The window a whole frame header asks for (RFC 8878 3.1.1.1): the content size of a single-segment frame. */
function windowSize(h: number[]): number {
  const fhd = h[4] as number;
  const singleSegment = (fhd >> 5) & 1;
  if (!singleSegment) {
    const descriptor = h[5] as number;
    const base = 2 ** (10 + (descriptor >> 3));
    return base + (base / 8) * (descriptor & 7);
  }
  const contentSizeFlag = fhd >> 6;
  const bytes = contentSizeFlag ? 1 << contentSizeFlag : 1;
  const at = 5 + ([0, 1, 2, 4][fhd & 3] as number);
  let size = 0;
  for (let i = bytes - 1; i >= 0; i--) size = size * 256 + (h[at + i] as number);
  return contentSizeFlag === 1 ? size + 256 : size;
}

/**
 * Where the blocks of a zstd stream end (RFC 8878: frame header, block headers, checksum, skippable
 * frames), found as the compressed bytes pass. fzstd's Decompress decodes every whole block one push
 * holds: pushed up to one block's end at a time, it gives at most a block (≤ 128 KiB of text) per push,
 * whatever the compression ratio (a 1 MiB read of repeated text holds gigabytes of it).
 */
class BlockEnds {
  private head: number[] = [];
  private want = 4;
  private state: 'magic' | 'frame' | 'skippable' | 'block' | 'unknown' = 'magic';
  /** bytes to pass before the next header: a block's content, a checksum, a skippable frame */
  private skip = 0;
  private inBlock = false;
  private lastBlock = false;
  private checksum = 0;

  /** The offsets in chunk just after each block end it holds. */
  in(chunk: Uint8Array): number[] {
    const ends: number[] = [];
    let i = 0;
    // not a zstd frame: no ends, fzstd says what is wrong
    while (i < chunk.length && this.state !== 'unknown') {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        i += n;
        this.skip -= n;
        if (this.skip > 0) break;
      } else {
        this.head.push(chunk[i++] as number);
        if (this.head.length < this.want) continue;
        this.header();
      }
      if (this.skip === 0 && this.inBlock) {
        ends.push(i);
        this.inBlock = false;
        if (this.lastBlock) this.expect('magic', 4, this.checksum);
        else this.expect('block', 3);
      }
    }
    return ends;
  }

  private expect(state: BlockEnds['state'], want: number, skip = 0): void {
    this.state = state;
    this.want = want;
    this.head = [];
    this.skip = skip;
  }

  private header(): void {
    const h = this.head;
    const u32 = (at: number) =>
      ((h[at] as number) | ((h[at + 1] as number) << 8) | ((h[at + 2] as number) << 16) | ((h[at + 3] as number) << 24)) >>> 0;
    switch (this.state) {
      case 'magic': {
        const magic = u32(0);
        if (magic === FRAME_MAGIC) {
          this.state = 'frame';
          this.want = 5;
        } else if (magic >>> 4 === SKIPPABLE_MAGIC_HIGH) {
          this.state = 'skippable';
          this.want = 8;
        } else this.state = 'unknown';
        return;
      }
      case 'frame': {
        if (h.length === 5) {
          const fhd = h[4] as number;
          const singleSegment = (fhd >> 5) & 1;
          const contentSizeFlag = fhd >> 6;
          this.checksum = fhd & 4 ? 4 : 0;
          this.want =
            5 +
            (singleSegment ? 0 : 1) +
            ([0, 1, 2, 4][fhd & 3] as number) +
            (contentSizeFlag ? 1 << contentSizeFlag : singleSegment);
          if (h.length < this.want) return;
        }
        const window = windowSize(h);
        if (window > MAX_WINDOW)
          throw new Error(
            `the zstd frame's window of ${window} bytes is over zstd's default limit of ${MAX_WINDOW} (codex's decoder refuses it too)`,
          );
        this.expect('block', 3);
        return;
      }
      case 'skippable':
        this.expect('magic', 4, u32(4));
        return;
      case 'block': {
        const bh = (h[0] as number) | ((h[1] as number) << 8) | ((h[2] as number) << 16);
        this.lastBlock = (bh & 1) === 1;
        // an RLE block's content is its one byte
        this.skip = ((bh >> 1) & 3) === 1 ? 1 : bh >>> 3;
        this.inBlock = true;
        this.head = [];
        return;
      }
      default:
        return;
    }
  }
}

/** Where a compressed rollout stopped decoding. */
interface Damage {
  /** decompressed bytes before it, and the line they end in */
  offset: number;
  line: number;
  message: string;
}

/**
 * A compressed rollout's text, decompressed as it is read (a read of the file, then a block at a time),
 * so no more than a read, a zstd window and a block are held whatever its size. A stream that stops
 * decoding (cut short, damaged) ends the text there: `onDamage` is told after the text before it was
 * given; without it, or with no text before it, that is an error naming the file.
 */
function* decompressedRollout(
  file: string,
  opts: { readBytes?: number; onDamage?: (d: Damage) => void } = {},
): Generator<Buffer> {
  const readBytes = opts.readBytes ?? READ_BYTES;
  let out: Buffer[] = [];
  let offset = 0;
  let newlines = 0;
  const stream = new Decompress((data) => {
    if (data.length === 0) return;
    out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  const ends = new BlockEnds();
  const taken = function* (): Generator<Buffer> {
    const pieces = out;
    out = [];
    for (const piece of pieces) {
      offset += piece.length;
      if (opts.onDamage) for (let at = piece.indexOf(0x0a); at !== -1; at = piece.indexOf(0x0a, at + 1)) newlines++;
      yield piece;
    }
  };
  const fd = openSync(file, 'r');
  try {
    let failure: unknown;
    try {
      for (let pos = 0; ; ) {
        // a new buffer each read: fzstd keeps a view of a block that goes on into the next read
        const chunk = Buffer.allocUnsafe(readBytes);
        const n = readSync(fd, chunk, 0, readBytes, pos);
        if (n === 0) break;
        pos += n;
        const bytes = chunk.subarray(0, n);
        let from = 0;
        for (const end of ends.in(bytes)) {
          // one byte past the block: fzstd then keeps that byte, not an empty view of this read per block
          const to = Math.min(end + 1, n);
          stream.push(bytes.subarray(from, to));
          from = to;
          yield* taken();
        }
        if (from < n) stream.push(bytes.subarray(from));
        yield* taken();
      }
      stream.push(new Uint8Array(0), true);
    } catch (error) {
      failure = error;
    }
    // the blocks decoded before the damage
    yield* taken();
    if (failure === undefined) return;
    const message = failure instanceof Error ? failure.message : String(failure);
    if (!opts.onDamage || offset === 0)
      throw new ThreadbaseError(
        'read',
        `cannot decompress the codex rollout${offset ? ` after ${offset} bytes` : ''}: ${message}`,
        { file },
        { cause: failure },
      );
    opts.onDamage({ offset, line: newlines + 1, message });
  } finally {
    closeSync(fd);
  }
}

/**
 * Every line of a rollout, plain or compressed. A compressed one is decompressed as it is read; one
 * that breaks off (cut short, damaged) gives the lines before the break, then a line whose error says
 * where it broke. `readBytes`: the compressed bytes read at a time (tests).
 */
export async function* rolloutLines(file: string, opts: { readBytes?: number } = {}): AsyncGenerator<JsonlLine> {
  if (!isCompressedRollout(file)) {
    yield* readJsonl(file);
    return;
  }
  const seen: { damage?: Damage } = {};
  yield* jsonlLines(
    decompressedRollout(file, {
      readBytes: opts.readBytes,
      onDamage: (d) => {
        seen.damage = d;
      },
    }),
  );
  const d = seen.damage;
  if (d)
    yield {
      line: d.line,
      offset: d.offset,
      end: d.offset,
      error: `the compressed rollout breaks off after ${d.offset} bytes of text (${d.message}); the rest of ${basename(file)} is not read`,
    };
}

/**
 * The plain rollout to append to in place of `file`: a compressed one decompressed back to
 * `<name>.jsonl` (written as it is decompressed into a temp file renamed into place, its mode kept)
 * and then removed, as codex does before it appends to one; a plain one as it is. A plain rollout
 * already there (codex materialized it meanwhile) is the one. One that does not decompress to its
 * end is an error, and nothing changes.
 */
export async function materializeRollout(file: string): Promise<string> {
  if (!isCompressedRollout(file)) return file;
  const plain = plainRolloutPath(file);
  if (await exists(plain)) return plain;
  const { mode } = await fs.stat(file);
  try {
    await writeFileAtomic(plain, decompressedRollout(file), { exclusive: true });
    await fs.chmod(plain, mode & 0o777);
  } catch (error) {
    if (!(error instanceof ThreadbaseError && error.code === 'exists')) throw error;
  }
  await fs.rm(file, { force: true });
  return plain;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** The session id fallback of a rollout named otherwise: its plain name without `.jsonl`. */
export function rolloutBaseName(file: string): string {
  return basename(plainRolloutPath(file), '.jsonl');
}
