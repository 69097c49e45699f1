/**
 * One temp home holding every fixture agent store where each agent keeps it, so the hardening
 * tests (fuzz, crash, read-only, concurrent) run threadbase over real agent files, not the fixtures.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { DriverEnv } from '../../src/model/driver.js';

export type AgentName = 'claude' | 'pi' | 'codex' | 'gemini' | 'opencode' | 'zed';
export const AGENTS: readonly AgentName[] = ['claude', 'pi', 'codex', 'gemini', 'opencode', 'zed'];

const FIXTURES = resolve('test/fixtures');

export interface FixtureHome {
  home: string;
  env: DriverEnv;
  /** The directory of each agent's own store inside home. */
  dirs: Record<AgentName, string>;
}

/** Where each agent's store lives under a home, as the env below tells the drivers. */
export function agentDirs(home: string): Record<AgentName, string> {
  const xdg = join(home, '.local', 'share');
  return {
    claude: join(home, '.claude'),
    pi: join(home, '.pi', 'agent'),
    codex: join(home, '.codex'),
    gemini: join(home, '.gemini'),
    opencode: join(xdg, 'opencode'),
    zed: join(xdg, 'zed'),
  };
}

export function homeEnv(home: string, extra: Record<string, string> = {}): DriverEnv {
  const dirs = agentDirs(home);
  return {
    home,
    env: {
      HOME: home,
      XDG_DATA_HOME: join(home, '.local', 'share'),
      CLAUDE_CONFIG_DIR: dirs.claude,
      PI_CODING_AGENT_DIR: dirs.pi,
      CODEX_HOME: dirs.codex,
      THREADBASE_HOME: join(home, '.threadbase'),
      ...extra,
    },
  };
}

/** Copies the fixture store of each agent named (default all) into a fresh temp home. */
export async function makeFixtureHome(agents: readonly AgentName[] = AGENTS, prefix = 'tb-hard-'): Promise<FixtureHome> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const dirs = agentDirs(home);
  const cp = (from: string, to: string) => fs.cp(join(FIXTURES, from), to, { recursive: true });
  for (const a of agents) {
    switch (a) {
      case 'claude':
        await cp('claude/real/projects', join(dirs.claude, 'projects'));
        await cp('claude/older/projects', join(dirs.claude, 'projects'));
        await cp('claude/older/todos', join(dirs.claude, 'todos'));
        break;
      case 'pi': {
        // pi keeps sessions under sessions/<encoded cwd>/ with `<timestamp>_<id>.jsonl` names.
        const dir = join(dirs.pi, 'sessions', '--work-proj--');
        await fs.mkdir(dir, { recursive: true });
        for (const f of await fs.readdir(join(FIXTURES, 'pi'))) {
          if (!f.endsWith('.jsonl')) continue;
          await fs.copyFile(join(FIXTURES, 'pi', f), join(dir, f));
        }
        break;
      }
      case 'codex':
        await cp('codex/home', dirs.codex);
        break;
      case 'gemini':
        await cp('gemini/home/.gemini', dirs.gemini);
        break;
      case 'opencode':
        await fs.mkdir(dirs.opencode, { recursive: true });
        await fs.copyFile(join(FIXTURES, 'opencode/opencode.db'), join(dirs.opencode, 'opencode.db'));
        await cp('opencode/storage', join(dirs.opencode, 'storage'));
        break;
      case 'zed':
        await cp('zed/home/.local/share/zed', dirs.zed);
        break;
    }
  }
  return { home, env: homeEnv(home), dirs };
}

/** Every regular file under dir, relative paths sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let items: import('node:fs').Dirent[];
    try {
      items = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const it of items) {
      const p = join(d, it.name);
      if (it.isDirectory()) await walk(p);
      else if (it.isFile()) out.push(relative(dir, p));
    }
  }
  await walk(dir);
  return out.sort();
}

export interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** sha256, size and mtime of every file under dir. */
export async function snapshot(dir: string): Promise<Map<string, FileState>> {
  const out = new Map<string, FileState>();
  for (const rel of await listFiles(dir)) {
    const p = join(dir, rel);
    const [buf, st] = await Promise.all([fs.readFile(p), fs.stat(p)]);
    out.set(rel, { sha256: createHash('sha256').update(buf).digest('hex'), size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/** What differs between two snapshots, one line a file. */
export function diffSnapshots(before: Map<string, FileState>, after: Map<string, FileState>): string[] {
  const out: string[] = [];
  for (const [k, v] of before) {
    const w = after.get(k);
    if (!w) out.push(`deleted ${k}`);
    else if (w.sha256 !== v.sha256) out.push(`changed ${k}`);
    else if (w.mtimeMs !== v.mtimeMs) out.push(`touched ${k}`);
  }
  for (const k of after.keys()) if (!before.has(k)) out.push(`created ${k}`);
  return out;
}

/** Adds figures to test-results/hardening.json (merged by key), which RELIABILITY.md quotes. */
export async function recordFigures(section: string, figures: Record<string, unknown>): Promise<void> {
  const file = resolve('test-results/hardening.json');
  await fs.mkdir(resolve('test-results'), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // first writer
  }
  const prev = (all[section] ?? {}) as Record<string, unknown>;
  all[section] = { ...prev, ...figures, recordedAt: new Date().toISOString() };
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`);
  await fs.rename(tmp, file);
}
