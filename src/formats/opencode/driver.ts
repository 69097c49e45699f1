/**
 * The OpenCode driver: sessions in `$XDG_DATA_HOME/opencode/opencode.db` (or `$OPENCODE_DB`) and
 * in the JSON storage of earlier versions beside it; a session in both is read from the database.
 * New sessions and forks go into the database (or, where there is only JSON storage, into new
 * JSON files), with fresh ids in OpenCode's scheme, under the project whose worktree holds the
 * session's directory (OpenCode's git project id, or `global`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  GetMessagesOptions,
  SessionFilter,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import type { Context, ContextOptions } from '../../model/tree.js';
import type { Message, ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { applyFilter, DriverBase } from '../shared/base.js';
import { opencodeContext } from './context.js';
import { encodeSession } from './encode.js';
import { sessionFromOpencode } from './parse.js';
import {
  isoOf,
  type Json,
  newId,
  num,
  type OcSessionData,
  obj,
  opencodeDataDir,
  opencodeDbPath,
  opencodeStorageDir,
  SOURCE,
  str,
} from './records.js';
import { findProject, listSessionRows, readSessionData, sessionExists, writeSessionData } from './sqlite.js';
import { listLegacyProjects, listLegacySessions, readLegacySession, writeLegacySession } from './storage.js';

function infoToSummary(info: Json, messageCount: number, path: string, project?: { id: string; worktree: string }): SessionInfo {
  const time = obj(info.time) ?? {};
  const tokens = obj(info.tokens);
  const cache = obj(tokens?.cache);
  return {
    id: str(info.id) ?? '',
    source: SOURCE,
    project: str(info.directory) ?? project?.worktree,
    ...(str(info.title) !== undefined ? { title: str(info.title) } : {}),
    createdAt: isoOf(time.created),
    updatedAt: isoOf(time.updated ?? time.created),
    messageCount,
    parentId: str(info.parentID) ?? null,
    ...(tokens
      ? {
          usage: {
            input: num(tokens.input) ?? 0,
            output: num(tokens.output) ?? 0,
            cacheRead: num(cache?.read) ?? 0,
            cacheWrite: num(cache?.write) ?? 0,
            reasoning: num(tokens.reasoning) ?? 0,
          },
        }
      : {}),
    ...(num(info.cost) !== undefined ? { cost: num(info.cost) } : {}),
    path,
    meta: { projectID: str(info.projectID), ...(project ? { worktree: project.worktree } : {}) },
  };
}

/** The project whose worktree holds the directory (the longest such worktree; `/` never matches). */
function longestMatch(
  projects: { id: string; worktree: string }[],
  directory: string,
): { id: string; worktree: string } | undefined {
  let best: { id: string; worktree: string } | undefined;
  for (const p of projects) {
    if (p.worktree === '/' || !(directory === p.worktree || directory.startsWith(`${p.worktree}/`))) continue;
    if (!best || p.worktree.length > best.worktree.length) best = p;
  }
  return best;
}

/** OpenCode's title for a fork: "<title> (fork #n)". */
export function forkTitle(title: string | undefined): string {
  const base = title ?? 'New session';
  const m = /^(.*) \(fork #(\d+)\)$/.exec(base);
  return m ? `${m[1]} (fork #${Number(m[2]) + 1})` : `${base} (fork #1)`;
}

/** The project OpenCode would file a directory under: its git root commit, else `global`. */
export function gitProjectOf(directory: string): { id: string; worktree: string; vcs: string } | undefined {
  let dir = directory;
  for (;;) {
    const git = join(dir, '.git');
    if (existsSync(git)) {
      // OpenCode caches the project id in .git/opencode.
      const cached =
        statSync(git).isDirectory() && existsSync(join(git, 'opencode'))
          ? readFileSync(join(git, 'opencode'), 'utf8').trim()
          : '';
      if (cached) return { id: cached, worktree: dir, vcs: 'git' };
      const r = spawnSync('git', ['rev-list', '--max-parents=0', '--all'], { cwd: dir, encoding: 'utf8' });
      const roots = (r.stdout ?? '')
        .split('\n')
        .map((s) => s.trim())
        .filter(Boolean)
        .sort();
      return roots[0] ? { id: roots[0], worktree: dir, vcs: 'git' } : undefined;
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export class OpenCodeDriver extends DriverBase {
  readonly name = SOURCE;
  readonly capabilities: DriverCapabilities = {
    read: true,
    write: true,
    append: false,
    fork: true,
    branch: false,
    delete: false,
    title: false,
    search: false,
  };

  constructor(private readonly env: DriverEnv) {
    super();
  }

  get dbPath(): string {
    return opencodeDbPath(this.env);
  }

  get storagePath(): string {
    return opencodeStorageDir(this.env);
  }

  /**
   * Every database to read: `$OPENCODE_DB` alone when set; else `opencode.db` and the databases of
   * other release channels beside it (`opencode-<channel>.db`, which OpenCode's beta/dev builds use).
   */
  dbPaths(): string[] {
    if (this.env.env.OPENCODE_DB) return existsSync(this.dbPath) ? [this.dbPath] : [];
    const dir = opencodeDataDir(this.env);
    let channels: string[] = [];
    try {
      channels = readdirSync(dir)
        .filter((f) => /^opencode-[A-Za-z0-9._-]+\.db$/.test(f))
        .sort()
        .map((f) => join(dir, f));
    } catch {
      channels = [];
    }
    return [...(existsSync(this.dbPath) ? [this.dbPath] : []), ...channels];
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const out = new Map<string, SessionInfo>();
    for (const db of this.dbPaths()) {
      for (const r of listSessionRows(db)) {
        const id = str(r.info.id) ?? '';
        if (!out.has(id)) out.set(id, infoToSummary(r.info, r.messageCount, db, r.project));
      }
    }
    for (const ref of await listLegacySessions(this.storagePath)) {
      const id = str(ref.info.id) ?? '';
      if (out.has(id)) continue;
      let count = 0;
      try {
        const { readdir } = await import('node:fs/promises');
        count = (await readdir(join(this.storagePath, 'message', id))).filter((f) => f.endsWith('.json')).length;
      } catch {
        count = 0;
      }
      out.set(id, infoToSummary(ref.info, count, ref.file, ref.project));
    }
    return applyFilter([...out.values()], filter);
  }

  /** The session's OpenCode data as stored, and where it came from. */
  async getSessionData(id: string, warnings: ParseWarning[] = []): Promise<{ data: OcSessionData; file: string } | undefined> {
    for (const db of this.dbPaths()) {
      const data = readSessionData(db, id, warnings);
      if (data) return { data, file: db };
    }
    const ref = (await listLegacySessions(this.storagePath, warnings)).find((r) => r.info.id === id);
    if (!ref) return undefined;
    return { data: await readLegacySession(this.storagePath, ref, warnings), file: ref.file };
  }

  async getSession(id: string): Promise<Session | undefined> {
    const warnings: ParseWarning[] = [];
    const found = await this.getSessionData(id, warnings);
    if (!found) return undefined;
    return sessionFromOpencode(found.data, { file: found.file, warnings });
  }

  override async getContext(sessionId: string, opts: ContextOptions = {}): Promise<Context> {
    return opencodeContext(await this.requireSession(sessionId), opts);
  }

  override async getMessages(sessionId: string, opts: GetMessagesOptions = {}): Promise<Message[]> {
    const s = await this.requireSession(sessionId);
    const own = opencodeContext(s, { leafId: opts.leafId }).messages;
    if (!opts.includeAncestors || !s.parentId) return own;
    return [...(await this.getMessages(s.parentId, { includeAncestors: true })), ...own];
  }

  private target(): 'db' | 'storage' {
    if (existsSync(this.dbPath)) return 'db';
    if (existsSync(join(this.storagePath, 'session'))) return 'storage';
    throw new ThreadbaseError('no_store', 'no OpenCode database here; run OpenCode once so it creates its schema', {
      file: this.dbPath,
    });
  }

  private async projectFor(directory: string, target: 'db' | 'storage'): Promise<{ id: string; worktree: string; vcs?: string }> {
    const known =
      target === 'db' ? findProject(this.dbPath, directory) : longestMatch(await listLegacyProjects(this.storagePath), directory);
    if (known) return known;
    return gitProjectOf(directory) ?? { id: 'global', worktree: '/' };
  }

  private async write(session: Session, opts: { keepId?: boolean; title?: string; leafId?: string }): Promise<SessionInfo> {
    const target = this.target();
    const directory = session.project ?? this.env.home;
    const project = await this.projectFor(directory, target);
    const taken = (id: string) =>
      target === 'db' ? sessionExists(this.dbPath, id) : existsSync(join(this.storagePath, 'session', project.id, `${id}.json`));
    const sessionId = opts.keepId && session.id.startsWith('ses_') && !taken(session.id) ? session.id : newId('ses');
    const { data, warnings } = encodeSession(session, {
      sessionId,
      projectID: project.id,
      worktree: project.worktree,
      directory,
      ...(opts.title !== undefined ? { title: opts.title } : {}),
      ...(opts.leafId ? { leafId: opts.leafId } : {}),
    });
    data.project = project;
    let path: string;
    if (target === 'db') {
      writeSessionData(this.dbPath, data, { vcs: project.vcs });
      path = this.dbPath;
    } else path = await writeLegacySession(this.storagePath, data);
    const info = infoToSummary(data.info, data.messages.length, path, project);
    if (warnings.length) info.meta = { ...(info.meta ?? {}), warnings };
    return info;
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    return this.write(session, { keepId: opts.keepId });
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.getSession(sessionId);
    if (!s) throw new NotFoundError('opencode session', sessionId);
    if (opts.at && !s.entries.some((e) => e.id === opts.at)) throw new NotFoundError('entry', opts.at, { file: s.path });
    const written = await this.write(s, { title: opts.title ?? forkTitle(s.title), ...(opts.at ? { leafId: opts.at } : {}) });
    return { ...written, parentEntryId: opts.at, meta: { ...(written.meta ?? {}), forkedFrom: sessionId } };
  }

  resumeCommand(session: SessionInfo): string {
    const dir = session.project ? `cd ${JSON.stringify(session.project)} && ` : '';
    return `${dir}opencode --session ${session.id}`;
  }
}
