/**
 * The only ways threadbase writes into an agent's store: a new file written whole (temp file +
 * fsync + rename, so a crash leaves the old state or the new, never a torn file), and whole lines
 * appended to a JSONL file.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ThreadbaseError } from '../../model/errors.js';

/** Our temp files: `.<name>.tb-<pid>-<8 hex>.tmp`; nothing else is ever removed by cleanup. */
const TEMP_NAME = /^\..+\.tb-(\d+)-[0-9a-f]{8}\.tmp$/;
/** A temp file this old is left over even if its pid is alive again (pids are reused). */
const STALE_TEMP_MS = 60 * 60 * 1000;

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files a killed threadbase left in dir (its process is gone, or the file is an
 * hour old). Readers never take them for sessions (no agent's name pattern matches them).
 */
export async function removeStaleTemps(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m) continue;
    const p = join(dir, name);
    if (processAlive(Number(m[1]))) {
      const st = await fs.stat(p).catch(() => undefined);
      if (!st || Date.now() - st.mtimeMs < STALE_TEMP_MS) continue;
    }
    await fs.rm(p, { force: true });
    removed++;
  }
  return removed;
}

/** link fails if the name exists, so two writers racing for one new file never overwrite each other. */
async function linkOrRename(tmp: string, file: string): Promise<void> {
  try {
    await fs.link(tmp, file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A filesystem without hard links: rename, as before (the stat above guarded it).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
    await fs.rename(tmp, file);
    return;
  }
  await fs.rm(tmp, { force: true });
}

/** A file where directory `dir` would be: "not a directory" says it ("file already exists" did not). */
function notDirectory(dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: dir });
}

/**
 * Makes a directory and those above it that are missing (`mkdir -p`). Not fs.mkdir's `recursive`, which
 * in Node 20 never returns where the directory cannot be made under one that is there (/proc/x: ENOENT
 * for it, EEXIST for /proc, and again): each directory is tried once after the one above it was made.
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if ((await fs.stat(dir).catch(() => undefined))?.isDirectory()) return;
      throw notDirectory(dir);
    }
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDirectory(parent);
    await fs.mkdir(dir).catch(async (again: NodeJS.ErrnoException) => {
      // made meanwhile by another writer
      if (again.code !== 'EEXIST' || !(await fs.stat(dir).catch(() => undefined))?.isDirectory()) throw again;
    });
  }
}

/** makeDirectory for code that cannot wait (the CLI's check of its index's place; mkdirSync's `recursive` loops too). */
export function makeDirectorySync(dir: string): void {
  const isDirectory = () => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  try {
    mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (isDirectory()) return;
      throw notDirectory(dir);
    }
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    makeDirectorySync(parent);
    try {
      mkdirSync(dir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory()) throw again;
    }
  }
}

/**
 * Why a write failed, in one line: Node's message without its code in front (given once, after it) and
 * without the paths at its end (our temp file's name, which the user never gave), with the step that
 * failed where it was not the file itself ("creating a file in /proc").
 */
function writeFailure(err: NodeJS.ErrnoException & { dest?: string }, file: string, tmp: string): string {
  const text = String(err.message ?? err)
    .replace(/^[A-Z][A-Z0-9_]*: /, '')
    .replace(/, \w+ '[^']*'(?: -> '[^']*')?$/s, '');
  const step =
    err.path === undefined || err.path === file || err.dest === file
      ? undefined
      : err.path === tmp
        ? `creating a file in ${dirname(file)}`
        : err.syscall === 'mkdir'
          ? `making ${err.path}`
          : `at ${err.path}`;
  const said = `${text}${err.code ? ` (${err.code}${step ? `, ${step}` : ''})` : step ? ` (${step})` : ''}`;
  return said.length > 300 ? `${said.slice(0, 300)}…` : said;
}

/**
 * Writes a whole file atomically; a failure is a ThreadbaseError naming the file (code `write`). The data
 * may come as pieces (text or bytes), written one by one as they come (no string of the whole file: a
 * large export's is hundreds of MB); an error the pieces throw is thrown as it is, and the file stays as it was.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array | Iterable<string | Uint8Array>,
  opts: { exclusive?: boolean } = {},
): Promise<void> {
  const tmp = tempNameOf(file);
  try {
    await writeWhole(file, tmp, typeof data === 'string' || data instanceof Uint8Array ? data : piecesTold(data), opts);
  } catch (err) {
    if (err instanceof PiecesFailed) throw err.cause;
    throw asWriteError(err, file, tmp);
  }
}

/** An error the data's pieces threw (rendering, not writing): passed on as it is, not as a write error. */
class PiecesFailed extends Error {}

function* piecesTold<T>(pieces: Iterable<T>): Generator<T, void, undefined> {
  const it = pieces[Symbol.iterator]();
  let done = false;
  try {
    for (;;) {
      let next: IteratorResult<T>;
      try {
        next = it.next();
      } catch (err) {
        done = true;
        throw new PiecesFailed('the pieces threw', { cause: err });
      }
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // a write that failed stops the pieces: their source (an open file) is closed
    if (!done) it.return?.();
  }
}

const tempNameOf = (file: string): string =>
  join(dirname(file), `.${basename(file)}.tb-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);

function asWriteError(err: unknown, file: string, tmp: string): ThreadbaseError {
  if (err instanceof ThreadbaseError) return err;
  return new ThreadbaseError(
    'write',
    `cannot write: ${writeFailure(err as NodeJS.ErrnoException, file, tmp)}`,
    { file },
    { cause: err },
  );
}

/**
 * Whether writeFileAtomic could write `file`, found before its data is made (an export renders a large
 * session first): the error writeFileAtomic would throw for a directory that cannot be made, a
 * directory no file can be created in, or a directory at the file's place. Leaves nothing behind: the
 * directories it made and its temp file are taken away again.
 */
export async function checkWritable(file: string): Promise<void> {
  const tmp = tempNameOf(file);
  const missing: string[] = [];
  for (let dir = dirname(file); !(await fs.lstat(dir).catch(() => undefined)); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  try {
    await makeDirectory(dirname(file));
    if ((await fs.stat(file).catch(() => undefined))?.isDirectory())
      // what the rename onto it says
      throw Object.assign(new Error(`EISDIR: illegal operation on a directory, rename '${tmp}' -> '${file}'`), {
        code: 'EISDIR',
        syscall: 'rename',
        path: tmp,
        dest: file,
      });
    await (await fs.open(tmp, 'wx')).close();
    await fs.rm(tmp, { force: true });
  } catch (err) {
    throw asWriteError(err, file, tmp);
  } finally {
    // deepest first; one another writer filled meanwhile stays
    for (const dir of missing) await fs.rmdir(dir).catch(() => undefined);
  }
}

async function writeWhole(
  file: string,
  tmp: string,
  data: string | Uint8Array | Iterable<string | Uint8Array>,
  opts: { exclusive?: boolean },
): Promise<void> {
  const dir = dirname(file);
  await makeDirectory(dir);
  await removeStaleTemps(dir);
  if (opts.exclusive) {
    const exists = await fs.stat(file).then(
      () => true,
      () => false,
    );
    if (exists) throw new ThreadbaseError('exists', 'already exists; refusing to overwrite', { file });
  }
  const fh = await fs.open(tmp, 'wx');
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await fh.writeFile(data);
    // pieces: each written as it comes, after those before it
    else for (const piece of data) await fh.writeFile(piece);
    await fh.sync();
  } catch (err) {
    // a write cut short (a full disk, a piece that threw) leaves no temp file behind
    await fh.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    if (opts.exclusive) await linkOrRename(tmp, file);
    else await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ThreadbaseError('exists', 'already exists; refusing to overwrite', { file });
    throw err;
  }
}

/**
 * One write(2) of the whole buffer, looping only if the kernel writes less. Not fh.appendFile:
 * Node writes that in 512 KiB chunks, so a kill between two chunks would tear a long line.
 */
async function writeAll(fh: fs.FileHandle, buf: Buffer): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done);
    done += bytesWritten;
  }
}

export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/**
 * Appends whole lines in one write(2). If the file ends in a torn line (no newline), a newline is
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
    await writeAll(fh, Buffer.from(prefix + toJsonl(records), 'utf8'));
    await fh.sync();
  } finally {
    await fh.close();
  }
}
