/**
 * The pi driver: finds session files under the agent dir (PI_CODING_AGENT_DIR, else ~/.pi/agent;
 * PI_CODING_AGENT_SESSION_DIR, else the `sessionDir` setting, for a flat session dir), reads them, writes new sessions atomically,
 * appends whole lines, branches in place, forks into a new file (pi's --fork: header
 * parentSession) and words summaries for the model as pi does.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  GetMessagesOptions,
  ReadFrom,
  SessionFilter,
  SourceUnit,
  UnitRead,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { buildContext, type Context, type ContextOptions, currentLeaf, indexEntries, pathTo } from '../../model/tree.js';
import type { BranchSummaryEntry, Entry, LabelEntry, Message, MessageEntry, Session, SessionInfo } from '../../model/types.js';
import { appendJsonlLines, toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { applyFilter, DriverBase, dirEntries, fileUnits } from '../shared/base.js';
import { jsonValueOf, readFirstJsonLine } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { childLinkField, childLinkOf } from './children.js';
import { piSendView } from './context.js';
import { firstUserTitle, idOfHeaderlessFile, parsePiFile, SOURCE } from './parse.js';
import {
  branchSummaryText,
  compactionSummaryText,
  isHeader,
  isRecord,
  newEntryId,
  newPiHeader,
  newSessionId,
  PI_SESSION_VERSION,
  type PiRecord,
  sessionDirName,
} from './records.js';

interface CachedFile {
  mtimeMs: number;
  size: number;
  session: Session;
  end: { offset: number; line: number };
}

export interface BranchOptions {
  /** Text of a branch_summary entry recording what the abandoned branch did. */
  summary?: string;
  /** A user message that starts the new branch. */
  message?: string;
}

const PI_CONTEXT_OPTIONS: ContextOptions = {
  compactionText: (c) => compactionSummaryText(c.summary),
  branchSummaryText: (b) => branchSummaryText(b.summary),
  // pi records one message per response and never merges.
  mergeSplitResponses: false,
};

/** The context as pi sends it: errored/aborted turns left out, unanswered tool calls answered (pi's ResumeContext). */
export function piContext(s: Session, opts: ContextOptions = {}): Context {
  const ctx = buildContext(s, { ...PI_CONTEXT_OPTIONS, ...opts });
  return { ...ctx, messages: piSendView(ctx.messages) };
}

export class PiDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 1: thinkingSignature read by api, OpenAI Responses tool ids split, branch summaries' fromId;
   * 2: an assistant's image kept beside its note (encode.ts) read back as the image;
   * 3: branch summaries' details and fromHook;
   * 4: an error result in pi's words for a blocked or aborted call is marked `refused`/`cancelled` (denials.ts);
   * 5: a file without a readable header is dated by its name (not 1970) and synced under the id it is listed by
   * 6: a session threadbase wrote says so (its header's `threadbase.writtenBy`: SessionInfo.writtenBy)
   * 7: of an entry id met twice only the later record is read, as pi finds only it (no made-up cycle cut)
   */
  readonly readerVersion = 7;
  readonly capabilities: DriverCapabilities = {
    read: true,
    write: true,
    append: true,
    fork: true,
    branch: true,
    delete: false,
    title: true,
    search: false,
  };
  private readonly env: DriverEnv;
  private readonly cache = new Map<string, CachedFile>();
  /** The directory threadbase runs in: where a project's own pi settings apply when reading. */
  private readonly cwd: string;

  constructor(env: DriverEnv, opts: { cwd?: string } = {}) {
    super();
    this.env = env;
    this.cwd = opts.cwd ?? process.cwd();
  }

  private expand(p: string): string {
    if (p === '~') return this.env.home;
    return p.startsWith('~/') ? join(this.env.home, p.slice(2)) : p;
  }

  agentDir(): string {
    const d = this.env.env.PI_CODING_AGENT_DIR;
    return d ? this.expand(d) : join(this.env.home, '.pi', 'agent');
  }

  /** A flat session dir set through the environment, if any. */
  private flatSessionDir(): string | undefined {
    const d = this.env.env.PI_CODING_AGENT_SESSION_DIR;
    return d ? this.expand(d) : undefined;
  }

  /**
   * The `sessionDir` setting pi runs with in `cwd` (settings-manager.js getSessionDir): the
   * project's `.pi/settings.json` over the agent dir's `settings.json`, `~` expanded; pi takes a
   * relative path as it is, so against the directory it runs in, the project. A flat dir.
   */
  settingsSessionDir(cwd: string): string | undefined {
    let dir: unknown;
    for (const file of [join(this.agentDir(), 'settings.json'), join(cwd, '.pi', 'settings.json')]) {
      const v = readSettings(file)?.sessionDir;
      // pi's merge: a project value that is present (even null) replaces the global one
      if (v !== undefined) dir = v;
    }
    return typeof dir === 'string' && dir ? resolve(cwd, this.expand(dir)) : undefined;
  }

  sessionsRoot(): string {
    return this.flatSessionDir() ?? join(this.agentDir(), 'sessions');
  }

  /** Where pi keeps the sessions of a working directory. */
  sessionDirFor(cwd: string): string {
    return this.flatSessionDir() ?? this.settingsSessionDir(cwd) ?? join(this.agentDir(), 'sessions', sessionDirName(cwd));
  }

  protected override contextOptions(): ContextOptions {
    return PI_CONTEXT_OPTIONS;
  }

  override async getMessages(sessionId: string, opts: GetMessagesOptions = {}): Promise<Message[]> {
    return piSendView(await super.getMessages(sessionId, opts));
  }

  /**
   * Every session file: in the sessions root and one directory below it, and (unless the
   * environment names the one dir) in the dir the `sessionDir` setting gives in the current
   * directory, where pi run here keeps them.
   */
  async sessionFiles(alsoIn: Iterable<string> = []): Promise<string[]> {
    const roots = [this.sessionsRoot()];
    const set = this.flatSessionDir() ? undefined : this.settingsSessionDir(this.cwd);
    if (set) roots.push(set);
    for (const dir of alsoIn) if (!roots.some((r) => dir === r || dirname(dir) === r)) roots.push(dir);
    const out = new Set<string>();
    for (const root of roots) {
      for (const d of dirEntries(root)) {
        const p = join(root, d.name);
        if (d.isFile() && d.name.endsWith('.jsonl')) out.add(p);
        else if (d.isDirectory()) {
          // Regular files only: a folder or a FIFO named like a session would fail (or block) the read.
          for (const f of dirEntries(p)) if (f.isFile() && f.name.endsWith('.jsonl')) out.add(join(p, f.name));
        }
      }
    }
    return [...out].sort();
  }

  /** Reads a session file, reusing the last read while the file is unchanged. */
  async readFile(file: string): Promise<Session | undefined> {
    let st: import('node:fs').Stats;
    try {
      st = await fs.stat(file);
    } catch {
      this.cache.delete(file);
      return undefined;
    }
    if (!st.isFile()) return undefined;
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.session;
    const { session, end } = await parsePiFile(file);
    const parentPath = session.meta?.parentSession;
    if (typeof parentPath === 'string') session.parentId = await this.sessionIdOfFile(parentPath);
    // a sub-agent session carried into pi (children.ts)
    else Object.assign(session, childLinkOf(session.raw));
    this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, session, end });
    return session;
  }

  private async sessionIdOfFile(file: string): Promise<string | undefined> {
    const path = isAbsolute(file) ? file : join(this.sessionsRoot(), file);
    const first = await readFirstJsonLine(path).catch(() => undefined);
    if (first && isHeader(first.value)) return first.value.id;
    return idOfHeaderlessFile(path);
  }

  async listSessions(filter: SessionFilter = {}): Promise<SessionInfo[]> {
    const infos: SessionInfo[] = [];
    for (const file of await this.sessionFiles()) {
      const s = await this.readFile(file);
      if (!s) continue;
      const { entries: _e, leafId: _l, raw: _r, warnings, ...info } = s;
      infos.push({ ...info, meta: { ...info.meta, ...(warnings?.length ? { warnings } : {}) } });
    }
    return applyFilter(infos, filter);
  }

  /**
   * For `threadbase sync`: every session file with its size and mtime; only a new or changed file's
   * header line is read. The folders of files the index already holds are listed too: a project's
   * `sessionDir` setting applies only where pi (and this sync) runs, so a sync run elsewhere would
   * otherwise drop that project's sessions from the index and the next one there add them back.
   */
  async listUnits(known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]> {
    const knownDirs = new Set<string>();
    for (const u of known?.values() ?? []) if (u.path) knownDirs.add(dirname(u.path));
    return fileUnits(
      await this.sessionFiles(knownDirs),
      (file) => file,
      (file, st) => {
        const unit = (sessionId: string | undefined): SourceUnit | undefined =>
          sessionId ? { key: file, sessionId, path: file, size: st.size, mtimeMs: st.mtimeMs, appendOnly: true } : undefined;
        const prev = known?.get(file);
        if (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs) return unit(prev.sessionId);
        return readFirstJsonLine(file).then(
          (first) => unit(first && isHeader(first.value) ? first.value.id : idOfHeaderlessFile(file)),
          () => unit(idOfHeaderlessFile(file)),
        );
      },
    );
  }

  /**
   * For `threadbase sync`: one file read whole, or with `from` only the lines added since (a pi file
   * is a tree by id/parentId, so new lines link to earlier ones as they are). Not kept in the read
   * cache, so a long sync stays small.
   */
  async readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined> {
    if (!unit.path) return undefined;
    try {
      const state = from ? readPiState(from.state) : undefined;
      if (from && state && state.version === PI_SESSION_VERSION) {
        const { session: part, end } = await parsePiFile(unit.path, {
          start: from.offset,
          startLine: state.line,
          version: state.version,
        });
        const next: PiState = { ...state, line: end.line };
        for (const e of part.entries) {
          if (e.kind === 'metadata' && e.type === 'session_info') {
            const n = isRecord(e.data) && typeof e.data.name === 'string' ? e.data.name.trim() : '';
            next.named = true;
            if (n) next.name = n;
            else delete next.name;
          }
          if (e.timestamp > next.updatedAt) next.updatedAt = e.timestamp;
        }
        const last = part.entries[part.entries.length - 1];
        if (last) next.leafId = last.id;
        next.firstUserTitle ??= firstUserTitle(part.entries);
        const title = next.named ? next.name : next.firstUserTitle;
        const session: Session = {
          ...part,
          id: state.id,
          createdAt: state.createdAt,
          updatedAt: next.updatedAt,
          leafId: next.leafId,
          ...(state.project ? { project: state.project } : {}),
          ...(state.parentId ? { parentId: state.parentId } : {}),
          ...(state.parentToolCallId ? { parentToolCallId: state.parentToolCallId } : {}),
          meta: { ...(part.meta ?? {}), ...(state.meta ?? {}) },
        };
        if (title) session.title = title;
        else delete session.title;
        delete session.raw;
        return { session, appended: true, offset: end.offset, fromLine: state.line, state: JSON.stringify(next) };
      }
      const session = await this.readFile(unit.path);
      if (!session) return undefined;
      const end = this.cache.get(unit.path)?.end;
      return end ? { session, offset: end.offset, state: JSON.stringify(piStateOf(session, end.line)) } : { session };
    } finally {
      this.cache.delete(unit.path);
    }
  }

  private async fileOf(id: string): Promise<string | undefined> {
    const files = await this.sessionFiles();
    const byName = files.find((f) => idOfHeaderlessFile(f) === id);
    if (byName) {
      const s = await this.readFile(byName);
      if (s?.id === id) return byName;
    }
    for (const f of files) {
      const first = await readFirstJsonLine(f).catch(() => undefined);
      if (first && isHeader(first.value) && first.value.id === id) return f;
    }
    return undefined;
  }

  async getSession(id: string): Promise<Session | undefined> {
    const file = await this.fileOf(id);
    return file ? this.readFile(file) : undefined;
  }

  /** The pi command that resumes a session. */
  resumeCommand(info: SessionInfo): string {
    // pi's tools run in the current directory, so go to the session's project first.
    return resumeCommandLine(info.project, {}, info.path ? `pi --session ${shellQuote(info.path)}` : 'pi --resume');
  }

  private infoOf(s: Session, extra: Record<string, unknown> = {}): SessionInfo {
    const { entries: _e, leafId: _l, raw: _r, warnings: _w, ...info } = s;
    return { ...info, meta: { ...info.meta, ...extra } };
  }

  /** Writes a new session file; returns its path and a warning when an answer had to be added (flushable). */
  private async writeNew(
    records: PiRecord[],
    header: PiRecord,
    cwd: string,
    id: string,
  ): Promise<{ file: string; warnings: string[] }> {
    const stamp = String(header.timestamp).replace(/[:.]/g, '-');
    const file = join(this.sessionDirFor(cwd), `${stamp}_${id}.jsonl`);
    const { flushable } = await import('./encode.js');
    const safe = flushable(records);
    await writeFileAtomic(file, toJsonl([header, ...safe.records]), { exclusive: true });
    return { file, warnings: safe.warning ? [safe.warning] : [] };
  }

  /**
   * Writes a whole session as a new pi session file. pi resumes at the last entry of a file, so
   * the current leaf is written last.
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    return this.writeWithHeader(session, opts);
  }

  /**
   * A sub-agent session as a pi session of its own (pi has no sub-agents), its parent and the call
   * that ran it in the header's threadbase field (children.ts).
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    return this.writeWithHeader(child, {}, childLinkField(parent.id, child.parentToolCallId));
  }

  private async writeWithHeader(
    session: Session,
    opts: WriteOptions,
    headerFields: Record<string, unknown> = {},
  ): Promise<SessionInfo> {
    const id = opts.keepId && !(await this.fileOf(session.id)) ? session.id : newSessionId();
    const cwd = session.project ?? this.env.home;
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { currentLeafLast, encodeEntries } = await import('./encode.js');
    const { ordered, warnings } = currentLeafLast(session);
    const enc = encodeEntries(ordered);
    const header = newPiHeader(id, cwd, new Date().toISOString(), {
      ...headerFields,
      // pi reads only the header fields it knows (parse.ts reads this back: SessionInfo.writtenBy)
      threadbase: { ...(isRecord(headerFields.threadbase) ? headerFields.threadbase : {}), writtenBy: WRITTEN_BY },
    });
    const { file, warnings: added } = await this.writeNew(enc.records, header, cwd, id);
    const written = await this.readFile(file);
    if (!written) throw new ThreadbaseError('write', 'session vanished after writing', { file });
    return this.infoOf(written, { warnings: [...warnings, ...enc.warnings, ...added] });
  }

  /**
   * Appends entries to a session file as whole lines. An entry whose parent is not the current
   * leaf starts a branch in place; the last appended entry becomes the leaf.
   */
  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    const s = await this.requireSession(sessionId);
    const file = s.path as string;
    refuseVersion1(s, file);
    const known = new Set(s.entries.map((e) => e.id));
    for (const e of entries) {
      if (known.has(e.id)) throw new ThreadbaseError('conflict', `entry id ${e.id} already exists`, { file, id: e.id });
      if (e.parentId !== null && !known.has(e.parentId)) throw new NotFoundError('parent entry', e.parentId, { file });
      known.add(e.id);
    }
    const toolNames = new Map<string, string>();
    for (const e of s.entries) {
      if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_call') toolNames.set(p.id, p.name);
    }
    const { encodeEntries } = await import('./encode.js');
    const enc = encodeEntries(entries, { takenIds: known, toolNames });
    await appendJsonlLines(file, enc.records);
    this.cache.delete(file);
  }

  /** Branch in place: a new child of `at` (a branch summary and/or a user message); returns the new leaf id. */
  async branchAt(sessionId: string, at: string, opts: BranchOptions): Promise<string> {
    const s = await this.requireSession(sessionId);
    const index = indexEntries(s.entries);
    if (!index.byId.has(at)) throw new NotFoundError('entry', at, { file: s.path });
    if (opts.summary === undefined && opts.message === undefined) {
      throw new ThreadbaseError('usage', 'a pi branch needs an entry to start it: give a summary or a message', { id: at });
    }
    const taken = new Set(index.byId.keys());
    const now = new Date().toISOString();
    const entries: Entry[] = [];
    let parent = at;
    if (opts.summary !== undefined) {
      const id = newEntryId(taken);
      taken.add(id);
      const e: BranchSummaryEntry = {
        id,
        parentId: parent,
        timestamp: now,
        kind: 'branch_summary',
        summary: opts.summary,
        fromId: currentLeaf(s)?.id,
      };
      entries.push(e);
      parent = id;
    }
    if (opts.message !== undefined) {
      const id = newEntryId(taken);
      const e: MessageEntry = {
        id,
        parentId: parent,
        timestamp: now,
        kind: 'message',
        message: { role: 'user', parts: [{ type: 'text', text: opts.message }] },
      };
      entries.push(e);
      parent = id;
    }
    await this.appendEntries(sessionId, entries);
    return parent;
  }

  /** Sets (or with undefined clears) the label of an entry. */
  async setLabel(sessionId: string, targetId: string, label: string | undefined): Promise<void> {
    const s = await this.requireSession(sessionId);
    if (!s.entries.some((e) => e.id === targetId)) throw new NotFoundError('entry', targetId, { file: s.path });
    const e: LabelEntry = {
      id: newEntryId(new Set(s.entries.map((x) => x.id))),
      parentId: currentLeaf(s)?.id ?? null,
      timestamp: new Date().toISOString(),
      kind: 'label',
      targetId,
      ...(label ? { label } : {}),
    };
    await this.appendEntries(sessionId, [e]);
  }

  /**
   * pi's session name: a session_info entry. Unlike a branch or an append, it goes into a version 1 file
   * too: it has no place to lose, as it follows the last line, which in such a file (one line after
   * another) is the leaf, where pi's own rename puts it; the entries before it keep their ids (numbered
   * by their place), and pi renumbers it with the rest when it opens the file, keeping the name.
   */
  async setTitle(sessionId: string, title: string): Promise<void> {
    const s = await this.requireSession(sessionId);
    const file = s.path as string;
    const record = {
      type: 'session_info',
      id: newEntryId(new Set(s.entries.map((x) => x.id))),
      parentId: currentLeaf(s)?.id ?? null,
      timestamp: new Date().toISOString(),
      name: title.trim(),
    };
    await appendJsonlLines(file, [record]);
    this.cache.delete(file);
  }

  /**
   * Fork into a new file whose header names the original in parentSession. The whole tree as pi's
   * `--fork` does, or with `at` the path to that entry with the labels on it re-created, as pi's
   * /fork at an entry (createBranchedSession) does.
   */
  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.requireSession(sessionId);
    let entries: Entry[] = s.entries;
    if (opts.at !== undefined) {
      const index = indexEntries(s.entries);
      if (!index.byId.has(opts.at)) throw new NotFoundError('entry', opts.at, { file: s.path });
      // Label entries are dropped from the path and re-created at its end (as pi's /fork does); unlike
      // pi, an entry whose parent was a dropped label is re-linked to the label's parent, so the
      // path stays whole instead of starting at that entry.
      const full = pathTo(index, opts.at);
      const path: Entry[] = [];
      let lastKept: string | null = null;
      for (const e of full) {
        if (e.kind === 'label') continue;
        path.push(e.parentId === lastKept || path.length === 0 ? e : { ...e, parentId: lastKept });
        lastKept = e.id;
      }
      const onPath = new Set(path.map((e) => e.id));
      const labels = new Map<string, LabelEntry>();
      for (const e of s.entries) {
        if (e.kind !== 'label' || !onPath.has(e.targetId)) continue;
        if (e.label) labels.set(e.targetId, e);
        else labels.delete(e.targetId);
      }
      const taken = new Set(index.byId.keys());
      let parent = path[path.length - 1]?.id ?? null;
      const relabels: LabelEntry[] = [];
      for (const l of labels.values()) {
        const id = newEntryId(taken);
        taken.add(id);
        relabels.push({ id, parentId: parent, timestamp: l.timestamp, kind: 'label', targetId: l.targetId, label: l.label });
        parent = id;
      }
      entries = [...path, ...relabels];
    }
    const id = newSessionId();
    const cwd = s.project ?? this.env.home;
    const { encodeEntries } = await import('./encode.js');
    const enc = encodeEntries(entries);
    // No threadbase.writtenBy: it only ranks copies of sessions that started at once (model/copies.ts), and a fork
    // starts now and names its parent, so its copies lose to the original's anyway, as pi's own --fork's do
    const header = newPiHeader(id, cwd, new Date().toISOString(), { parentSession: s.path });
    const { file, warnings: added } = await this.writeNew(enc.records, header, cwd, id);
    const written = await this.readFile(file);
    if (!written) throw new ThreadbaseError('write', 'session vanished after writing', { file });
    return {
      ...this.infoOf(written, { warnings: [...enc.warnings, ...added] }),
      parentId: s.id,
      ...(opts.at ? { parentEntryId: opts.at } : {}),
    };
  }
}

/**
 * A version 1 file keeps no ids: pi (on open, rewriting the file) and threadbase (parse.ts) number its
 * entries afresh along the file, each the child of the line before, so an appended entry's id and
 * parent are lost: a branch would read as the continuation of the last turn, a label name nothing.
 * A fork is a version 3 copy with the same entry ids, which can be branched.
 */
function refuseVersion1(s: Session, file: string): void {
  const version = typeof s.meta?.version === 'number' ? s.meta.version : PI_SESSION_VERSION;
  if (version >= 2) return;
  throw new ThreadbaseError(
    'unsupported',
    `pi session format version ${version}, whose entries have no ids: pi renumbers them in file order when it opens the file, so entries appended to it (a branch, a label) would not keep their place. Fork it first (threadbase fork ${s.id}: a version ${PI_SESSION_VERSION} copy with the same entry ids) and write to the copy, or open it in pi once (pi rewrites it as version ${PI_SESSION_VERSION}).`,
    { file },
  );
}

/** A pi settings file's object, or undefined when it is missing or not JSON (pi then ignores it too). */
function readSettings(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const v = jsonValueOf(text);
  return isRecord(v) ? v : undefined;
}

/** What a read from an offset needs of the earlier part of a pi file (kept by the index between syncs). */
interface PiState {
  version: number;
  /** line number at the offset */
  line: number;
  id: string;
  project?: string;
  parentId?: string;
  /** a sub-agent session carried into pi: the call that ran it (children.ts) */
  parentToolCallId?: string;
  createdAt: string;
  updatedAt: string;
  leafId: string | null;
  /** a session_info record was seen (its name, possibly cleared, is the title) */
  named?: boolean;
  name?: string;
  firstUserTitle?: string;
  meta?: Record<string, unknown>;
}

function piStateOf(s: Session, line: number): PiState {
  let named = false;
  let name: string | undefined;
  for (const e of s.entries) {
    if (e.kind === 'metadata' && e.type === 'session_info') {
      named = true;
      const n = isRecord(e.data) && typeof e.data.name === 'string' ? e.data.name.trim() : '';
      name = n || undefined;
    }
  }
  const version = typeof s.meta?.version === 'number' ? s.meta.version : 0;
  const state: PiState = { version, line, id: s.id, createdAt: s.createdAt, updatedAt: s.updatedAt, leafId: s.leafId ?? null };
  if (s.project) state.project = s.project;
  if (s.parentId) state.parentId = s.parentId;
  if (s.parentToolCallId) state.parentToolCallId = s.parentToolCallId;
  if (s.meta) state.meta = s.meta;
  if (named) state.named = true;
  if (name) state.name = name;
  // the title a whole read gives when no session_info names the session
  const title = firstUserTitle(s.entries);
  if (title) state.firstUserTitle = title;
  return state;
}

function readPiState(text: string | undefined): PiState | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) && typeof v.id === 'string' && typeof v.line === 'number' ? (v as unknown as PiState) : undefined;
  } catch {
    return undefined;
  }
}
