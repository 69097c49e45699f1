/**
 * The lock Gemini CLI 0.61 takes on `projects.json` while it registers a project
 * (ProjectRegistry.getShortId): proper-lockfile's, with its defaults. The lock is a directory
 * `<real path of projects.json>.lock`, made with mkdir (atomic: one holder); its holder refreshes its
 * mtime every 5 s, and one not refreshed for 10 s is stale (its holder died) and taken over. Gemini CLI
 * waits for it with up to 100 retries 100 ms apart (and longer); threadbase takes the same lock, so
 * a Gemini CLI registering a project at the same time never loses its entry or ours.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ThreadbaseError } from '../../model/errors.js';

export interface RegistryLockOptions {
  /** How long to wait for a held lock before giving up (Gemini CLI's LOCK_TIMEOUT_MS: 10 s). */
  timeoutMs?: number;
  /** The pause between two tries (Gemini CLI's LOCK_RETRY_DELAY_MS: 100 ms). */
  retryMs?: number;
  /** A lock whose mtime is older than this is stale (proper-lockfile's default: 10 s). */
  staleMs?: number;
}

const DEFAULTS = { timeoutMs: 10_000, retryMs: 100, staleMs: 10_000 } as const;

/** The lock's path as proper-lockfile names it: the file's real path (symlinks resolved) + `.lock`. */
export async function registryLockPath(file: string): Promise<string> {
  try {
    return `${await fs.realpath(file)}.lock`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // no registry yet: Gemini CLI writes an empty one first, whose real path is this
    const dir = await fs.realpath(dirname(file)).catch(() => dirname(file));
    return `${join(dir, basename(file))}.lock`;
  }
}

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Takes the lock (waiting for a holder, taking over a stale one); resolves to its release. */
async function acquire(file: string, opts: Required<RegistryLockOptions>): Promise<() => Promise<void>> {
  const lock = await registryLockPath(file);
  await fs.mkdir(dirname(lock), { recursive: true });
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    try {
      await fs.mkdir(lock);
      break;
    } catch (err) {
      if (code(err) !== 'EEXIST') throw err;
    }
    const st = await fs.stat(lock).catch((err: unknown) => {
      if (code(err) === 'ENOENT') return undefined; // released meanwhile: try again at once
      throw err;
    });
    if (!st) continue;
    if (st.mtimeMs < Date.now() - opts.staleMs) {
      // its holder stopped refreshing it: taken over, as proper-lockfile does
      await fs.rmdir(lock).catch((err: unknown) => {
        if (code(err) !== 'ENOENT') throw err;
      });
      continue;
    }
    if (Date.now() >= deadline)
      throw new ThreadbaseError(
        'locked',
        `Gemini CLI's project registry is locked (${lock} held for over ${opts.timeoutMs >= 1000 ? `${Math.round(opts.timeoutMs / 1000)} s` : `${opts.timeoutMs} ms`}, by a running Gemini CLI?); try again, or remove that directory if no Gemini CLI is running`,
        { file },
      );
    await sleep(opts.retryMs);
  }
  // held longer than half the stale time (a slow disk), its mtime is refreshed so no one takes it over
  const refresh = setInterval(
    () => {
      const now = new Date();
      fs.utimes(lock, now, now).catch(() => undefined);
    },
    Math.max(1000, opts.staleMs / 2),
  );
  refresh.unref();
  return async () => {
    clearInterval(refresh);
    await fs.rmdir(lock).catch((err: unknown) => {
      if (code(err) !== 'ENOENT') throw err;
    });
  };
}

/** Runs fn holding Gemini CLI's lock on its project registry `file`; the lock is released whatever fn does. */
export async function withRegistryLock<T>(file: string, fn: () => Promise<T>, opts: RegistryLockOptions = {}): Promise<T> {
  const release = await acquire(file, { ...DEFAULTS, ...opts });
  try {
    return await fn();
  } finally {
    await release();
  }
}
