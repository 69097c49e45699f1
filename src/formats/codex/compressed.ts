/**
 * Codex's compressed rollouts. With its feature `local_thread_store_compression` on (0.171: "under
 * development", off by default) codex replaces a rollout under `sessions/` or `archived_sessions/` whose
 * mtime is 7 days old or more by `<name>.jsonl.zst` (one zstd stream of the same bytes, the mtime kept),
 * and reads either one (codex-rs rollout/src/compression.rs): the plain `<name>.jsonl` when both exist.
 * Before it appends to a compressed one (a resume) it decompresses it back to `<name>.jsonl` and removes
 * the `.zst` (`materialize_rollout_for_append`); threadbase's append does the same (materializeRollout).
 */
import { promises as fs } from 'node:fs';
import { basename } from 'node:path';
import { decompress } from 'fzstd';
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

/** A compressed rollout's bytes, decompressed; a file fzstd cannot decode is an error naming it. */
async function decompressedRollout(file: string): Promise<Buffer> {
  const compressed = await fs.readFile(file);
  try {
    const bytes = decompress(compressed);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    throw new ThreadbaseError(
      'read',
      `cannot decompress the codex rollout: ${(error as Error).message}`,
      { file },
      { cause: error },
    );
  }
}

/** Every line of a rollout, plain or compressed (a compressed one decompressed whole: it is read whole). */
export async function* rolloutLines(file: string): AsyncGenerator<JsonlLine> {
  if (!isCompressedRollout(file)) {
    yield* readJsonl(file);
    return;
  }
  yield* jsonlLines([await decompressedRollout(file)]);
}

/**
 * The plain rollout to append to in place of `file`: a compressed one decompressed back to
 * `<name>.jsonl` (written whole, its mode kept) and then removed, as codex does before it appends to
 * one; a plain one as it is. A plain rollout already there (codex materialized it meanwhile) is the one.
 */
export async function materializeRollout(file: string): Promise<string> {
  if (!isCompressedRollout(file)) return file;
  const plain = plainRolloutPath(file);
  if (await exists(plain)) return plain;
  const { mode } = await fs.stat(file);
  try {
    await writeFileAtomic(plain, await decompressedRollout(file), { exclusive: true });
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
