/**
 * Registering a project in Gemini CLI's projects.json takes the lock Gemini CLI 0.61 takes there
 * (proper-lockfile's `projects.json.lock` directory, ProjectRegistry.getShortId). The other holder here
 * is proper-lockfile itself (the library Gemini CLI bundles, same version line, from node_modules), so
 * both sides of the lock are the real ones: a held lock makes the write wait (and a Gemini CLI's entry
 * written meanwhile is kept), a lock held past the retries is a clear error and nothing is written, a
 * stale one (its holder died) is taken over, while threadbase holds it proper-lockfile finds it held,
 * and it is refreshed as Gemini CLI's is (so a slow write's lock never looks stale to Gemini CLI).
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { GEMINI_LOCK_RETRIES, registryLockPath, withRegistryLock } from '../../src/formats/gemini/registry-lock.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

/** A few quick tries, so a held lock fails fast here (Gemini CLI's own wait as long as a live holder holds it). */
const quickRetries = { retries: 5, minTimeout: 20, factor: 1 };

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

  it('a lock held past the retries is an error naming it; nothing is written', async () => {
    const release = await lockfile.lock(registry);
    try {
      const driver = new GeminiDriver(env, { registryLock: { retries: quickRetries } });
      await expect(driver.writeSession(session('/work/ours'))).rejects.toThrow(
        new RegExp(`Gemini CLI's project registry is locked \\(${registry}\\.lock held for over \\d+ (ms|s)`),
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
    await new GeminiDriver(env, { registryLock: { retries: quickRetries } }).writeSession(session('/work/ours'));
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
    const held = await withRegistryLock(registry, async () => lockfile.check(registry, { realpath: false }));
    expect(held).toBe(true);
    await new GeminiDriver(env).writeSession(session('/work/ours'));
    expect((await readRegistry()).projects).toEqual({ '/work/ours': 'ours' });
  });

  it("takes it as Gemini CLI does: Gemini CLI's retries by default, refreshed every 5 s, so held 6 s it is not stale", async () => {
    expect(GEMINI_LOCK_RETRIES).toEqual({ retries: 100, minTimeout: 100 });
    const lock = `${registry}.lock`;
    const mtimes = await withRegistryLock(registry, async () => {
      const first = (await fs.stat(lock)).mtimeMs;
      await sleep(6000);
      return { first, later: (await fs.stat(lock)).mtimeMs, held: await lockfile.check(registry) };
    });
    expect(mtimes.later - mtimes.first).toBeGreaterThanOrEqual(4000);
    expect(mtimes.held).toBe(true);
  }, 20_000);

  it('a lock lost while held (removed by someone else) is an error, not a crash of the process', async () => {
    const lock = `${registry}.lock`;
    const lost = withRegistryLock(registry, async () => {
      await fs.rmdir(lock); // its next refresh (at 5 s) finds it gone: proper-lockfile calls it compromised
      await sleep(6000);
      return 'done';
    });
    await expect(lost).rejects.toMatchObject({ code: 'locked', file: registry });
    await expect(lost).rejects.toThrow("Gemini CLI's lock on its project registry was lost while it was held");
  }, 20_000);
});
