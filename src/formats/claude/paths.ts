/** Where Claude Code keeps its data: `$CLAUDE_CONFIG_DIR` or `~/.claude`, sessions under `projects/<encoded cwd>/`. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DriverEnv } from '../../model/driver.js';
import { dirEntries } from '../shared/base.js';

export function claudeDir(env: DriverEnv): string {
  return env.env.CLAUDE_CONFIG_DIR || join(env.home, '.claude');
}

export function projectsDir(env: DriverEnv): string {
  return join(claudeDir(env), 'projects');
}

/** Claude Code keeps a project folder name to this many characters, then a hash of the whole path. */
const MAX_PROJECT_FOLDER = 200;

/** Java's String.hashCode (32-bit, over UTF-16 code units), as Claude Code hashes a long path. */
function stringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Claude Code's project folder name: every character outside [A-Za-z0-9] becomes `-` (`/tmp/a.b` →
 * `-tmp-a-b`); a name longer than 200 characters is cut there and ends in `-` and the path's hash in
 * base 36 (so `--continue` and the picker find a session in a deep directory where Claude Code looks).
 */
export function encodeProjectPath(cwd: string): string {
  const name = cwd.replace(/[^A-Za-z0-9]/g, '-');
  if (name.length <= MAX_PROJECT_FOLDER) return name;
  return `${name.slice(0, MAX_PROJECT_FOLDER)}-${Math.abs(stringHash(cwd)).toString(36)}`;
}

export const UUID_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** One session file and how it relates to others. */
export interface SessionFile {
  id: string;
  path: string;
  projectDir: string;
  /** sub-agent transcripts: the session that spawned them */
  parentSessionId?: string;
  /** current layout: `<session>/subagents/agent-<id>.meta.json` */
  metaPath?: string;
  kind: 'session' | 'subagent' | 'legacy-subagent';
}

/** Every session file: top-level sessions, sub-agents in `<session>/subagents/`, and older `agent-<id>.jsonl` beside sessions. */
export async function findSessionFiles(env: DriverEnv): Promise<SessionFile[]> {
  const root = projectsDir(env);
  const out: SessionFile[] = [];
  for (const pd of dirEntries(root)) {
    if (!pd.isDirectory()) continue;
    const projectDir = join(root, pd.name);
    for (const f of dirEntries(projectDir)) {
      if (f.isFile() && UUID_FILE.test(f.name)) {
        out.push({ id: f.name.slice(0, -6), path: join(projectDir, f.name), projectDir, kind: 'session' });
      } else if (f.isFile() && /^agent-[A-Za-z0-9_-]+\.jsonl$/.test(f.name)) {
        out.push({ id: f.name.slice(6, -6), path: join(projectDir, f.name), projectDir, kind: 'legacy-subagent' });
      } else if (f.isDirectory()) {
        const subDir = join(projectDir, f.name, 'subagents');
        for (const s of dirEntries(subDir)) {
          if (!s.isFile() || !/^agent-[A-Za-z0-9_-]+\.jsonl$/.test(s.name)) continue;
          const meta = join(subDir, `${s.name.slice(0, -6)}.meta.json`);
          out.push({
            id: s.name.slice(6, -6),
            path: join(subDir, s.name),
            projectDir,
            parentSessionId: f.name,
            metaPath: existsSync(meta) ? meta : undefined,
            kind: 'subagent',
          });
        }
      }
    }
  }
  return out;
}

/**
 * The file of one session without listing every session: a stat per project folder for
 * `<id>.jsonl` and `agent-<id>.jsonl`, then the `subagents/` folders.
 */
export async function locateSessionFile(env: DriverEnv, id: string): Promise<SessionFile | undefined> {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  const root = projectsDir(env);
  const dirs = dirEntries(root)
    .filter((d) => d.isDirectory())
    .map((d) => join(root, d.name));
  for (const projectDir of dirs) {
    const p = join(projectDir, `${id}.jsonl`);
    if (existsSync(p)) return { id, path: p, projectDir, kind: 'session' };
  }
  for (const projectDir of dirs) {
    const p = join(projectDir, `agent-${id}.jsonl`);
    if (existsSync(p)) return { id, path: p, projectDir, kind: 'legacy-subagent' };
  }
  for (const projectDir of dirs) {
    for (const d of dirEntries(projectDir)) {
      if (!d.isDirectory()) continue;
      const p = join(projectDir, d.name, 'subagents', `agent-${id}.jsonl`);
      if (existsSync(p)) {
        const meta = join(projectDir, d.name, 'subagents', `agent-${id}.meta.json`);
        return {
          id,
          path: p,
          projectDir,
          parentSessionId: d.name,
          metaPath: existsSync(meta) ? meta : undefined,
          kind: 'subagent',
        };
      }
    }
  }
  return undefined;
}
