/**
 * The Qwen Code driver: reads chats under `<runtime dir>/projects/<sanitized cwd>/chats/<id>.jsonl`
 * (the runtime dir is `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`, as Qwen Code's Storage
 * resolves it), archived ones in `chats/archive/`, and writes a session as a new chat there
 * (encode.ts), which `qwen --resume <id>` in the project resumes.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type {
  DriverCapabilities,
  DriverEnv,
  ReadFrom,
  SessionFilter,
  SourceUnit,
  UnitRead,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError } from '../../model/errors.js';
import type { Session, SessionInfo, ToolCallPart } from '../../model/types.js';
import { isObject } from '../gemini/content.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { DriverBase, dirEntries, fileUnits, listLoadedSessions, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { parseJson } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { writeSubagentTranscript } from './children.js';
import { type QwenReadState, readQwenChat, readQwenChatFrom, SOURCE, type SubAgentOf } from './records.js';

/** Where Qwen Code keeps its runtime data (Storage.getRuntimeBaseDir): sessions go under `projects/`. */
export function qwenDir(env: DriverEnv): string {
  const dir = env.env.QWEN_RUNTIME_DIR || env.env.QWEN_HOME;
  return dir ? resolve(env.home, dir.replace(/^~(?=$|\/)/, env.home)) : join(env.home, '.qwen');
}

/** Qwen Code's project folder name of a path (sanitizeCwd): every character not a letter or digit becomes `-`. */
export function sanitizeCwd(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** A chat file's name, as Qwen Code looks sessions up (SESSION_FILE_PATTERN). */
const CHAT_FILE = /^[0-9a-fA-F-]{32,36}\.jsonl$/;
/** A sub-agent transcript's name (getAgentJsonlPath: the agent id with other characters as `_`). */
const AGENT_FILE = /^agent-[A-Za-z0-9_-]+\.jsonl$/;

interface Located {
  file: string;
  /** the session id: a chat's file name, a sub-agent's agent id */
  id: string;
  /** a sub-agent's: the session that spawned it (its folder's name) */
  parentSessionId?: string;
}

export class QwenDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 1: first reader; 2: a sub-agent's replies name its model (.meta.json model or persistedCliFlags.model);
   * 3: a sub-agent's usage-only record merged into its call record (records.ts usageOnlyMerges);
   * 4: a refused or cancelled call's result marked (meta.refused / meta.cancelled, denials.ts);
   * 5: the `tool_result` records threadbase writes one per result of a message (`threadbase.resultsWith`) read as that one message
   * 6: a chat threadbase wrote says so (its first record's version `threadbase`: SessionInfo.writtenBy)
   */
  readonly readerVersion = 6;
  // new chats only: appending to a file Qwen Code may be writing (under its writer lease) is not offered
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true };
  private cache = new Map<string, { mtimeMs: number; size: number; session: Session }>();
  private byFile = new Map<string, Located>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  /**
   * Every chat file (active ones, then archived ones) by its session id, and every sub-agent
   * transcript (`subagents/<parent session>/agent-<agent id>.jsonl`) by its agent id.
   */
  private files(): Located[] {
    const projects = join(qwenDir(this.env), 'projects');
    const out: Located[] = [];
    for (const d of dirEntries(projects)) {
      if (!d.isDirectory()) continue;
      for (const chats of [join(projects, d.name, 'chats'), join(projects, d.name, 'chats', 'archive')]) {
        for (const f of dirEntries(chats))
          if (f.isFile() && CHAT_FILE.test(f.name))
            out.push({ file: join(chats, f.name), id: f.name.slice(0, -'.jsonl'.length) });
      }
      const subagents = join(projects, d.name, 'subagents');
      for (const parent of dirEntries(subagents)) {
        if (!parent.isDirectory()) continue;
        for (const f of dirEntries(join(subagents, parent.name))) {
          if (!f.isFile() || !AGENT_FILE.test(f.name)) continue;
          const agentId = f.name.slice('agent-'.length, -'.jsonl'.length);
          out.push({ file: join(subagents, parent.name, f.name), id: agentId, parentSessionId: parent.name });
        }
      }
    }
    return out;
  }

  /** A sub-agent's meta file (agentId, toolUseId, agentType…), beside its transcript. */
  private async subAgentOf(loc: Located): Promise<SubAgentOf | undefined> {
    if (!loc.parentSessionId) return undefined;
    const of: SubAgentOf = { agentId: loc.id, parentSessionId: loc.parentSessionId };
    try {
      const meta = parseJson(await fs.readFile(loc.file.replace(/\.jsonl$/, '.meta.json'), 'utf8'));
      if (isObject(meta)) {
        if (typeof meta.toolUseId === 'string') of.toolUseId = meta.toolUseId;
        if (typeof meta.agentType === 'string') of.agentType = meta.agentType;
        // as Qwen Code takes it on resume: the meta's model, else the one it ran on (persistedCliFlags: a foreground one has only that)
        const flags = isObject(meta.persistedCliFlags) ? meta.persistedCliFlags : {};
        const model = [meta.model, flags.model].find((m): m is string => typeof m === 'string' && m !== '');
        if (model !== undefined) of.model = model;
        // a sub-agent's own sub-agent: in the main session's folder, naming the sub-agent that ran it
        if (typeof meta.parentAgentId === 'string' && meta.parentAgentId) of.parentSessionId = meta.parentAgentId;
      }
    } catch {
      // no meta (or unreadable): the transcript alone
    }
    return of;
  }

  private async read(loc: Located): Promise<Session> {
    return readQwenChat(loc.file, await this.subAgentOf(loc));
  }

  private async load(loc: Located, st: { mtimeMs: number; size: number }): Promise<Session> {
    const file = loc.file;
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.session;
    const session = await this.read(loc);
    this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, session });
    return session;
  }

  /** Every session, one per id (an active chat wins over an archived copy). */
  private async all(): Promise<Session[]> {
    const units = await this.listUnits();
    const out: Session[] = [];
    for (const u of units) {
      try {
        out.push(await this.load(this.located(u), { mtimeMs: u.mtimeMs ?? 0, size: u.size ?? 0 }));
      } catch {
        // gone meanwhile
      }
    }
    return out;
  }

  /** A unit's file and what it is (listUnits keeps them). */
  private located(u: SourceUnit): Located {
    return this.byFile.get(u.key) ?? { file: u.key, id: u.sessionId };
  }

  /**
   * IncrementalSource: each chat and sub-agent file by its size and time; its name says its session
   * id, so listing reads none. Qwen Code only appends records (whole lines) to them.
   */
  async listUnits(): Promise<SourceUnit[]> {
    const located = this.files();
    this.byFile = new Map(located.map((l) => [l.file, l]));
    const units = await fileUnits(
      located,
      (l) => l.file,
      (l, st): SourceUnit => ({
        key: l.file,
        sessionId: l.id,
        path: l.file,
        size: st.size,
        mtimeMs: st.mtimeMs,
        appendOnly: true,
      }),
    );
    const bySession = new Map<string, SourceUnit>();
    for (const u of units) if (!bySession.has(u.sessionId)) bySession.set(u.sessionId, u);
    return [...bySession.values()];
  }

  /**
   * For `threadbase sync`: one file read whole, or with `from` from its last record on (records.ts
   * says when it reads whole instead); not kept in the cache.
   */
  async readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined> {
    try {
      const loc = this.located(unit);
      const read = await readQwenChatFrom(loc.file, await this.subAgentOf(loc), from ? readState(from.state) : undefined);
      return {
        session: read.session,
        offset: read.offset,
        ...(read.state ? { state: JSON.stringify(read.state) } : {}),
        ...(read.appended ? { appended: true, replaces: read.appended.replaces, fromLine: read.appended.fromLine } : {}),
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  /**
   * Writes a session's current branch as a new Qwen Code chat of its project (a new file, written
   * whole): `qwen --resume <id>` in that project resumes it.
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const free = opts.keepId && uuid.test(session.id) && !(await this.getSession(session.id));
    const id = free ? session.id : randomUUID();
    const project = resolve(session.project ?? this.env.home);
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeQwenRecords } = await import('./encode.js');
    const { records, warnings } = encodeQwenRecords(session, { sessionId: id, cwd: project });
    const file = join(qwenDir(this.env), 'projects', sanitizeCwd(project), 'chats', `${id}.jsonl`);
    await writeFileAtomic(file, toJsonl(records), { exclusive: true });
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = await readQwenChat(file);
    return warnings.length ? { ...info, meta: { ...info.meta, warnings } } : info;
  }

  /**
   * A sub-agent session under `parent` (a chat or sub-agent of this driver) as Qwen Code keeps one
   * (children.ts): `subagents/<main session>/agent-<agent id>.jsonl` and its meta naming the call.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const written = await this.getSession(parent.id);
    const loc = written?.path ? this.byFile.get(written.path) : undefined;
    if (!written?.path || !loc) throw new NotFoundError('qwen session', parent.id);
    const call = written.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p): p is ToolCallPart => p.type === 'tool_call' && p.id === child.parentToolCallId);
    // a chat is `<p>/chats/<id>.jsonl`, a sub-agent `<p>/subagents/<main>/agent-<id>.jsonl`
    const projectDir = dirname(dirname(loc.parentSessionId === undefined ? written.path : dirname(written.path)));
    const parentDepth = await this.subAgentDepth(loc);
    const { agentId, path, warnings } = await writeSubagentTranscript(child, {
      subagentsDir: join(projectDir, 'subagents'),
      // a sub-agent's folder is its main session's
      mainSessionId: loc.parentSessionId === undefined ? written.id : basename(dirname(written.path)),
      ...(loc.parentSessionId !== undefined ? { parentAgentId: written.id } : {}),
      depth: parentDepth === undefined ? 0 : parentDepth + 1,
      cwd: written.project ?? this.env.home,
      ...(call ? { toolUseId: call.id } : {}),
      ...(isObject(call?.input) && typeof call.input.description === 'string' ? { description: call.input.description } : {}),
    });
    if (!call && child.parentToolCallId !== undefined)
      warnings.push(`sub-agent ${agentId}: the call that ran it (${child.parentToolCallId}) is not in ${written.path}`);
    const info = await this.getSession(agentId);
    if (!info) throw new NotFoundError('qwen session', agentId);
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...out } = info;
    return warnings.length ? { ...out, path, meta: { ...out.meta, warnings } } : { ...out, path };
  }

  /** A sub-agent's depth from its meta file (0 under the main session); undefined for a chat. */
  private async subAgentDepth(loc: Located): Promise<number | undefined> {
    if (loc.parentSessionId === undefined) return undefined;
    try {
      const meta = parseJson(await fs.readFile(loc.file.replace(/\.jsonl$/, '.meta.json'), 'utf8'));
      return isObject(meta) && typeof meta.depth === 'number' ? meta.depth : 0;
    } catch {
      return 0;
    }
  }

  /** `qwen --resume <id>` in the project (Qwen Code resumes only the chats of the project it runs in). */
  resumeCommand(session: SessionInfo): string {
    const { QWEN_RUNTIME_DIR, QWEN_HOME } = this.env.env;
    return resumeCommandLine(session.project, { QWEN_RUNTIME_DIR, QWEN_HOME }, `qwen --resume ${shellQuote(session.id)}`);
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    return listLoadedSessions(await this.all(), filter);
  }

  async getSession(id: string): Promise<Session | undefined> {
    const unit = (await this.listUnits()).find((u) => u.sessionId === id);
    if (!unit) return undefined;
    try {
      return await this.load(this.located(unit), { mtimeMs: unit.mtimeMs ?? 0, size: unit.size ?? 0 });
    } catch {
      return undefined;
    }
  }
}

/** A unit's state as the index kept it (written by readUnit), else undefined: read whole. */
function readState(text: string | undefined): QwenReadState | undefined {
  if (!text) return undefined;
  try {
    const v = parseJson(text);
    return isObject(v) && isObject(v.safe) && isObject(v.fields) ? (v as unknown as QwenReadState) : undefined;
  } catch {
    return undefined;
  }
}
