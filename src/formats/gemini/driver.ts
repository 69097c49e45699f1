/**
 * The Gemini CLI driver: reads saved chats and `/chat save` checkpoints under
 * `~/.gemini/tmp/<project>/` (`$GEMINI_CLI_HOME/.gemini` when that is set, as Gemini CLI does), and
 * writes a session as a new chat there (encode.ts), which `gemini --resume <id>` resumes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DriverCapabilities, DriverEnv, SessionFilter, SourceUnit, UnitRead, WriteOptions } from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { callByPrompt, callsOnPath, firstUserText } from '../../model/side-chains.js';
import { pathToLeaf } from '../../model/tree.js';
import type { ParseWarning, Session, SessionInfo, ToolCallPart } from '../../model/types.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { DriverBase, dirEntries, fileUnits, listLoadedSessions, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { parseJson, readFirstJsonLine } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { checkpointId, type ProjectDir, readChat, readCheckpoint, SOURCE } from './chats.js';
import { linkSpawnCall, writeSubagentChat } from './children.js';
import { isObject, type JsonObject } from './content.js';
import { type RegistryLockOptions, withRegistryLock } from './registry-lock.js';
import { linkSubAgent, sideChainsOf } from './subagents.js';

export function geminiDir(env: DriverEnv): string {
  return join(env.env.GEMINI_CLI_HOME || env.home, '.gemini');
}

interface Located {
  file: string;
  kind: 'chat' | 'checkpoint';
  where: ProjectDir;
}

/** The main session id of a sub-agent chat (`chats/<main id>/<id>.jsonl`). */
function subAgentFolder(loc: Located): string | undefined {
  const dir = basename(dirname(loc.file));
  return loc.kind === 'chat' && dir !== 'chats' ? dir : undefined;
}

/** The `chats/` folder a chat is in, directly or in a sub-agent folder. */
function chatsDir(loc: Located): string {
  return subAgentFolder(loc) === undefined ? dirname(loc.file) : dirname(dirname(loc.file));
}

/** Each chat's calls that ran a sub-agent: agent id → call id (ToolCallRecord.agentId), made once per read chat. */
const spawnCallsOf = new WeakMap<Session, Map<string, string>>();

function spawnCalls(s: Session): Map<string, string> {
  let calls = spawnCallsOf.get(s);
  if (!calls) {
    calls = new Map();
    for (const e of s.entries) {
      if (e.kind !== 'message') continue;
      for (const p of e.message.parts)
        if (p.type === 'tool_call' && typeof p.meta?.agentId === 'string' && !calls.has(p.meta.agentId))
          calls.set(p.meta.agentId, p.id);
    }
    spawnCallsOf.set(s, calls);
  }
  return calls;
}

/**
 * A sub-agent chat's parent and the call that ran it: the chat whose call carries its id
 * (ToolCallRecord.agentId), the main session of its folder or a sub-agent chat beside it (a sub-agent's
 * own sub-agent: Gemini CLI keeps every one under the main session, LocalAgentExecutor's
 * parentSessionId); else the folder's main session, no call named. The candidates are looked at in
 * order, each one's calls indexed once (a main chat that ran many sub-agents is not scanned for each).
 */
function withSpawnCall(s: Session, candidates: Iterable<Session | undefined>): Session {
  if (!s.parentId) return s;
  for (const c of candidates) {
    if (!c || c.id === s.id) continue;
    const callId = spawnCalls(c).get(s.id);
    if (callId !== undefined) return { ...s, parentId: c.id, parentToolCallId: callId };
  }
  return s;
}

/**
 * The sub-agent chats of `parent` no call names (no ToolCallRecord.agentId: a call record rewritten or lost, a chat
 * put there by hand) placed as Claude Code's in-file side chains are (callByPrompt): at the parent's call whose
 * `prompt` (invoke_agent's) is the chat's first user text, a call naming no agent, each call once, the chats in the
 * order they started. Agent id → call id.
 */
function callsByPrompt(parent: Session, orphans: readonly Session[]): Map<string, string> {
  const calls = callsOnPath(parent.entries);
  const named = new Set(calls.filter((c) => typeof c.meta?.agentId === 'string').map((c) => c.id));
  const out = new Map<string, string>();
  const byStart = [...orphans].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  for (const o of byStart) {
    const call = callByPrompt(calls, o.entries, (id) => named.has(id));
    if (!call) continue;
    named.add(call.id);
    out.set(o.id, call.id);
  }
  return out;
}

/** What says that a sub-agent chat goes along with no call of `parentId`: convert, which carries a sub-agent by its call, leaves it out. */
function unplacedMessage(s: Session, parentId: string): string {
  return `sub-agent chat ${s.id} (${s.path ?? 'no file'}): no call of session ${parentId} names it (agentId) or gave it its prompt; listed under that session, it goes along with no call (convert leaves it out)`;
}

function withWarnings<T extends Session>(s: T, more: readonly ParseWarning[]): T {
  return more.length ? { ...s, warnings: [...(s.warnings ?? []), ...more] } : s;
}

/**
 * Each sub-agent chat that no call names (withSpawnCall) placed by its prompt (callsByPrompt) under its folder's main
 * chat; one still placed nowhere is kept visible: a warning on it and on that main chat, naming its file and id.
 */
function placeOrphans(sessions: readonly Session[]): Session[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const orphansOf = new Map<string, Session[]>();
  for (const s of sessions)
    if (s.parentId && s.parentToolCallId === undefined) orphansOf.set(s.parentId, [...(orphansOf.get(s.parentId) ?? []), s]);
  if (!orphansOf.size) return [...sessions];
  const placed = new Map<string, string>();
  const parentWarnings = new Map<string, ParseWarning[]>();
  for (const [parentId, orphans] of orphansOf) {
    const parent = byId.get(parentId);
    const calls = parent ? callsByPrompt(parent, orphans) : new Map<string, string>();
    for (const [id, call] of calls) placed.set(id, call);
    const left = orphans.filter((o) => !calls.has(o.id));
    if (parent?.path && left.length)
      parentWarnings.set(
        parentId,
        left.map((o) => ({ file: parent.path as string, id: o.id, message: unplacedMessage(o, parentId) })),
      );
  }
  return sessions.map((s) => {
    const call = placed.get(s.id);
    if (call !== undefined) return { ...s, parentToolCallId: call };
    if (s.parentId && s.parentToolCallId === undefined)
      return withWarnings(s, [{ file: s.path ?? '', id: s.id, message: unplacedMessage(s, s.parentId) }]);
    return withWarnings(s, parentWarnings.get(s.id) ?? []);
  });
}

/**
 * Sessions of distinct ids, each sub-agent linked to the call that ran it (withSpawnCall: its folder's main session
 * or a sub-agent chat in the same folder), the rest placed by prompt or warned about (placeOrphans). A main chat
 * with its folder's chats given is read as the whole listing reads it (readUnit).
 */
function linkSubAgents(sessions: readonly Session[]): Session[] {
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const inFolder = new Map<string, Session[]>();
  for (const s of sessions) {
    if (!s.parentId || !s.path) continue;
    const dir = dirname(s.path);
    const beside = inFolder.get(dir);
    if (beside) beside.push(s);
    else inFolder.set(dir, [s]);
  }
  return placeOrphans(
    sessions.map((s) =>
      s.parentId ? withSpawnCall(s, [byId.get(s.parentId), ...(s.path ? (inFolder.get(dirname(s.path)) ?? []) : [])]) : s,
    ),
  );
}

/**
 * What a sub-agent chat gives the placement of its folder's chats and its main chat's warnings about them
 * (withSpawnCall, placeOrphans): its id, parent and start, its first prompt (callByPrompt) and the agents its calls
 * ran (a sub-agent's own sub-agents), as a digest. Not its size or time: a sub-agent chat growing by turns that run
 * no agent changes none of it, so its main chat and the chats beside it need no read again.
 */
function placementDigest(s: Session | undefined): string {
  // an unreadable chat is left out of the placement (load().catch in readUnit's helpers)
  if (!s) return 'unreadable';
  const facts = [s.id, s.parentId ?? null, s.createdAt, firstUserText(s.entries) ?? null, [...spawnCalls(s)]];
  return createHash('sha256').update(JSON.stringify(facts)).digest('hex').slice(0, 32);
}

/** A folder's chat as its digest counts it: its file, its session id as listed, and its placementDigest. */
interface FolderChat {
  key: string;
  sessionId: string;
  placement: string;
}

/** A digest of the sub-agent chats in one folder (each one's file, id and placementDigest), for versions. */
function folderDigest(chats: readonly FolderChat[]): string {
  const hash = createHash('sha256');
  for (const c of [...chats].sort((a, b) => a.key.localeCompare(b.key)))
    hash.update(`${c.key}\0${c.sessionId}\0${c.placement}\n`);
  return hash.digest('hex').slice(0, 32);
}

/** A sub-agent unit's own placementDigest, as its last listed version holds it (listUnits), if any. */
function placementInVersion(version: string | undefined): string | undefined {
  if (version === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(version);
    return Array.isArray(v) && typeof v[4] === 'string' ? v[4] : undefined;
  } catch {
    return undefined;
  }
}

/** A chat or checkpoint file parsed, with the size and time it had. */
interface ParsedFile {
  mtimeMs: number;
  size: number;
  session: Session;
}

/** The session of `parsed` while its file still has that size and time. */
function parseAsStill(parsed: ParsedFile | undefined, size?: number, mtimeMs?: number): Session | undefined {
  return parsed && parsed.size === size && parsed.mtimeMs === mtimeMs ? parsed.session : undefined;
}

/** A located file read whole, as a chat or a checkpoint. */
const readLocated = (loc: Located): Promise<Session> =>
  loc.kind === 'chat' ? readChat(loc.file, loc.where) : readCheckpoint(loc.file, loc.where);

/** At most this many bytes of sub-agent chats parsed by a listing are kept for their readUnit (one parse, not two). */
const LISTING_PARSES_KEPT_BYTES = 32 * 1024 * 1024;

/** Gemini CLI's project slug of a folder name (ProjectRegistry.slugify). */
export function projectSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '') || 'project'
  );
}

/** `session-<YYYY-MM-DDTHH-MM in UTC>-<first 8 of the id>.jsonl`, as chatRecordingService names a new chat. */
export function chatFileName(id: string, when: Date): string {
  return `session-${when.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
}

/** What listUnits found, for readUnit. */
interface ListedUnits {
  bySession: Map<string, Located>;
  byFile: Map<string, Located>;
  /** the chats of each sub-agent folder (`chats/<main id>/`) */
  byFolder: Map<string, Located[]>;
  /** the session ids of each sub-agent folder's chats (their first lines, read by the listing) */
  idsByFolder: Map<string, string[]>;
  /** per sub-agent folder, once asked: agent id → the session of the chat whose call ran it */
  spawners: Map<string, Promise<Map<string, Session>>>;
}

export class GeminiDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 1: the `threadbase` fields of chats threadbase wrote (encode.ts) read back;
   * 2: a refused or cancelled call's result marked (meta.refused / meta.cancelled), its status kept across
   *    a resume; a sub-agent titled by its task's first line
   * 3: a chat threadbase wrote says so (`threadbase.writtenBy` on its metadata record: SessionInfo.writtenBy)
   * 4: a result's images beside its repeated functionResponse (the user record after the call) are no second
   *    result and loose image; an image-only result reads without an empty text before the image
   * 5: a plain-text document threadbase wrote as a user record's text (`threadbase.textFiles`), or in a result's
   *    `output` (the call's `threadbase.result.content`), reads back as the document
   * 8: a sub-agent chat no call names (no agentId) is placed at the call that gave it its prompt, else warned
   *    about (on it and on its main chat)
   * 9: the main chat's warnings about those through sync too (readUnit; its unit's version follows its sub-agent folder)
   * 10: versions follow a sub-agent folder's placement (placementDigest), not its chats' sizes and times: a growing
   *     sub-agent chat no longer has its main chat and the chats beside it read again
   * 11: a chat threadbase wrote has its session's own last time (`threadbase.lastUpdated`) as updatedAt while its
   *     `lastUpdated` is still the time of the write (`threadbase.writtenAt`)
   */
  readonly readerVersion = 12;
  // new chats only: appending to or forking a file Gemini CLI may be writing is not offered
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true, sideChains: true };
  private cache = new Map<string, ParsedFile>();
  /** Sub-agent chats the last listing parsed (placementDigest), each kept for its one readUnit. */
  private readonly parsedAtListing = new Map<string, ParsedFile>();
  /** From the last listUnits: each session's file, and every file found */
  private units: ListedUnits | undefined;
  /** Chats this driver wrote whole (a sub-agent's call may be marked in them after: writeChildSession). */
  private readonly writtenHere = new Set<string>();

  constructor(
    private readonly env: DriverEnv,
    private readonly options: { registryLock?: RegistryLockOptions } = {},
  ) {
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
    const hit = parseAsStill(this.cache.get(loc.file), st.size, st.mtimeMs);
    if (hit) return hit;
    // a sub-agent chat the listing parsed (placementDigest) is not parsed again
    const session = parseAsStill(this.parsedAtListing.get(loc.file), st.size, st.mtimeMs) ?? (await readLocated(loc));
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
    return linkSubAgents([...byId.values()]);
  }

  /** A chat's session id: its first line (the metadata record), or a legacy .json's own field. */
  private async chatId(loc: Located): Promise<string> {
    const fallback = basename(loc.file).replace(/\.jsonl?$/, '');
    try {
      const meta = loc.file.endsWith('.jsonl')
        ? (await readFirstJsonLine(loc.file))?.value
        : parseJson(await fs.readFile(loc.file, 'utf8'));
      return isObject(meta) && typeof meta.sessionId === 'string' ? meta.sessionId : fallback;
    } catch {
      return fallback;
    }
  }

  /**
   * IncrementalSource: every chat and checkpoint file by its size and time, one per session (a
   * legacy .json yields to the .jsonl Gemini CLI migrated it to; beside it under the same name, it is
   * not even read). Only a new or changed chat is read,
   * for its session id. A unit's version is what its read takes from elsewhere: the project path,
   * for a sub-agent its parent chat's size and time (the call that spawned it is there) and a digest
   * of its folder (a spawner beside it), and for every chat a digest of its own sub-agent folder (its
   * warnings about a chat there no call ran). Those folder digests follow what placement reads of each
   * chat there (placementDigest), not its size and time: a sub-agent chat that grows is read again, its
   * main chat and the chats beside it only when its id, start, first prompt or the agents its calls ran
   * change. A new or changed sub-agent chat is parsed for that here (kept for its readUnit); an unchanged
   * one's digest is the one its last version holds.
   */
  listUnits(known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]> {
    return this.listing(known, true);
  }

  /** The units and what readUnit needs of them (this.units); their versions only `withVersions`. */
  private async listing(known: ReadonlyMap<string, SourceUnit> | undefined, withVersions: boolean): Promise<SourceUnit[]> {
    this.parsedAtListing.clear();
    const located = await this.locate();
    // a legacy .json beside the .jsonl of the same name is that chat before Gemini CLI migrated it
    const files = new Set(located.map((l) => l.file));
    const units = await fileUnits(
      located.filter((l) => !(l.file.endsWith('.json') && files.has(`${l.file}l`))),
      (l) => l.file,
      (l, st) => {
        const unit = (sessionId: string): SourceUnit => ({
          key: l.file,
          sessionId,
          path: l.file,
          size: st.size,
          mtimeMs: st.mtimeMs,
        });
        if (l.kind === 'checkpoint') return unit(checkpointId(l.where, l.file));
        const prev = known?.get(l.file);
        if (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs) return unit(prev.sessionId);
        return this.chatId(l).then(unit);
      },
    );
    const jsonl = (u: SourceUnit) => u.key.endsWith('.jsonl');
    const bySession = new Map<string, SourceUnit>();
    for (const u of units) {
      const prev = bySession.get(u.sessionId);
      if (!prev || (jsonl(u) && !jsonl(prev)) || (jsonl(u) === jsonl(prev) && (u.mtimeMs ?? 0) > (prev.mtimeMs ?? 0)))
        bySession.set(u.sessionId, u);
    }
    const byFile = new Map(located.map((l) => [l.file, l]));
    const byFolder = new Map<string, Located[]>();
    const unitsByFolder = new Map<string, SourceUnit[]>();
    for (const u of units) {
      const loc = byFile.get(u.key) as Located;
      if (subAgentFolder(loc) === undefined) continue;
      const dir = dirname(u.key);
      const locs = byFolder.get(dir);
      if (locs) locs.push(loc);
      else byFolder.set(dir, [loc]);
      const us = unitsByFolder.get(dir);
      if (us) us.push(u);
      else unitsByFolder.set(dir, [u]);
    }
    this.units = {
      bySession: new Map([...bySession].map(([id, u]) => [id, byFile.get(u.key) as Located])),
      byFile,
      byFolder,
      idsByFolder: new Map([...unitsByFolder].map(([dir, us]) => [dir, us.map((u) => u.sessionId)])),
      spawners: new Map(),
    };
    if (!withVersions) return [...bySession.values()];
    // each sub-agent chat's placementDigest: from its last version while its file is unchanged, else parsed
    const placements = new Map<string, string>();
    let keptBytes = 0;
    for (const us of unitsByFolder.values())
      for (const u of us) {
        const prev = known?.get(u.key);
        const unchanged = prev !== undefined && prev.size === u.size && prev.mtimeMs === u.mtimeMs;
        let placement = unchanged ? placementInVersion(prev.version) : undefined;
        if (placement === undefined) {
          const session = await this.parsedForListing(byFile.get(u.key) as Located, u, keptBytes < LISTING_PARSES_KEPT_BYTES);
          if (session) keptBytes += u.size ?? 0;
          placement = placementDigest(session);
        }
        placements.set(u.key, placement);
      }
    // a sub-agent's spawner may be the folder's main chat or any sub-agent chat beside it, and the main chat's
    // warnings name the folder's chats no call ran (placeOrphans): one digest of the folder, made once, in both
    const digests = new Map<string, string>();
    const digestOf = (dir: string): string | null => {
      const us = unitsByFolder.get(dir);
      if (!us) return null;
      const digest =
        digests.get(dir) ??
        folderDigest(us.map((u) => ({ key: u.key, sessionId: u.sessionId, placement: placements.get(u.key) ?? '' })));
      digests.set(dir, digest);
      return digest;
    };
    return [...bySession.values()].map((u) => {
      const loc = byFile.get(u.key) as Located;
      const parent = bySession.get(subAgentFolder(loc) ?? '');
      const beside = parent ? digestOf(dirname(u.key)) : null;
      // its own sub-agent folder, whose chats no call ran it is warned about (folderWarnings)
      const own = loc.kind === 'chat' ? digestOf(join(chatsDir(loc), u.sessionId)) : null;
      // a sub-agent chat's own placementDigest, taken from here while its file is unchanged
      const placement = placements.get(u.key) ?? null;
      return {
        ...u,
        version: JSON.stringify([
          loc.where.project ?? null,
          parent ? [parent.size, parent.mtimeMs] : null,
          beside,
          own,
          placement,
        ]),
      };
    });
  }

  /**
   * A sub-agent chat parsed for its placementDigest: the cached one while its file is as listed, else read; kept for
   * its readUnit when `keep` (once: parsedAtListing). undefined: unreadable.
   */
  private async parsedForListing(loc: Located, unit: SourceUnit, keep: boolean): Promise<Session | undefined> {
    const hit = parseAsStill(this.cache.get(loc.file), unit.size, unit.mtimeMs);
    if (hit) return hit;
    try {
      const session = await readChat(loc.file, loc.where);
      if (keep && unit.size !== undefined && unit.mtimeMs !== undefined)
        this.parsedAtListing.set(loc.file, { size: unit.size, mtimeMs: unit.mtimeMs, session });
      return session;
    } catch {
      return undefined;
    }
  }

  /**
   * A unit's file read whole: a parse the listing kept or the cache holds of the file as listed (the size and time the
   * index keeps for it: a change since is seen by the next sync), else read.
   */
  private async readFresh(loc: Located, unit: SourceUnit): Promise<Session> {
    const kept = this.parsedAtListing.get(loc.file) ?? this.cache.get(loc.file);
    this.parsedAtListing.delete(loc.file);
    return parseAsStill(kept, unit.size, unit.mtimeMs) ?? readLocated(loc);
  }

  /**
   * For `threadbase sync`: one file read whole, not kept in the cache (a sub-agent's parent is), placed
   * and warned about as the listing does (all): as a sub-agent (placed), and as the chat whose folder
   * holds sub-agent chats no call ran (folderWarnings).
   */
  async readUnit(unit: SourceUnit): Promise<UnitRead | undefined> {
    // a reader in a worker thread lists without versions: they need every changed sub-agent chat parsed
    if (!this.units) await this.listing(undefined, false);
    const units = this.units;
    const loc = units?.byFile.get(unit.key) ?? (await this.locate()).find((l) => l.file === unit.key);
    if (!loc) return undefined;
    const session = await this.readFresh(loc, unit);
    if (!units) return { session };
    return { session: withWarnings(await this.placed(session, loc, units), await this.folderWarnings(session, loc, units)) };
  }

  /**
   * A sub-agent chat linked to the call that ran it: looked for in its folder's main chat first; only when that
   * holds no call with its id are the chats beside it read, once per folder for the whole listing (spawnersIn).
   */
  private async placed(session: Session, loc: Located, units: ListedUnits): Promise<Session> {
    if (!session.parentId) return session;
    const parentLoc = units.bySession.get(session.parentId);
    const parent = parentLoc ? await this.load(parentLoc).catch(() => undefined) : undefined;
    const byParent = withSpawnCall(session, [parent]);
    if (byParent.parentToolCallId !== undefined) return byParent;
    const spawners = await this.spawnersIn(dirname(loc.file));
    const bySpawner = withSpawnCall(session, [spawners.get(session.id)]);
    if (bySpawner.parentToolCallId !== undefined) return bySpawner;
    // no call names it: placed by its prompt as the listing places it, with the folder's other such chats
    const folder = await Promise.all(
      (units.byFolder.get(dirname(loc.file)) ?? []).map((l) =>
        l.file === loc.file ? session : this.load(l).catch(() => undefined),
      ),
    );
    const named = (c: Session) => spawners.has(c.id) || (parent !== undefined && spawnCalls(parent).has(c.id));
    const orphans = folder.filter((c): c is Session => c !== undefined && c.parentId === session.parentId && !named(c));
    const call = parent ? callsByPrompt(parent, orphans).get(session.id) : undefined;
    if (call !== undefined) return { ...session, parentToolCallId: call };
    return withWarnings(session, [{ file: loc.file, id: session.id, message: unplacedMessage(session, session.parentId) }]);
  }

  /**
   * The warnings the listing gives a chat about the chats of its sub-agent folder (`chats/<its id>/`: a main chat's,
   * or one an older threadbase wrote for a sub-agent's own sub-agents) that no call ran (placeOrphans). That folder's
   * chats are read only when one of them is not named by a call of this chat's.
   */
  private async folderWarnings(session: Session, loc: Located, units: ListedUnits): Promise<ParseWarning[]> {
    if (loc.kind !== 'chat') return [];
    const dir = join(chatsDir(loc), session.id);
    const ids = units.idsByFolder.get(dir);
    const named = spawnCalls(session);
    if (!ids || ids.every((id) => id === session.id || named.has(id))) return [];
    const folder = await Promise.all((units.byFolder.get(dir) ?? []).map((l) => this.load(l).catch(() => undefined)));
    const beside = folder.filter((c): c is Session => c !== undefined && c.id !== session.id);
    // as that folder's main chat, its own placement and warnings aside
    const asMain: Session = { ...session, parentId: null, warnings: [] };
    return linkSubAgents([asMain, ...beside])[0]?.warnings ?? [];
  }

  /** The sub-agent chats of one folder read once: agent id → the chat whose call ran it. */
  private spawnersIn(dir: string): Promise<Map<string, Session>> {
    const units = this.units;
    if (!units) return Promise.resolve(new Map());
    let found = units.spawners.get(dir);
    if (!found) {
      found = (async () => {
        const out = new Map<string, Session>();
        for (const l of units.byFolder.get(dir) ?? []) {
          const c = await this.load(l).catch(() => undefined);
          if (c) for (const agentId of spawnCalls(c).keys()) if (!out.has(agentId)) out.set(agentId, c);
        }
        return out;
      })();
      units.spawners.set(dir, found);
    }
    return found;
  }

  /**
   * The project's folder under ~/.gemini/tmp, registered as Gemini CLI registers one
   * (ProjectRegistry.getShortId): its slug in projects.json and a `.project_root` marker in tmp/ and
   * history/. A slug another path owns is not taken: the next free `<slug>-<n>` is. All of it under
   * Gemini CLI's own lock on projects.json (registry-lock.ts), as Gemini CLI does it.
   */
  async projectDir(project: string): Promise<string> {
    const registryFile = join(geminiDir(this.env), 'projects.json');
    return withRegistryLock(registryFile, () => this.registerProject(project), this.options.registryLock);
  }

  private async registerProject(project: string): Promise<string> {
    const root = geminiDir(this.env);
    const path = resolve(project);
    const registryFile = join(root, 'projects.json');
    let registry: { projects: Record<string, string> } = { projects: {} };
    try {
      const reg: unknown = JSON.parse(await fs.readFile(registryFile, 'utf8'));
      if (isObject(reg) && isObject(reg.projects))
        registry = {
          ...reg,
          projects: Object.fromEntries(Object.entries(reg.projects).filter(([, v]) => typeof v === 'string')) as Record<
            string,
            string
          >,
        };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new ThreadbaseError('parse', `cannot read Gemini CLI's project registry: ${(err as Error).message}`, {
          file: registryFile,
        });
    }
    const owner = async (slug: string): Promise<string | undefined> => {
      for (const base of ['tmp', 'history']) {
        try {
          return (await fs.readFile(join(root, base, slug, '.project_root'), 'utf8')).trim();
        } catch {
          // no marker there
        }
      }
      return undefined;
    };
    let slug = registry.projects[path];
    if (slug === undefined || ((await owner(slug)) ?? path) !== path) {
      const base = projectSlug(basename(path));
      const taken = new Set(Object.values(registry.projects));
      for (let n = 0; ; n++) {
        const candidate = n === 0 ? base : `${base}-${n}`;
        const own = await owner(candidate);
        if (own === path || (own === undefined && !taken.has(candidate))) {
          slug = candidate;
          break;
        }
      }
      registry.projects[path] = slug;
      await writeFileAtomic(registryFile, `${JSON.stringify(registry, null, 2)}\n`);
    }
    for (const base of ['tmp', 'history']) {
      const marker = join(root, base, slug, '.project_root');
      if ((await owner(slug)) === undefined || !(await fs.stat(marker).catch(() => undefined)))
        await writeFileAtomic(marker, path);
    }
    return join(root, 'tmp', slug);
  }

  /**
   * Writes a session's current branch as a new Gemini CLI chat in its project's folder (a new file,
   * written whole): `gemini --resume <id>` in that project resumes it. Its side chains (sub-agent work)
   * become sub-agent chats beside it (subagents.ts), each linked from the call that ran it.
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const existing = opts.keepId && uuid.test(session.id) ? await this.getSession(session.id) : undefined;
    const id = opts.keepId && uuid.test(session.id) && !existing ? session.id : randomUUID();
    const project = resolve(session.project ?? this.env.home);
    const dir = await this.projectDir(project);
    const now = new Date();
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeChatRecords, lastRecordTime } = await import('./encode.js');
    const { records, warnings } = encodeChatRecords(session);
    const projectHash = createHash('sha256').update(project).digest('hex');
    const lastTime = (rs: JsonObject[]) => lastRecordTime(rs) ?? now.toISOString();
    const subAgents = sideChainsOf(session, session.entries.length ? pathToLeaf(session) : []).map((chain) => {
      const agentId = randomUUID();
      // its last turn (a record hanging from an earlier one would cut the path short)
      const leaf = chain.entries.findLast((e) => e.kind !== 'metadata') ?? chain.entries.at(-1);
      const sub = encodeChatRecords({ entries: chain.entries, leafId: leaf?.id ?? null });
      if (chain.spawnedBy) linkSubAgent(records, chain.spawnedBy, agentId);
      warnings.push(...sub.warnings.map((w) => `sub-agent ${agentId}: ${w}`));
      const meta: JsonObject = {
        sessionId: agentId,
        projectHash,
        startTime: chain.entries[0]?.timestamp ?? now.toISOString(),
        lastUpdated: lastTime(sub.records),
        kind: 'subagent',
        // as Gemini CLI records a sub-agent's: the workspace's directories
        directories: session.directories?.length ? session.directories : [project],
        threadbase: { writtenBy: WRITTEN_BY },
      };
      return { file: join(dir, 'chats', id, `${agentId}.jsonl`), lines: [meta, ...sub.records] };
    });
    // Gemini CLI deletes at every start each chat whose `lastUpdated` is older than general.sessionRetention
    // (30 days by default): a chat gets the time of its write there (when it arrived in Gemini CLI), the
    // session's own time is kept under `threadbase` and read back (chats.ts keptLastUpdated)
    const writtenAt = now.toISOString();
    const meta: JsonObject = {
      sessionId: id,
      projectHash,
      startTime: session.createdAt || writtenAt,
      lastUpdated: writtenAt,
      kind: 'main',
      ...(session.title ? { summary: session.title } : {}),
      ...(session.directories?.length ? { directories: session.directories } : {}),
      // Gemini CLI keeps the record's other fields and leaves this one alone (chats.ts reads it back)
      threadbase: { writtenBy: WRITTEN_BY, lastUpdated: lastTime(records), writtenAt },
    };
    const file = join(dir, 'chats', chatFileName(id, now));
    await writeFileAtomic(file, toJsonl([meta, ...records]), { exclusive: true });
    this.writtenHere.add(file);
    for (const sub of subAgents) {
      await writeFileAtomic(sub.file, toJsonl(sub.lines), { exclusive: true });
      this.writtenHere.add(sub.file);
    }
    const written = await readChat(file, { dirName: basename(dir), project });
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = written;
    return warnings.length ? { ...info, meta: { ...info.meta, warnings } } : info;
  }

  /**
   * A sub-agent session under `parent` (a chat written here) as Gemini CLI keeps one (children.ts):
   * `chats/<main id>/<agent id>.jsonl` (the parent's own folder when the parent is a sub-agent), the
   * parent's call that ran it marked with the agent id.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const written = await this.getSession(parent.id);
    if (!written?.path || written.meta?.checkpoint !== undefined) throw new NotFoundError('gemini chat', parent.id);
    const call = written.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p): p is ToolCallPart => p.type === 'tool_call' && p.id === child.parentToolCallId);
    const raw = isObject(written.raw) ? written.raw : {};
    const sub = await writeSubagentChat(child, {
      id: written.id,
      file: written.path,
      ...(typeof raw.projectHash === 'string' ? { projectHash: raw.projectHash } : {}),
      directories: written.directories?.length ? written.directories : [written.project ?? this.env.home],
    });
    this.writtenHere.add(sub.file);
    const warnings = [...sub.warnings];
    const linked =
      call !== undefined && this.writtenHere.has(written.path) && (await linkSpawnCall(written.path, call.id, sub.agentId));
    if (!linked && child.parentToolCallId !== undefined)
      warnings.push(
        `sub-agent ${sub.agentId}: the call that ran it (${child.parentToolCallId}) is not marked in ${written.path}${call ? ' (a chat not written here)' : ' (no such call there)'}`,
      );
    const info = await this.getSession(sub.agentId);
    if (!info) throw new NotFoundError('gemini chat', sub.agentId);
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...out } = info;
    return warnings.length ? { ...out, meta: { ...out.meta, warnings } } : out;
  }

  /** `gemini --resume <id>` in the project (Gemini CLI resumes only the chats of the folder it runs in). */
  resumeCommand(session: SessionInfo): string {
    const { GEMINI_CLI_HOME } = this.env.env;
    return resumeCommandLine(session.project, { GEMINI_CLI_HOME }, `gemini --resume ${shellQuote(session.id)}`);
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    return listLoadedSessions(await this.all(), filter);
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
