/**
 * Registering a project in Gemini CLI's projects.json takes the lock Gemini CLI 0.61 takes there
 * (proper-lockfile's `projects.json.lock` directory, ProjectRegistry.getShortId). The other holder here
 * is proper-lockfile itself (the library Gemini CLI bundles, same version line, from node_modules), so
 * both sides of the lock are the real ones: a held lock makes the write wait (and a Gemini CLI's entry
 * written meanwhile is kept), a lock held too long is a clear error and nothing is written, a stale one
 * (its holder died) is taken over, and while threadbase holds it proper-lockfile finds it held.
 */
import { promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { registryLockPath, withRegistryLock } from '../../src/formats/gemini/registry-lock.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

/** proper-lockfile 4 (no types installed): the calls Gemini CLI makes. */
interface ProperLockfile {
  lock(file: string, opts?: { retries?: number; realpath?: boolean }): Promise<() => Promise<void>>;
  check(file: string): Promise<boolean>;
}
const lockfile = createRequire(import.meta.url)('proper-lockfile') as ProperLockfile;

let root: string;
let env: DriverEnv;
let registry: string;
beforeEach(async () => {
  root = await fs.mkdtemp(join(tmpdir(), 'tb-gemini-lock-'));
  env = { home: root, env: { HOME: root } };
  registry = join(root, '.gemini', 'projects.json');
  await fs.mkdir(join(root, '.gemini'), { recursive: true });
  // Gemini CLI writes an empty registry before it locks it (the lock resolves the file's real path)
  await fs.writeFile(registry, `${JSON.stringify({ projects: {} }, null, 2)}\n`);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const session = (project: string) =>
  chainSession('lock-src', 'pi', project, [
    ['u1', textMessage('user', 'hello')],
    ['a1', textMessage('assistant', 'hi', { model: 'gemini-2.5-pro' })],
  ]);
const readRegistry = async () => JSON.parse(await fs.readFile(registry, 'utf8')) as { projects: Record<string, string> };
const chats = async (slug: string) => fs.readdir(join(root, '.gemini', 'tmp', slug, 'chats')).catch(() => []);

describe("gemini: Gemini CLI's lock on projects.json", () => {
  it('waits while Gemini CLI holds it: the entry Gemini CLI writes meanwhile is kept beside ours', async () => {
    // Gemini CLI took the lock and read the registry (empty); it writes its entry before releasing
    const release = await lockfile.lock(registry);
    const write = new GeminiDriver(env).writeSession(session('/work/ours'));
    let settled = false;
    void write.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await sleep(300); // without the lock the write would be done by now, and then overwritten below
    await fs.writeFile(registry, `${JSON.stringify({ projects: { '/work/theirs': 'theirs' } }, null, 2)}`);
    expect(settled).toBe(false);
    await release();
    const written = await write;
    expect(await readRegistry()).toEqual({ projects: { '/work/theirs': 'theirs', '/work/ours': 'ours' } });
    expect(written.project).toBe('/work/ours');
    expect(await chats('ours')).toHaveLength(1);
    await expect(fs.stat(`${registry}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a lock held past the timeout is an error naming it; nothing is written', async () => {
    const release = await lockfile.lock(registry);
    try {
      const driver = new GeminiDriver(env, { registryLock: { timeoutMs: 300, retryMs: 20 } });
      await expect(driver.writeSession(session('/work/ours'))).rejects.toThrow(
        `Gemini CLI's project registry is locked (${registry}.lock held for over 300 ms`,
      );
      await expect(driver.writeSession(session('/work/ours'))).rejects.toMatchObject({ code: 'locked', file: registry });
    } finally {
      await release();
    }
    expect(await readRegistry()).toEqual({ projects: {} });
    expect(await chats('ours')).toEqual([]);
  });

  it('takes over a stale lock (its holder died without removing it)', async () => {
    const lock = `${registry}.lock`;
    await fs.mkdir(lock);
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(lock, old, old);
    await new GeminiDriver(env, { registryLock: { timeoutMs: 300, retryMs: 20 } }).writeSession(session('/work/ours'));
    expect((await readRegistry()).projects).toEqual({ '/work/ours': 'ours' });
    await expect(fs.stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('while threadbase holds it, proper-lockfile (as Gemini CLI calls it) finds it held, at the real path', async () => {
    // ~/.gemini a symlink: both name the lock after the registry's real path
    const real = join(root, 'real-gemini');
    await fs.rename(join(root, '.gemini'), real);
    await fs.symlink(real, join(root, '.gemini'));
    expect(await registryLockPath(registry)).toBe(join(real, 'projects.json.lock'));
    const seen = await withRegistryLock(registry, async () => ({
      held: await lockfile.check(registry),
      lock: await lockfile.lock(registry, { retries: 0 }).then(
        () => 'taken',
        (err: NodeJS.ErrnoException) => err.code,
      ),
    }));
    expect(seen).toEqual({ held: true, lock: 'ELOCKED' });
    expect(await lockfile.check(registry)).toBe(false);
  });

  it('a registry not there yet is locked at the path Gemini CLI locks once it has written it', async () => {
    await fs.rm(registry);
    expect(await registryLockPath(registry)).toBe(`${registry}.lock`);
    await new GeminiDriver(env).writeSession(session('/work/ours'));
    expect((await readRegistry()).projects).toEqual({ '/work/ours': 'ours' });
  });
});
