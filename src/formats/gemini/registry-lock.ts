/**
 * The lock Gemini CLI 0.61 takes on `projects.json` while it registers a project
 * (ProjectRegistry.getShortId), taken through the library Gemini CLI takes it with, proper-lockfile,
 * called as Gemini CLI calls it: defaults (the directory `<real path of projects.json>.lock`, made with
 * mkdir; refreshed every 5 s; stale, so taken over, when not refreshed for 10 s; removed at exit) and
 * `retries: { retries: 100, minTimeout: 100 }`. Gemini CLI means that as 10 s (its LOCK_TIMEOUT_MS /
 * LOCK_RETRY_DELAY_MS), but retry's default factor 2 doubles each pause (100 ms, 200 ms, 400 ms, ...),
 * so it waits as long as a live holder keeps the lock; a dead holder's lock goes stale after 10 s and
 * is taken over at the next try (about 12.7 s in). Threadbase waits the same way, so a Gemini CLI
 * registering a project at the same time never loses its entry or ours.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { LockOptions } from 'proper-lockfile';
import { ThreadbaseError } from '../../model/errors.js';
import { makeDirectory } from '../shared/atomic.js';

/** proper-lockfile's retry options (those of the `retry` package it waits with). */
export type LockRetries = Exclude<LockOptions['retries'], number | undefined>;

export interface RegistryLockOptions {
  /** proper-lockfile's retries while the lock is held; Gemini CLI's by default (tests shorten them). */
  retries?: LockRetries;
}

/** Gemini CLI's `retries`: Math.floor(LOCK_TIMEOUT_MS / LOCK_RETRY_DELAY_MS) tries, the first 100 ms apart. */
export const GEMINI_LOCK_RETRIES: LockRetries = { retries: Math.floor(10_000 / 100), minTimeout: 100 };

/** The lock's path as proper-lockfile names it: the file's real path (symlinks resolved) + `.lock`. */
export async function registryLockPath(file: string): Promise<string> {
  try {
    return `${await fs.realpath(file)}.lock`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    // no registry yet: Gemini CLI writes an empty one before it locks it, whose real path is this
    const dir = await fs.realpath(dirname(file)).catch(() => dirname(file));
    return `${join(dir, basename(file))}.lock`;
  }
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`);

/** Runs fn holding Gemini CLI's lock on its project registry `file`; the lock is released whatever fn does. */
export async function withRegistryLock<T>(file: string, fn: () => Promise<T>, opts: RegistryLockOptions = {}): Promise<T> {
  const started = Date.now();
  // proper-lockfile would resolve the real path itself, which fails for a registry not written yet
  const lockfilePath = await registryLockPath(file);
  await makeDirectory(dirname(lockfilePath));
  // proper-lockfile's default throws from a timer, which would end the whole process: kept, and reported below
  let compromised: Error | undefined;
  // loaded when a session is written (with what it loads: graceful-fs, signal-exit, retry), not for reading
  const { default: lockfile } = await import('proper-lockfile');
  const release = await lockfile
    .lock(file, {
      realpath: false,
      lockfilePath,
      retries: opts.retries ?? GEMINI_LOCK_RETRIES,
      onCompromised: (err) => {
        compromised = err;
      },
    })
    .catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      throw new ThreadbaseError(
        'locked',
        `Gemini CLI's project registry is locked (${lockfilePath} held for over ${seconds(Date.now() - started)}, by a running Gemini CLI?); try again, or remove that directory if no Gemini CLI is running`,
        { file },
        { cause: err },
      );
    });
  let result: T;
  try {
    result = await fn();
  } finally {
    await release().catch((err: unknown) => {
      // a compromised lock was released by proper-lockfile already
      if ((err as NodeJS.ErrnoException).code !== 'ERELEASED') throw err;
    });
  }
  if (compromised)
    throw new ThreadbaseError(
      'locked',
      `Gemini CLI's lock on its project registry was lost while it was held (${compromised.message}); check that the project's entry is in it`,
      { file },
      { cause: compromised },
    );
  return result;
}
