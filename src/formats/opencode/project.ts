/**
 * The project OpenCode files a directory under (its Project.resolve, 1.18): OpenCode lists a
 * session only under that id, so a session written under another one is in the database but never
 * shown in the directory it belongs to.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface GitProject {
  id: string;
  worktree: string;
  vcs: 'git';
}

/** `git <args>` in cwd: its trimmed output, or undefined when it fails (no git, not a repository). */
function git(cwd: string, args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.replace(/[\r\n]+$/, '') : undefined;
}

/** `<host>/<path>` of a remote URL, as OpenCode keys a project by it (no file: URLs, no `.git`). */
export function remoteKey(url: string): string | undefined {
  const u = url.trim();
  if (!u) return undefined;
  const key = (host: string, path: string) => {
    const p = path
      .replace(/^\/+/, '')
      .replace(/\.git\/?$/, '')
      .replace(/\/+$/, '');
    return host && p ? `${host.toLowerCase()}/${p}` : undefined;
  };
  try {
    const parsed = new URL(u);
    return parsed.protocol === 'file:' ? undefined : key(parsed.hostname, parsed.pathname);
  } catch {
    // scp-like: [user@]host:path
    const m = /^([^@/:]+@)?([^/:]+):(.+)$/.exec(u);
    return m ? key(m[2] as string, m[3] as string) : undefined;
  }
}

/**
 * The git project holding `directory` as OpenCode resolves it: the origin remote's
 * sha1("git-remote:<host>/<path>"), else the id cached in the common git directory's `opencode`
 * file (`cacheFile`: a fork names its own), else the first of HEAD's root commits; undefined
 * outside a repository.
 */
export function gitProjectOf(directory: string, cacheFile = 'opencode'): GitProject | undefined {
  let dir = directory;
  while (!existsSync(join(dir, '.git'))) {
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  const at = (p: string) => (isAbsolute(p) ? p : resolve(dir, p));
  const commonDir = git(dir, ['rev-parse', '--git-common-dir']);
  if (commonDir === undefined || git(dir, ['rev-parse', '--git-dir']) === undefined) return undefined;
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  const worktree = top ? at(top) : dir;
  const remote = git(worktree, ['remote', 'get-url', 'origin']);
  const keyed = remote ? remoteKey(remote) : undefined;
  if (keyed) return { id: createHash('sha1').update(`git-remote:${keyed}`).digest('hex'), worktree, vcs: 'git' };
  const cachePath = join(at(commonDir), cacheFile);
  const cached = existsSync(cachePath) ? readFileSync(cachePath, 'utf8').trim() : '';
  if (cached) return { id: cached, worktree, vcs: 'git' };
  const roots = (git(worktree, ['rev-list', '--max-parents=0', 'HEAD']) ?? '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();
  return roots[0] ? { id: roots[0], worktree, vcs: 'git' } : undefined;
}
