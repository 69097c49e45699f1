/**
 * The OpenCode driver: sessions in `$XDG_DATA_HOME/opencode/opencode.db` (or `$OPENCODE_DB`) and
 * in the JSON storage of earlier versions beside it; a session in both is read from the database.
 * New sessions and forks go into the database (or, where there is only JSON storage, into new
 * JSON files), with fresh ids in OpenCode's scheme, under the project whose worktree holds the
 * session's directory (OpenCode's git project id, or `global`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  GetMessagesOptions,
  ResumeAdvice,
  SessionFilter,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { resumeContextOf } from '../../model/resume.js';
import type { Entry, Message, ParseWarning, Session, SessionInfo } from '../../model/types.js';
import { applyFilter, DriverBase, statStamp } from '../shared/base.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { linkCallToChild } from './children.js';
import { opencodeContext } from './context.js';
import type { EncodeSeed } from './encode.js';
import { INTERRUPTED_TOOL, isOcEntryRaw, sessionFromOpencode, usageOf } from './parse.js';
import { gitProjectOf } from './project.js';
import {
  isoOf,
  type Json,
  newId,
  num,
  type OcMessage,
  type OcSessionData,
  OPENCODE,
  type OpenCodeFlavor,
  obj,
  opencodeDataDir,
  opencodeDbPath,
  opencodeStorageDir,
  str,
  updatedTimeOf,
} from './records.js';
import { openCodeResumeAdvice } from './resume-model.js';
import {
  appendSessionData,
  findProject,
  listSessionRows,
  readLastMessageId,
  readSessionData,
  sessionExists,
  setSessionTitle,
  writeSessionData,
} from './sqlite.js';
import {
  appendLegacySession,
  type LegacySessionRef,
  legacyListingPaths,
  listLegacyProjects,
  listLegacySessions,
  readLegacySession,
  setLegacyTitle,
  writeLegacySession,
} from './storage.js';

function infoToSummary(
  source: string,
  info: Json,
  messageCount: number,
  path: string,
  project?: { id: string; worktree: string },
): SessionInfo {
  const time = obj(info.time) ?? {};
  const tokens = obj(info.tokens);
  return {
    id: str(info.id) ?? '',
    source,
    project: str(info.directory) ?? project?.worktree,
    ...(str(info.title) !== undefined ? { title: str(info.title) } : {}),
    createdAt: isoOf(time.created),
    updatedAt: isoOf(updatedTimeOf(info) ?? time.created),
    messageCount,
    parentId: str(info.parentID) ?? null,
    ...(tokens ? { usage: usageOf(tokens) } : {}),
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

/** Messages in OpenCode's order: by creation time, then id. */
function inOrder(messages: readonly OcMessage[]): OcMessage[] {
  const created = (m: OcMessage) => num(obj(m.info.time)?.created) ?? 0;
  return [...messages].sort((a, b) => {
    const d = created(a) - created(b);
    if (d !== 0) return d;
    const ia = str(a.info.id) ?? '';
    const ib = str(b.info.id) ?? '';
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  });
}

/** What an append continues from: the last user message, the model in use, tool calls still without a result. */
function seedOf(messages: readonly OcMessage[]): EncodeSeed {
  const seed: EncodeSeed = {};
  const tools = new Map<string, Json>();
  for (const m of messages) {
    if (m.info.role === 'user') {
      seed.lastUserId = str(m.info.id);
      const model = obj(m.info.model);
      if (str(model?.modelID))
        seed.model = { providerID: str(model?.providerID) ?? 'anthropic', modelID: str(model?.modelID) as string };
    } else if (m.info.role === 'assistant' && str(m.info.modelID)) {
      seed.model = { providerID: str(m.info.providerID) ?? 'anthropic', modelID: str(m.info.modelID) as string };
    }
    for (const p of m.parts) {
      if (p.type !== 'tool' || !str(p.callID)) continue;
      const state = obj(p.state);
      const open =
        state?.status === 'pending' ||
        state?.status === 'running' ||
        (state?.status === 'error' && state.error === INTERRUPTED_TOOL);
      // the owning message's id, which a legacy part file may not repeat, locates the part when it is updated
      if (open) tools.set(str(p.callID) as string, { ...p, messageID: str(p.messageID) ?? m.info.id });
      else tools.delete(str(p.callID) as string);
    }
  }
  if (tools.size) seed.tools = tools;
  return seed;
}

/** OpenCode's title for a fork: "<title> (fork #n)". */
export function forkTitle(title: string | undefined): string {
  const base = title ?? 'New session';
  const m = /^(.*) \(fork #(\d+)\)$/.exec(base);
  return m ? `${m[1]} (fork #${Number(m[2]) + 1})` : `${base} (fork #1)`;
}

export class OpenCodeDriver extends DriverBase {
  readonly name: string;
  /**
   * 1: reasoning and tool parts' provider metadata, a revert at a part, summaries of files alone;
   * 2: a user message threadbase wrote for a branch summary (its text part's `threadbase.branchSummary`) is that branch summary;
   * 3: an assistant's image kept beside its note (encode.ts, `threadbase.image`) is that image;
   * 4: a call refused (a permission error) or aborted ("Tool execution aborted") is marked `refused`/`cancelled` (denials.ts).
   * 5: a reply threadbase copied that had no response id keeps its entry id and time (`threadbase.entryId`,
   *    `timestamp`) and gets no response id made up.
   * 6: a session threadbase wrote says so (its first message's `threadbase.writtenBy`: SessionInfo.writtenBy).
   * 7: a prompt's plain-text file OpenCode records as its Read note, text and file part is one file part again;
   *    a result's attachments and `threadbase.resultContent` are its content; a split response is one message.
   * 8: an empty text is a single space in every step of a message that holds signed reasoning, not only in its step.
   * 9: a compaction threadbase wrote keeps its entry id and time (its summary's `threadbase.entryId`, `timestamp`),
   *    so a copy is counted once; the summary's model is kept even where its request recorded no usage.
   * 10: a compaction's summary request has a response id (CompactionEntry.responseId): the one threadbase kept
   *    (`threadbase.responseId`), else for a summary OpenCode wrote one made of its times and tokens, so
   *    OpenCode's own fork (new message ids) counts it once.
   * 11: a text part marked `threadbase.thinking` (a reply of unsigned thinking only, written as text OpenCode
   *    sends) is thinking again (meta.sentAsText).
   * 12: a session threadbase wrote into Kilo has its own last time (its row's `metadata.threadbase.lastUpdated`)
   *    as updatedAt while its time_updated is still the write's (`writtenAt`; records.ts updatedTimeOf).
   */
  readonly readerVersion = 12;
  readonly capabilities: DriverCapabilities = {
    read: true,
    write: true,
    append: true,
    fork: true,
    branch: false,
    delete: false,
    title: true,
    search: false,
  };

  /** `flavor`: a fork of OpenCode keeping its records under its own names (records.ts) */
  constructor(
    private readonly env: DriverEnv,
    private readonly flavor: OpenCodeFlavor = OPENCODE,
  ) {
    super();
    this.name = flavor.source;
  }

  get dbPath(): string {
    return opencodeDbPath(this.env, this.flavor);
  }

  get storagePath(): string {
    return opencodeStorageDir(this.env, this.flavor);
  }

  /**
   * Every database to read: `$OPENCODE_DB` alone when set; else `opencode.db` and the databases of
   * other release channels beside it (`opencode-<channel>.db`, which OpenCode's beta/dev builds use).
   */
  dbPaths(): string[] {
    if (this.env.env[this.flavor.dbEnv]) return existsSync(this.dbPath) ? [this.dbPath] : [];
    const dir = opencodeDataDir(this.env, this.flavor);
    let channels: string[] = [];
    try {
      channels = readdirSync(dir)
        .filter((f) => this.flavor.channelDb.test(f))
        .sort()
        .map((f) => join(dir, f));
    } catch {
      channels = [];
    }
    return [...(existsSync(this.dbPath) ? [this.dbPath] : []), ...channels];
  }

  /** StampedListing: the databases with their WAL files, and the JSON storage's files (few stats, no query). */
  async listingStamp(): Promise<string> {
    const dbs = this.dbPaths().flatMap((db) => [db, `${db}-wal`]);
    return statStamp([...dbs, ...legacyListingPaths(this.storagePath)]);
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const out = new Map<string, SessionInfo>();
    for (const db of this.dbPaths()) {
      for (const r of listSessionRows(db, this.flavor.label)) {
        const id = str(r.info.id) ?? '';
        if (!out.has(id)) out.set(id, infoToSummary(this.name, r.info, r.messageCount, db, r.project));
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
      out.set(id, infoToSummary(this.name, ref.info, count, ref.file, ref.project));
    }
    return applyFilter([...out.values()], filter);
  }

  /** The session's OpenCode data as stored, and where it came from. */
  async getSessionData(id: string, warnings: ParseWarning[] = []): Promise<{ data: OcSessionData; file: string } | undefined> {
    for (const db of this.dbPaths()) {
      const data = readSessionData(db, id, warnings, this.flavor.label);
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
    return sessionFromOpencode(found.data, { file: found.file, warnings, source: this.flavor.source, label: this.flavor.label });
  }

  override async getMessages(sessionId: string, opts: GetMessagesOptions = {}): Promise<Message[]> {
    const s = await this.requireSession(sessionId);
    // a fork of OpenCode registers its own (what it adds when sending)
    const own = (resumeContextOf(this.name) ?? opencodeContext)(s, { leafId: opts.leafId }).messages;
    if (!opts.includeAncestors || !s.parentId) return own;
    return [...(await this.getMessages(s.parentId, { includeAncestors: true })), ...own];
  }

  private target(): 'db' | 'storage' {
    if (existsSync(this.dbPath)) return 'db';
    if (existsSync(join(this.storagePath, 'session'))) return 'storage';
    throw new ThreadbaseError(
      'no_store',
      `no ${this.flavor.label} database here; run ${this.flavor.label} once so it creates its schema`,
      { file: this.dbPath },
    );
  }

  private async projectFor(directory: string, target: 'db' | 'storage'): Promise<{ id: string; worktree: string; vcs?: string }> {
    if (target === 'db') {
      // OpenCode files a git directory under the id it resolves now, whatever project rows the
      // database holds (an older OpenCode, or an earlier write, may have left another one for it)
      return (
        gitProjectOf(directory, this.flavor.gitCacheFile) ??
        findProject(this.dbPath, directory, this.flavor.label) ?? { id: 'global', worktree: '/' }
      );
    }
    return (
      longestMatch(await listLegacyProjects(this.storagePath), directory) ??
      gitProjectOf(directory, this.flavor.gitCacheFile) ?? { id: 'global', worktree: '/' }
    );
  }

  private async write(
    session: Session,
    opts: { keepId?: boolean; title?: string; leafId?: string; createdMs?: number; forkedFrom?: Json; parentID?: string },
  ): Promise<SessionInfo> {
    const target = this.target();
    const directory = session.project ?? this.env.home;
    const project = await this.projectFor(directory, target);
    const taken = (id: string) =>
      target === 'db'
        ? sessionExists(this.dbPath, id, this.flavor.label)
        : existsSync(join(this.storagePath, 'session', project.id, `${id}.json`));
    const sessionId = opts.keepId && session.id.startsWith('ses_') && !taken(session.id) ? session.id : newId('ses');
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeSession } = await import('./encode.js');
    const { data, warnings } = encodeSession(session, {
      sessionId,
      projectID: project.id,
      worktree: project.worktree,
      directory,
      flavor: this.flavor,
      ...(opts.title !== undefined ? { title: opts.title } : {}),
      ...(opts.leafId ? { leafId: opts.leafId } : {}),
      ...(opts.createdMs !== undefined ? { createdMs: opts.createdMs } : {}),
      ...(opts.forkedFrom ? { forkedFrom: opts.forkedFrom } : {}),
      ...(opts.parentID ? { parentID: opts.parentID } : {}),
    });
    data.project = project;
    let path: string;
    if (target === 'db') {
      writeSessionData(this.dbPath, data, { vcs: project.vcs, label: this.flavor.label });
      path = this.dbPath;
    } else path = await writeLegacySession(this.storagePath, data);
    const info = infoToSummary(this.name, data.info, data.messages.length, path, project);
    if (warnings.length) info.meta = { ...(info.meta ?? {}), warnings };
    return info;
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    return this.write(session, { keepId: opts.keepId });
  }

  /**
   * A sub-agent session as OpenCode's task tool makes one (children.ts): `parentID` the parent, and
   * the parent's tool part for the call that ran it naming the child in its metadata.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const written = await this.write(child, { parentID: parent.id });
    const call = child.parentToolCallId;
    // the legacy JSON storage keeps the parent link alone
    const linked =
      call !== undefined && written.path === this.dbPath && linkCallToChild(this.dbPath, parent.id, call, written.id);
    return linked ? { ...written, parentToolCallId: call } : written;
  }

  /**
   * Like `opencode run --fork`: the messages copied with new ids into a new session titled
   * "<title> (fork #n)", created now, with no parent (OpenCode's parentID means a sub-agent, and
   * its fork records no link to the original; `forkedFrom` is only in the returned meta).
   */
  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.getSession(sessionId);
    if (!s) throw new NotFoundError(`${this.name} session`, sessionId);
    if (opts.at && !s.entries.some((e) => e.id === opts.at)) throw new NotFoundError('entry', opts.at, { file: s.path });
    const original = obj(obj(s.raw)?.info);
    const written = await this.write(s, {
      title: opts.title ?? forkTitle(s.title),
      createdMs: Date.now(),
      ...(original ? { forkedFrom: original } : {}),
      ...(opts.at ? { leafId: opts.at } : {}),
    });
    return { ...written, parentEntryId: opts.at, meta: { ...(written.meta ?? {}), forkedFrom: sessionId } };
  }

  /**
   * Appends entries at the end of the session (OpenCode sessions are linear, so the first must
   * follow the session's last entry and each the one before it): new message and part rows with
   * ids in OpenCode's scheme, earlier tool calls completed by appended results, the session's
   * totals and time_updated bumped, all in one transaction (or new JSON files in the legacy storage).
   */
  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    if (entries.length === 0) return;
    const dbFile = this.dbPaths().find((db) => sessionExists(db, sessionId, this.flavor.label));
    const expectedLast = dbFile ? readLastMessageId(dbFile, sessionId, this.flavor.label) : undefined;
    const warnings: ParseWarning[] = [];
    const found = await this.getSessionData(sessionId, warnings);
    if (!found) throw new NotFoundError(`${this.name} session`, sessionId);
    const session = sessionFromOpencode(found.data, {
      file: found.file,
      warnings,
      source: this.flavor.source,
      label: this.flavor.label,
    });
    // OpenCode deletes what follows a pending revert on the next prompt: appended messages would go with it.
    if (obj(found.data.info.revert))
      throw new ThreadbaseError(
        'reverted',
        `${this.flavor.label} session ${sessionId} has a pending revert; continue or unrevert it in ${this.flavor.label} before appending`,
        { file: found.file, id: sessionId },
      );
    let parent: string | null = session.entries.at(-1)?.id ?? null;
    for (const e of entries) {
      if (e.parentId !== parent)
        throw new ThreadbaseError(
          'not_linear',
          `${this.flavor.label} sessions are linear: entry ${e.id} must follow ${parent ?? 'the start of the session'}, not ${String(e.parentId)}`,
          { file: found.file, id: e.id },
        );
      parent = e.id;
    }
    const { encodeEntries, totalsOf } = await import('./encode.js');
    const existing = inOrder(found.data.messages);
    const path = entries.map((e, i) => (i === 0 ? { ...e, parentId: null } : e));
    const encoded = encodeEntries(
      path,
      {
        sessionId,
        directory: session.project ?? this.env.home,
        worktree: found.data.project?.worktree ?? str(obj(session.meta)?.worktree) ?? '/',
        flavor: this.flavor,
      },
      {
        ...seedOf(existing),
        messageIds: new Map(
          session.entries.flatMap((e) =>
            isOcEntryRaw(e.raw) ? [[e.id, e.raw.messageID] as const, [e.raw.messageID, e.raw.messageID] as const] : [],
          ),
        ),
      },
    );
    // OpenCode keeps a result inside its call's part: one with no open call cannot be written.
    if (encoded.orphanResults.length)
      throw new ThreadbaseError(
        'orphan_result',
        `tool result ${encoded.orphanResults.join(', ')} answers no open tool call of ${this.flavor.label} session ${sessionId}`,
        { file: found.file, id: entries[0]?.id },
      );
    // Appended messages come after every message already there, whatever their entries' times.
    let floor = Math.max(0, ...existing.map((m) => num(obj(m.info.time)?.created) ?? 0));
    for (const m of encoded.messages) {
      const time = obj(m.info.time) ?? {};
      const created = Math.max(num(time.created) ?? 0, floor + 1);
      m.info.time = {
        ...time,
        created,
        ...(num(time.completed) !== undefined ? { completed: Math.max(num(time.completed) as number, created) } : {}),
      };
      floor = created;
    }
    const totals = totalsOf(encoded.messages);
    if (dbFile && found.file === dbFile) {
      appendSessionData(
        dbFile,
        {
          sessionId,
          messages: encoded.messages,
          updatedParts: encoded.updatedParts,
          expectedLastMessageId: expectedLast,
          ...totals,
        },
        this.flavor.label,
      );
    } else {
      const ref = (await listLegacySessions(this.storagePath)).find((r) => r.info.id === sessionId) as LegacySessionRef;
      await appendLegacySession(this.storagePath, ref, encoded.messages, encoded.updatedParts, totals);
    }
  }

  async setTitle(sessionId: string, title: string): Promise<void> {
    const dbFile = this.dbPaths().find((db) => sessionExists(db, sessionId, this.flavor.label));
    if (dbFile) return setSessionTitle(dbFile, sessionId, title, this.flavor.label);
    const ref = (await listLegacySessions(this.storagePath)).find((r) => r.info.id === sessionId);
    if (!ref) throw new NotFoundError(`${this.name} session`, sessionId);
    await setLegacyTitle(ref, title);
  }

  resumeCommand(session: SessionInfo): string {
    // OpenCode (1.18) runs a session in its own directory: started elsewhere, it prints nothing and
    // does not exit after the turn; without that directory it fails ("Unexpected server error")
    return resumeCommandLine(session.project, {}, `${this.flavor.command} --session ${shellQuote(session.id)}`);
  }

  async resumeAdvice(info: SessionInfo): Promise<ResumeAdvice | undefined> {
    // OpenCode's own providers and config (Kilo's are its own, not probed)
    if (this.name !== 'opencode') return undefined;
    const session = await this.getSession(info.id);
    return session ? openCodeResumeAdvice(this.env, session, this.resumeCommand(info), info.project) : undefined;
  }
}
