/**
 * The only ways threadbase writes into an agent's store: a new file written whole (temp file +
 * fsync + rename, so a crash leaves the old state or the new, never a torn file), and whole lines
 * appended to a JSONL file.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  opts: { exclusive?: boolean } = {},
): Promise<void> {
  await fs.mkdir(dirname(file), { recursive: true });
  if (opts.exclusive) {
    const exists = await fs.stat(file).then(
      () => true,
      () => false,
    );
    if (exists) throw new Error(`${file}: already exists; refusing to overwrite`);
  }
  const tmp = join(dirname(file), `.${basename(file)}.tb-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'wx');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/**
 * Appends whole lines in one write. If the file ends in a torn line (no newline), a newline is
 * written first so the torn line stays alone and our lines stay whole.
 */
export async function appendJsonlLines(file: string, records: readonly unknown[]): Promise<void> {
  if (records.length === 0) return;
  const fh = await fs.open(file, 'a+');
  try {
    const { size } = await fh.stat();
    let prefix = '';
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    await fh.appendFile(prefix + toJsonl(records));
    await fh.sync();
  } finally {
    await fh.close();
  }
}
