/**
 * The Gemini CLI driver (read-only): saved chats and `/chat save` checkpoints under
 * `~/.gemini/tmp/<project>/` (`$GEMINI_CLI_HOME/.gemini` when that is set, as Gemini CLI does).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { DriverCapabilities, DriverEnv, SessionFilter } from '../../model/driver.js';
import type { Session, SessionInfo } from '../../model/types.js';
import { applyFilter, DriverBase, dirEntries, matchesSessionText, READ_ONLY_CAPABILITIES, statStamp } from '../shared/base.js';
import { checkpointId, type ProjectDir, readChat, readCheckpoint, SOURCE } from './chats.js';
import { isObject } from './content.js';

export function geminiDir(env: DriverEnv): string {
  return join(env.env.GEMINI_CLI_HOME || env.home, '.gemini');
}

interface Located {
  file: string;
  kind: 'chat' | 'checkpoint';
  where: ProjectDir;
}

export class GeminiDriver extends DriverBase {
  readonly name = SOURCE;
  readonly capabilities: DriverCapabilities = READ_ONLY_CAPABILITIES;
  private cache = new Map<string, { mtimeMs: number; size: number; session: Session }>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  /** Project paths by folder: `.project_root` markers, projects.json, and sha256 folder names of known paths. */
  private async projects(tmp: string): Promise<Map<string, string>> {
    const byDir = new Map<string, string>();
    try {
      const reg: unknown = JSON.parse(await fs.readFile(join(geminiDir(this.env), 'projects.json'), 'utf8'));
      if (isObject(reg) && isObject(reg.projects)) {
        for (const [path, slug] of Object.entries(reg.projects)) {
          if (typeof slug === 'string') byDir.set(slug, path);
          byDir.set(createHash('sha256').update(path).digest('hex'), path);
        }
      }
    } catch {
      // no registry (older Gemini CLI): folder names are hashes, projects unknown unless marked
    }
    for (const d of dirEntries(tmp)) {
      if (!d.isDirectory()) continue;
      try {
        byDir.set(d.name, (await fs.readFile(join(tmp, d.name, '.project_root'), 'utf8')).trim());
      } catch {
        // no marker
      }
    }
    return byDir;
  }

  private async locate(): Promise<Located[]> {
    const tmp = join(geminiDir(this.env), 'tmp');
    const projects = await this.projects(tmp);
    const out: Located[] = [];
    for (const d of dirEntries(tmp)) {
      if (!d.isDirectory() || d.name === 'bin') continue;
      const where: ProjectDir = { dirName: d.name, project: projects.get(d.name) };
      const projectDir = join(tmp, d.name);
      for (const f of dirEntries(projectDir)) {
        if (f.isFile() && /^checkpoint-.+\.json$/.test(f.name))
          out.push({ file: join(projectDir, f.name), kind: 'checkpoint', where });
      }
      const chats = join(projectDir, 'chats');
      for (const f of dirEntries(chats)) {
        if (f.isFile() && /^session-.+\.jsonl?$/.test(f.name)) out.push({ file: join(chats, f.name), kind: 'chat', where });
        else if (f.isDirectory()) {
          // sub-agent chats of one parent session
          for (const g of dirEntries(join(chats, f.name))) {
            if (g.isFile() && g.name.endsWith('.jsonl')) out.push({ file: join(chats, f.name, g.name), kind: 'chat', where });
          }
        }
      }
    }
    return out;
  }

  private async load(loc: Located): Promise<Session> {
    const st = await fs.stat(loc.file);
    const hit = this.cache.get(loc.file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.session;
    const session = loc.kind === 'chat' ? await readChat(loc.file, loc.where) : await readCheckpoint(loc.file, loc.where);
    this.cache.set(loc.file, { mtimeMs: st.mtimeMs, size: st.size, session });
    return session;
  }

  /** Every session, one per id: a legacy .json that Gemini CLI migrated to .jsonl on resume yields to the .jsonl. */
  private async all(): Promise<Session[]> {
    const byId = new Map<string, Session>();
    for (const loc of await this.locate()) {
      let s: Session;
      try {
        s = await this.load(loc);
      } catch {
        continue;
      }
      const prev = byId.get(s.id);
      const better =
        !prev ||
        (s.path?.endsWith('.jsonl') && !prev.path?.endsWith('.jsonl')) ||
        (prev.path?.endsWith('.jsonl') === s.path?.endsWith('.jsonl') && s.updatedAt > prev.updatedAt);
      if (better) byId.set(s.id, s);
    }
    // A sub-agent's call in its parent carries the sub-agent's session id (ToolCallRecord.agentId).
    return [...byId.values()].map((s) => {
      const parent = s.parentId ? byId.get(s.parentId) : undefined;
      const call = parent?.entries
        .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
        .find((p) => p.type === 'tool_call' && p.meta?.agentId === s.id);
      return call?.type === 'tool_call' ? { ...s, parentToolCallId: call.id } : s;
    });
  }

  /**
   * StampedListing: every chat and checkpoint file, the project registry and markers (a listing
   * parses every chat: one session's title or sub-agent link can depend on another file).
   */
  async listingStamp(): Promise<string> {
    const tmp = join(geminiDir(this.env), 'tmp');
    const located = await this.locate();
    const dirs = new Set(located.map((l) => join(tmp, l.where.dirName)));
    return statStamp([
      join(geminiDir(this.env), 'projects.json'),
      ...[...dirs].map((d) => join(d, '.project_root')),
      ...located.map((l) => l.file),
    ]);
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const infos = (await this.all())
      .filter((s) => matchesSessionText(s, s.title, filter?.text))
      .map(({ entries: _e, warnings: _w, raw: _r, leafId: _l, ...info }) => info);
    return applyFilter(infos, { ...filter, text: undefined });
  }

  async getSession(id: string): Promise<Session | undefined> {
    // A checkpoint id names its file directly.
    const m = /^checkpoint:([^:]+):(.+)$/.exec(id);
    if (m) {
      for (const loc of await this.locate()) {
        if (loc.kind === 'checkpoint' && checkpointId(loc.where, loc.file) === id) return this.load(loc);
      }
      return undefined;
    }
    return (await this.all()).find((s) => s.id === id);
  }
}
