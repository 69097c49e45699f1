/**
 * The Cline driver: reads the CLI's sessions (`~/.cline/data/sessions`, or where CLINE_DIR,
 * CLINE_DATA_DIR or CLINE_SESSION_DATA_DIR put them, as Cline resolves them) and the VS Code
 * extension's tasks (Cline, Roo Code, Kilo Code, in VS Code, its Insiders build, VSCodium, Cursor,
 * Windsurf and VS Code Server), and writes a session as a new CLI session that `cline --id <id>`
 * resumes.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { DriverCapabilities, DriverEnv, SessionFilter, SourceUnit, UnitRead, WriteOptions } from '../../model/driver.js';
import { NotFoundError } from '../../model/errors.js';
import { pathToLeaf } from '../../model/tree.js';
import type { Session, SessionInfo, ToolCallPart } from '../../model/types.js';
import { makeDirectory, writeFileAtomic } from '../shared/atomic.js';
import { DriverBase, dirEntries, fileUnits, listLoadedSessions, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { parseJson } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { writeSubagentMessages } from './children.js';
import { compactionFileOf } from './compaction.js';
import { encodeClineMessages } from './encode.js';
import { clineRunEndedOf } from './interrupted.js';
import { isObject, type JsonObject } from './salvage.js';
import { readCliSession, readExtensionTask, SOURCE } from './sessions.js';

/** The VS Code extensions that keep Cline's task layout, by their id. */
export const CLINE_EXTENSIONS = ['saoudrizwan.claude-dev', 'rooveterinaryinc.roo-cline', 'kilocode.kilo-code'] as const;

/** The editors' user-data folder names (VS Code and its builds and forks). */
const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'] as const;

/** Where the Cline CLI keeps its sessions (@cline/shared storage: CLINE_SESSION_DATA_DIR, CLINE_DATA_DIR, CLINE_DIR). */
export function clineSessionsDir(env: DriverEnv): string {
  const e = env.env;
  if (e.CLINE_SESSION_DATA_DIR?.trim()) return e.CLINE_SESSION_DATA_DIR.trim();
  const data = e.CLINE_DATA_DIR?.trim() || join(e.CLINE_DIR?.trim() || join(env.home, '.cline'), 'data');
  return join(data, 'sessions');
}

/** Every editor's globalStorage folder an extension's tasks can be in. */
export function editorStorageDirs(env: DriverEnv): string[] {
  const home = env.home;
  const bases = new Set<string>([
    join(env.env.XDG_CONFIG_HOME || join(home, '.config')),
    join(home, '.config'),
    join(home, 'Library', 'Application Support'),
    ...(env.env.APPDATA ? [env.env.APPDATA] : []),
  ]);
  const out: string[] = [];
  for (const base of bases) for (const editor of EDITORS) out.push(join(base, editor, 'User', 'globalStorage'));
  for (const server of ['.vscode-server', '.vscode-remote', '.cursor-server', '.windsurf-server'])
    out.push(join(home, server, 'data', 'User', 'globalStorage'));
  return out;
}

interface Located {
  file: string;
  layout: 'cli' | 'vscode';
  /** the session id, known from the path */
  id: string;
  /** vscode: the extension id and its task history item */
  extension?: string;
  item?: JsonObject;
  /** cli: the manifest beside a root session's messages */
  manifest?: string;
}

/** A new CLI session id as Cline makes one: milliseconds, `_`, five of [a-z0-9]. */
export function newClineSessionId(now = Date.now()): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const tail = [...randomBytes(5)].map((b) => alphabet[b % alphabet.length]).join('');
  return `${now}_${tail}`;
}

/** When a sub-agent started: the milliseconds in its agent id (`agent_<ms>_…`), else its first entry's time. */
function startOf(s: Session): number {
  const ms = /__agent_(\d{13})_[a-z0-9]+$/.exec(s.id)?.[1];
  return ms ? Number(ms) : Date.parse(s.entries[0]?.timestamp ?? '');
}

/**
 * A sub-agent session with the parent's `spawn_agent` call that ran it and the parent's project.
 * Cline records no call id with a sub-agent (its start event carries the agent ids and the input;
 * its spawn queue matches calls by task too): the call is the parent's `spawn_agent` whose task is
 * the sub-agent's first prompt, the last one made before the sub-agent started where the same task
 * was given more than once.
 */
function withSpawnCall(given: Session, parent: Session | undefined): Session {
  if (!parent) return given;
  // it ran in its root's working directory
  const s = given.project || !parent.project ? given : { ...given, project: parent.project };
  if (s.parentToolCallId) return s;
  const first = s.entries.find((e) => e.kind === 'message' && e.message.role === 'user');
  const prompt =
    first?.kind === 'message' ? first.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') : '';
  const calls = parent.entries.flatMap((e) =>
    e.kind === 'message'
      ? e.message.parts.flatMap((p) =>
          p.type === 'tool_call' && p.name === 'spawn_agent' && p.input.task === prompt
            ? [{ id: p.id, at: Date.parse(e.timestamp) }]
            : [],
        )
      : [],
  );
  const started = startOf(s);
  const call = calls.findLast((c) => c.at <= started) ?? calls[0];
  return call ? { ...s, parentToolCallId: call.id } : s;
}

export class ClineDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 2: the compaction state (`<id>.compaction.json`) read as a compaction entry (compaction.ts);
   * 3: a state Cline does not resume from is a leaf beside the messages after it;
   * 4: an extension task's task_metadata.json (models in use, files in context) and its own modelInfo and metrics;
   * 5: a sub-agent's call from the session that ran it, the last with its task before it started;
   * 6: the compaction in the chain again, one Cline does not resume from marked `appliedOnResume: false`
   * 7: a call whose approval was not granted marked `refused` (or `cancelled`, dropped unasked) (denials.ts)
   * 8: run_commands' record of commands the user's abort stopped marked `cancelled`, not an error (denials.ts)
   * 9: an extension task's title from its task history cut by titleLine (between graphemes, not mid-emoji)
   * 11: a call its ended run left without a result (killed while the tool ran: manifest status, or its process gone) read with
   *     Cline's interrupted result, marked cancelled, as Cline answers it on resume (interrupted.ts)
   * 12: a session threadbase wrote says so (`threadbase.writtenBy`, or its `from`: SessionInfo.writtenBy)
   * 13: thinking `meta.sentAsText` exactly when threadbase wrote it as a text block (a mark carried from another
   *     agent's copy dropped: Cline sends such thinking kept as thinking not at all) (sessions.ts)
   */
  readonly readerVersion = 13;
  // new sessions only: appending to a file Cline rewrites whole at every turn is not offered
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true };
  private cache = new Map<string, { stamp: string; session: Session }>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  private async taskHistory(storage: string): Promise<Map<string, JsonObject>> {
    const byId = new Map<string, JsonObject>();
    try {
      const v = parseJson(await fs.readFile(join(storage, 'state', 'taskHistory.json'), 'utf8'));
      if (Array.isArray(v)) for (const item of v) if (isObject(item) && typeof item.id === 'string') byId.set(item.id, item);
    } catch {
      // no task history (older versions keep it in VS Code's own state database): titles from the messages
    }
    return byId;
  }

  private async locate(): Promise<Located[]> {
    const out: Located[] = [];
    const sessions = clineSessionsDir(this.env);
    for (const d of dirEntries(sessions)) {
      if (!d.isDirectory()) continue;
      const dir = join(sessions, d.name);
      for (const f of dirEntries(dir)) {
        if (!f.isFile() || !f.name.endsWith('.messages.json')) continue;
        const stem = f.name.slice(0, -'.messages.json'.length);
        const root = stem === d.name;
        out.push({
          file: join(dir, f.name),
          layout: 'cli',
          id: root ? d.name : `${d.name}__${stem}`,
          ...(root ? { manifest: join(dir, `${d.name}.json`) } : {}),
        });
      }
    }
    for (const globalStorage of editorStorageDirs(this.env)) {
      for (const extension of CLINE_EXTENSIONS) {
        const storage = join(globalStorage, extension);
        const tasks = dirEntries(join(storage, 'tasks'));
        if (tasks.length === 0) continue;
        const history = await this.taskHistory(storage);
        for (const t of tasks) {
          if (!t.isDirectory()) continue;
          const file = join(storage, 'tasks', t.name, 'api_conversation_history.json');
          const item = history.get(t.name);
          out.push({ file, layout: 'vscode', id: t.name, extension, ...(item ? { item } : {}) });
        }
      }
    }
    return out;
  }

  private async stampOf(loc: Located): Promise<string> {
    const st = await fs.stat(loc.file);
    const m = loc.manifest ? await fs.stat(loc.manifest).catch(() => undefined) : undefined;
    return JSON.stringify([
      st.size,
      st.mtimeMs,
      m?.size ?? null,
      m?.mtimeMs ?? null,
      loc.item ?? null,
      compactionStamp(loc),
      taskFilesStamp(loc),
      runEndedStamp(loc),
    ]);
  }

  private async read(loc: Located): Promise<Session> {
    if (loc.layout === 'vscode') return readExtensionTask(loc.file, loc.extension ?? CLINE_EXTENSIONS[0], loc.item);
    const session = await readCliSession(loc.file);
    if (loc.manifest) return session;
    // a sub-agent: the messages of the session that ran it (its root's, or another sub-agent's beside it) hold its call
    const dir = dirname(loc.file);
    const parentAgent = session.parentId?.startsWith(`${basename(dir)}__`)
      ? session.parentId.slice(basename(dir).length + 2)
      : undefined;
    const parentFile = join(dir, `${parentAgent ?? basename(dir)}.messages.json`);
    const parent = await readCliSession(parentFile).catch(() => undefined);
    return withSpawnCall(session, parent);
  }

  private async load(loc: Located): Promise<Session> {
    const stamp = await this.stampOf(loc);
    const hit = this.cache.get(loc.file);
    if (hit && hit.stamp === stamp) return hit.session;
    const session = await this.read(loc);
    this.cache.set(loc.file, { stamp, session });
    return session;
  }

  private async all(): Promise<Session[]> {
    const out: Session[] = [];
    for (const loc of await this.locate()) {
      try {
        out.push(await this.load(loc));
      } catch {
        // gone meanwhile, or unreadable: the listing goes on
      }
    }
    return out;
  }

  /**
   * IncrementalSource: each messages file (a CLI session's, a task's) by its size and time, its
   * session id from its path, so a listing reads no file but the extensions' task histories. A
   * unit's version is what its read takes from elsewhere: the CLI manifest's size and time (title,
   * project, status), the task's history item.
   */
  async listUnits(): Promise<SourceUnit[]> {
    const located = await this.locate();
    return fileUnits(
      located,
      (l) => l.file,
      (l, st): SourceUnit => {
        let version: string | undefined;
        if (l.manifest) {
          const m = statSyncSafe(l.manifest);
          version = JSON.stringify([m ? [m.size, m.mtimeMs] : null, compactionStamp(l), runEndedStamp(l)]);
        } else if (l.layout === 'vscode') version = JSON.stringify([l.item ?? null, taskFilesStamp(l)]);
        else if (l.layout === 'cli') {
          // a sub-agent's read takes its spawn call from its root's messages
          const dir = dirname(l.file);
          const root = statSyncSafe(join(dir, `${basename(dir)}.messages.json`));
          version = JSON.stringify([root ? [root.size, root.mtimeMs] : null, compactionStamp(l), runEndedStamp(l)]);
        }
        return {
          key: l.file,
          sessionId: l.id,
          path: l.file,
          size: st.size,
          mtimeMs: st.mtimeMs,
          ...(version ? { version } : {}),
        };
      },
    );
  }

  async readUnit(unit: SourceUnit): Promise<UnitRead | undefined> {
    const loc = (await this.locate()).find((l) => l.file === unit.key);
    if (!loc) return undefined;
    return { session: await this.read(loc) };
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    return listLoadedSessions(await this.all(), filter);
  }

  async getSession(id: string): Promise<Session | undefined> {
    const loc = (await this.locate()).find((l) => l.id === id);
    return loc ? this.load(loc) : undefined;
  }

  /**
   * Writes a session's current branch as a new Cline CLI session: `<sessions>/<id>/<id>.json` (the
   * manifest) and `<id>.messages.json`, each a new file written whole. Cline's own database row is
   * not needed: Cline lists and resumes a session from its files (and adds the row itself on resume).
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const free = opts.keepId && /^\d+_[a-z0-9]+$/.test(session.id) && !(await this.getSession(session.id));
    const id = free ? session.id : newClineSessionId();
    const dir = join(clineSessionsDir(this.env), id);
    const path = pathToLeaf(session);
    const { messages, warnings, model, provider } = encodeClineMessages(path);
    const project = resolve(session.project ?? this.env.home);
    const now = new Date().toISOString();
    const messagesFile = join(dir, `${id}.messages.json`);
    const firstPrompt = path.find((e) => e.kind === 'message' && e.message.role === 'user');
    const prompt =
      firstPrompt?.kind === 'message'
        ? firstPrompt.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')
        : undefined;
    const kept: JsonObject = {
      ...(session.parentEntryId ? { parentEntryId: session.parentEntryId } : {}),
      ...(session.parentToolCallId ? { parentToolCallId: session.parentToolCallId } : {}),
      from: { source: session.source, id: session.id },
      writtenBy: WRITTEN_BY,
    };
    const doc = {
      version: 1,
      updated_at: now,
      agent: 'lead',
      sessionId: id,
      origin: { source: 'cli', mode: 'user', sessionId: id },
      messages,
    };
    const totalCost = session.cost ?? 0;
    const manifest = {
      version: 1,
      session_id: id,
      source: 'cli',
      pid: 0,
      started_at: session.createdAt || now,
      ended_at: now,
      exit_code: 0,
      status: 'completed',
      interactive: false,
      provider: clineProvider(provider),
      model: model ?? 'claude-sonnet-4-5',
      cwd: project,
      workspace_root: project,
      enable_tools: true,
      enable_spawn: true,
      enable_teams: false,
      ...(prompt ? { prompt } : {}),
      metadata: {
        ...(session.title ? { title: session.title } : {}),
        totalCost,
        usage: {
          inputTokens: session.usage?.input ?? 0,
          outputTokens: session.usage?.output ?? 0,
          cacheReadTokens: session.usage?.cacheRead ?? 0,
          cacheWriteTokens: session.usage?.cacheWrite ?? 0,
          totalCost,
        },
        threadbase: kept,
      },
      messages_path: messagesFile,
    };
    await makeDirectory(dirname(dir));
    await fs.mkdir(dir); // a new folder: an id taken meanwhile fails here
    await writeFileAtomic(messagesFile, `${JSON.stringify(doc, null, 2)}\n`, { exclusive: true });
    await writeFileAtomic(join(dir, `${id}.json`), `${JSON.stringify(manifest, null, 2)}\n`, { exclusive: true });
    const written = await readCliSession(messagesFile);
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = written;
    return warnings.length ? { ...info, meta: { ...info.meta, warnings } } : info;
  }

  /**
   * A sub-agent session under `parent` (a CLI session or sub-agent of this driver) as Cline keeps a
   * `spawn_agent` sub-agent (children.ts): `<agentId>.messages.json` in its root's folder.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const written = await this.getSession(parent.id);
    if (!written?.path || written.meta?.layout !== 'cli') throw new NotFoundError('cline CLI session', parent.id);
    const call = written.entries
      .flatMap((e) => (e.kind === 'message' ? e.message.parts : []))
      .find((p): p is ToolCallPart => p.type === 'tool_call' && p.id === child.parentToolCallId);
    const dir = dirname(written.path);
    const { id, warnings } = await writeSubagentMessages(child, {
      dir,
      rootId: basename(dir),
      parentId: written.id,
      // Cline links a spawn_agent call by its task; any call by the id kept beside
      ...(call ? { keptCallId: call.id } : {}),
    });
    if (!call && child.parentToolCallId !== undefined)
      warnings.push(`sub-agent ${id}: the call that ran it (${child.parentToolCallId}) is not in ${written.path}`);
    const info = await this.getSession(id);
    if (!info) throw new NotFoundError('cline CLI session', id);
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...out } = info;
    return warnings.length ? { ...out, meta: { ...out.meta, warnings } } : out;
  }

  /** `cline --id <id>` in the session's project (its own data folder named when it is not the default one). */
  resumeCommand(session: SessionInfo): string {
    const { CLINE_DIR, CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR } = this.env.env;
    const vars = { CLINE_DIR, CLINE_DATA_DIR, CLINE_SESSION_DATA_DIR };
    return resumeCommandLine(session.project, vars, `cline --id ${shellQuote(session.id)}`);
  }
}

/** Cline's provider id for a model message's provider. */
function clineProvider(provider: string | undefined): string {
  if (!provider) return 'anthropic';
  if (provider === 'openai') return 'openai-native';
  if (provider === 'google') return 'gemini';
  return provider;
}

/** A CLI session's compaction state file's size and time (its read takes the compaction from there), or null. */
function compactionStamp(l: Located): [number, number] | null {
  if (l.layout !== 'cli') return null;
  const c = statSyncSafe(compactionFileOf(l.file));
  return c ? [c.size, c.mtimeMs] : null;
}

/** An extension task's files beside its messages that its read takes from (usage, models, files in context): sizes and times. */
function taskFilesStamp(l: Located): ([number, number] | null)[] | null {
  if (l.layout !== 'vscode') return null;
  return ['ui_messages.json', 'task_metadata.json'].map((name) => {
    const st = statSyncSafe(join(dirname(l.file), name));
    return st ? [st.size, st.mtimeMs] : null;
  });
}

/**
 * Whether a CLI session's run has ended (its root's manifest: interrupted.ts), in its version: a run
 * killed mid-call leaves its files as they were, and its calls read otherwise once its process is gone.
 */
function runEndedStamp(l: Located): boolean | null {
  if (l.layout !== 'cli') return null;
  const dir = dirname(l.file);
  return clineRunEndedOf(l.manifest ?? join(dir, `${basename(dir)}.json`)) ?? null;
}

function statSyncSafe(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
