/**
 * The Continue CLI (`cn`, @continuedev/cli) driver: reads the sessions under
 * `$CONTINUE_GLOBAL_DIR/sessions/` (default `~/.continue`, as Continue resolves it), one `<id>.json`
 * each, with `sessions.json` listing them (the time each was created); writes a session as a new
 * `<id>.json` that `cn --fork <id>` resumes.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DriverCapabilities, DriverEnv, SessionFilter, SourceUnit, UnitRead, WriteOptions } from '../../model/driver.js';
import { pathToLeaf } from '../../model/tree.js';
import type { Session, SessionInfo } from '../../model/types.js';
import { makeDirectory, writeFileAtomic } from '../shared/atomic.js';
import { DriverBase, dirEntries, fileUnits, listLoadedSessions, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { jsonValueOf } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { isObject, type ListedSession, readContinueSession, SOURCE, UNTITLED } from './history.js';

/** Continue's global folder: CONTINUE_GLOBAL_DIR (relative to the working directory, as Continue takes it), else ~/.continue. */
export function continueDir(env: DriverEnv): string {
  const given = env.env.CONTINUE_GLOBAL_DIR?.trim();
  return given ? resolve(given) : join(env.home, '.continue');
}

interface Located {
  id: string;
  file: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class ContinueDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 2: a call without a tool call state marked (meta.continueWithoutState), a compaction summary as cn's own;
   * 3: a refused call's result marked `refused`, a state without output read as cn's "Tool cancelled", marked `cancelled`;
   * 4: a `tool` item's result marked (meta.continueToolItem), states in another order than the calls kept (meta.continueStateOrder)
   * 5: a session threadbase wrote says so (its first item's `threadbase`: SessionInfo.writtenBy)
   * 6: updatedAt the last recorded time (sessions.json's, kept entries'), no longer the file's modification time
   */
  readonly readerVersion = 6;
  // new sessions only: Continue rewrites a session's file whole at every turn
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true };
  private cache = new Map<string, { stamp: string; session: Session }>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  private sessionsDir(): string {
    return join(continueDir(this.env), 'sessions');
  }

  private locate(): Located[] {
    const dir = this.sessionsDir();
    return dirEntries(dir)
      .filter((d) => d.isFile() && d.name.endsWith('.json') && d.name !== 'sessions.json' && !d.name.startsWith('.'))
      .map((d) => ({ id: d.name.slice(0, -'.json'.length), file: join(dir, d.name) }));
  }

  /** sessions.json's rows by session id (Continue's listing: when each was created, its title). */
  private async listed(): Promise<Map<string, ListedSession>> {
    const out = new Map<string, ListedSession>();
    let text: string;
    try {
      text = await fs.readFile(join(this.sessionsDir(), 'sessions.json'), 'utf8');
    } catch {
      return out;
    }
    const rows = jsonValueOf(text);
    if (!Array.isArray(rows)) return out;
    for (const r of rows)
      if (isObject(r) && typeof r.sessionId === 'string')
        out.set(r.sessionId, {
          ...(typeof r.dateCreated === 'string' ? { dateCreated: r.dateCreated } : {}),
          ...(typeof r.title === 'string' ? { title: r.title } : {}),
        });
    return out;
  }

  private async read(loc: Located, listed: ListedSession | undefined): Promise<Session> {
    const st = statSync(loc.file);
    const created = st.birthtimeMs > 0 ? st.birthtime : st.mtime;
    return readContinueSession(loc.file, listed, created.toISOString());
  }

  private async load(loc: Located, listing: Map<string, ListedSession>): Promise<Session> {
    const st = statSync(loc.file);
    const listed = listing.get(loc.id);
    const stamp = JSON.stringify([st.size, st.mtimeMs, listed ?? null]);
    const hit = this.cache.get(loc.file);
    if (hit?.stamp === stamp) return hit.session;
    const session = await this.read(loc, listed);
    this.cache.set(loc.file, { stamp, session });
    return session;
  }

  private async all(): Promise<Session[]> {
    const listing = await this.listed();
    const out: Session[] = [];
    for (const loc of this.locate()) {
      try {
        out.push(await this.load(loc, listing));
      } catch {
        // gone meanwhile, or unreadable: the rest still list
      }
    }
    return out;
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    return listLoadedSessions(await this.all(), filter);
  }

  async getSession(id: string): Promise<Session | undefined> {
    const loc = this.locate().find((l) => l.id === id);
    return loc ? this.load(loc, await this.listed()) : undefined;
  }

  /**
   * IncrementalSource: each session file by its size and time (Continue rewrites it whole), its id
   * its name; the version is its row in sessions.json (the time it was created, its title).
   */
  async listUnits(): Promise<SourceUnit[]> {
    const listing = await this.listed();
    return fileUnits(
      this.locate(),
      (l) => l.file,
      (l, st): SourceUnit => ({
        key: l.file,
        sessionId: l.id,
        path: l.file,
        size: st.size,
        mtimeMs: st.mtimeMs,
        version: JSON.stringify(listing.get(l.id) ?? null),
      }),
    );
  }

  async readUnit(unit: SourceUnit): Promise<UnitRead | undefined> {
    const loc = this.locate().find((l) => l.file === unit.key);
    if (!loc) return undefined;
    return { session: await this.read(loc, (await this.listed()).get(loc.id)) };
  }

  /**
   * Writes a session's current branch as a new Continue session file (encode.ts), whole and
   * atomically. sessions.json, which Continue rewrites itself, is left alone: Continue adds the
   * session's row when it next saves it (`cn --fork <id>`, `cn --resume` load the file by itself).
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const keep = opts.keepId && UUID.test(session.id) && !this.locate().some((l) => l.id === session.id);
    const id = keep ? session.id : randomUUID();
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeContinueSession } = await import('./encode.js');
    const { doc, warnings } = encodeContinueSession(pathToLeaf(session), {
      sessionId: id,
      title: session.title ?? UNTITLED,
      workspaceDirectory: resolve(session.project ?? this.env.home),
    });
    const file = join(this.sessionsDir(), `${id}.json`);
    await makeDirectory(this.sessionsDir());
    await writeFileAtomic(file, JSON.stringify(doc, null, 2), { exclusive: true });
    const written = await this.read({ id, file }, undefined);
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = written;
    return warnings.length ? { ...info, meta: { ...info.meta, warnings } } : info;
  }

  /** `cn --fork <id>` in the session's project: Continue goes on from that session's history (by id). */
  resumeCommand(session: SessionInfo): string {
    const { CONTINUE_GLOBAL_DIR } = this.env.env;
    return resumeCommandLine(session.project, { CONTINUE_GLOBAL_DIR }, `cn --fork ${shellQuote(session.id)}`);
  }
}
