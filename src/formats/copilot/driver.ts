/**
 * The GitHub Copilot CLI driver: reads the sessions under `$COPILOT_HOME/session-state/` (default
 * `~/.copilot`, as Copilot CLI resolves it): `<id>/events.jsonl` with `<id>/workspace.yaml`, and a
 * bare `<id>.jsonl` where an older Copilot CLI kept only the events. Read-only.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
import { countMessages } from '../../model/tree.js';
import type { Session, SessionInfo } from '../../model/types.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { applyFilter, DriverBase, dirEntries, fileUnits, matchesSessionText, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { encodeCopilotEvents, encodeSubAgentEvents, encodeWorkspace } from './encode.js';
import { type CopilotReadState, initialState, isObject, type JsonObject, parseEvents, SOURCE, sessionOf } from './events.js';
import { readWorkspace } from './workspace.js';

export function copilotDir(env: DriverEnv): string {
  return env.env.COPILOT_HOME || join(env.home, '.copilot');
}

interface Located {
  id: string;
  events: string;
  /** workspace.yaml, for a session in its own folder */
  workspace?: string;
}

/** The state an earlier read left, when it is one this reader wrote. */
function readState(text: string | undefined): CopilotReadState | undefined {
  if (!text) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) && typeof v.id === 'string' && typeof v.line === 'number' && isObject(v.pendingUsage)
      ? (v as unknown as CopilotReadState)
      : undefined;
  } catch {
    return undefined;
  }
}

/** workspace.yaml's size and time: a rename there changes the listing without touching the events. */
function workspaceVersion(loc: Located): string {
  try {
    const st = statSync(loc.workspace ?? '');
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

export class CopilotDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 2: a system.message threadbase wrote is a system message; a result's images (binaryResultsForLlm,
   *    a session.binary_asset) are read; a sub-agent run's events are its side chain by their agentId.
   */
  readonly readerVersion = 2;
  // new sessions only: appending to a file Copilot CLI may be writing is not offered; sub-agent
  // sessions go into a session written here (writeChildSession), side chains in it (encode.ts)
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true, sideChains: true };
  private cache = new Map<string, { stamp: string; session: Session }>();
  /** events.jsonl files this driver wrote whole (a sub-agent's run may be put in them after: writeChildSession) */
  private readonly writtenHere = new Set<string>();
  /** The sub-agent runs written here, by agentId: their file, its session, and the call that ran them. */
  private readonly runs = new Map<string, { events: string; sessionId: string; toolCallId: string }>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  private locate(): Located[] {
    const root = join(copilotDir(this.env), 'session-state');
    const out: Located[] = [];
    for (const d of dirEntries(root)) {
      if (d.name.startsWith('.')) continue;
      if (d.isDirectory()) {
        const events = join(root, d.name, 'events.jsonl');
        if (dirEntries(join(root, d.name)).some((f) => f.name === 'events.jsonl' && f.isFile()))
          out.push({ id: d.name, events, workspace: join(root, d.name, 'workspace.yaml') });
      } else if (d.isFile() && d.name.endsWith('.jsonl')) {
        out.push({ id: d.name.slice(0, -'.jsonl'.length), events: join(root, d.name) });
      }
    }
    return out;
  }

  private async readWhole(loc: Located): Promise<{ session: Session; offset: number; state: CopilotReadState }> {
    const st = statSync(loc.events);
    const parsed = await parseEvents(loc.events, initialState(loc.id, st.mtime.toISOString()));
    const workspace = loc.workspace ? await readWorkspace(loc.workspace) : {};
    return { session: sessionOf(loc.events, parsed, workspace), offset: parsed.offset, state: parsed.state };
  }

  private async load(loc: Located): Promise<Session> {
    const st = statSync(loc.events);
    const stamp = `${st.size}:${st.mtimeMs}:${workspaceVersion(loc)}`;
    const hit = this.cache.get(loc.events);
    if (hit?.stamp === stamp) return hit.session;
    const { session } = await this.readWhole(loc);
    this.cache.set(loc.events, { stamp, session });
    return session;
  }

  private async all(): Promise<Session[]> {
    const out: Session[] = [];
    for (const loc of this.locate()) {
      try {
        out.push(await this.load(loc));
      } catch {
        // gone meanwhile, or unreadable: the rest still list
      }
    }
    return out;
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const infos = (await this.all())
      .filter((s) => matchesSessionText(s, s.title, filter?.text))
      .map(({ entries: _e, leafId: _l, raw: _r, warnings, ...info }) =>
        warnings?.length ? { ...info, meta: { ...info.meta, warnings } } : info,
      );
    return applyFilter(infos, { ...filter, text: undefined });
  }

  async getSession(id: string): Promise<Session | undefined> {
    const loc = this.locate().find((l) => l.id === id);
    return loc ? this.load(loc) : undefined;
  }

  /**
   * IncrementalSource: each events.jsonl by its size and time, append-only (Copilot CLI only appends
   * events); its session id is its folder's name, so listing reads nothing. The version is
   * workspace.yaml's size and time (the session's name and folder are there).
   */
  async listUnits(_known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]> {
    return fileUnits(
      this.locate(),
      (l) => l.events,
      (l, st) => ({
        key: l.events,
        sessionId: l.id,
        path: l.events,
        size: st.size,
        mtimeMs: st.mtimeMs,
        appendOnly: true,
        version: workspaceVersion(l),
      }),
    );
  }

  /** One file read whole, or with `from` only the events appended since (read whole again after a rewind). */
  async readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined> {
    if (!unit.path) return undefined;
    const loc = this.locate().find((l) => l.events === unit.path) ?? {
      id: unit.sessionId,
      events: unit.path,
      ...(basename(unit.path) === 'events.jsonl' ? { workspace: join(dirname(unit.path), 'workspace.yaml') } : {}),
    };
    const state = from ? readState(from.state) : undefined;
    if (from && state) {
      const fromLine = state.line;
      const parsed = await parseEvents(loc.events, state, { start: from.offset });
      if (!parsed.rewound) {
        const workspace = loc.workspace ? await readWorkspace(loc.workspace) : {};
        const session = sessionOf(loc.events, parsed, workspace);
        return { session, appended: true, offset: parsed.offset, fromLine, state: JSON.stringify(parsed.state) };
      }
    }
    const whole = await this.readWhole(loc);
    return { session: whole.session, offset: whole.offset, state: JSON.stringify(whole.state) };
  }

  /**
   * Writes a session's current branch as a new Copilot CLI session (encode.ts): a new
   * `session-state/<id>/` folder with events.jsonl and workspace.yaml, each written whole and
   * atomically; `copilot --resume=<id>` resumes it.
   */
  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const keep = opts.keepId && uuid.test(session.id) && !this.locate().some((l) => l.id === session.id);
    const id = keep ? session.id : randomUUID();
    const encoded = encodeCopilotEvents(session, { sessionId: id });
    const dir = join(copilotDir(this.env), 'session-state', id);
    const events = join(dir, 'events.jsonl');
    const now = new Date().toISOString();
    const last = encoded.records.at(-1)?.timestamp;
    // workspace.yaml first: a folder with events.jsonl is a session to Copilot CLI and to this reader
    await writeFileAtomic(
      join(dir, 'workspace.yaml'),
      encodeWorkspace(id, session.project, session.title, session.createdAt || now, typeof last === 'string' ? last : now),
      { exclusive: true },
    );
    await writeFileAtomic(events, encoded.jsonl, { exclusive: true });
    this.writtenHere.add(events);
    const written = await this.load({ id, events, workspace: join(dir, 'workspace.yaml') });
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = written;
    return encoded.warnings.length ? { ...info, meta: { ...info.meta, warnings: encoded.warnings } } : info;
  }

  /**
   * A sub-agent session under `parent` (a session, or a sub-agent's run, written here), as Copilot
   * CLI records a sub-agent: its run inside the parent's events.jsonl, right after the spawning call's
   * tool.execution_start (encodeSubAgentEvents); the file is rewritten whole and atomically. The
   * returned session is the run (its id the run's `agentId`); reading the parent, it is a side chain.
   */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const run = this.runs.get(parent.id);
    const events = run?.events ?? this.locate().find((l) => l.id === parent.id)?.events;
    // a file Copilot CLI wrote (or may be writing) is not rewritten
    if (!events || !this.writtenHere.has(events)) throw new NotFoundError('copilot session written here', parent.id);
    const callId = child.parentToolCallId;
    const records = (await fs.readFile(events, 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as JsonObject);
    // the spawning call among the parent's own events (a run's: those of the call that ran it)
    const at = records.findIndex(
      (r) =>
        r.type === 'tool.execution_start' &&
        isObject(r.data) &&
        r.data.toolCallId === callId &&
        r.data.parentToolCallId === run?.toolCallId,
    );
    const start = records[at];
    if (callId === undefined || !start) {
      // no call, or one the written file does not hold (in a run this driver did not write): nowhere to put it
      const warning = `sub-agent ${child.id} not written: the call that ran it (${callId ?? 'none'}) is not among ${parent.id}'s in ${events}`;
      const { entries: _e, warnings: _w, raw: _r, leafId: _l, path: _p, ...info } = child;
      return { ...info, source: SOURCE, messageCount: 0, parentId: parent.id, meta: { warnings: [warning] } };
    }
    const agentId = randomUUID();
    const sessionId = run?.sessionId ?? parent.id;
    const encoded = encodeSubAgentEvents(child, { toolCallId: callId, agentId, sessionId }, start);
    const next = records[at + 1];
    // its events' times within the call's (the file's times stay in order)
    const from = String(start.timestamp);
    const to = typeof next?.timestamp === 'string' ? next.timestamp : undefined;
    for (const r of encoded.records) {
      const t = String(r.timestamp);
      r.timestamp = t < from ? from : to !== undefined && t > to ? to : t;
    }
    if (next) next.parentId = encoded.records.at(-1)?.id ?? start.id;
    records.splice(at + 1, 0, ...encoded.records);
    await writeFileAtomic(events, toJsonl(records));
    this.runs.set(agentId, { events, sessionId, toolCallId: callId });
    const written = await this.load({ id: sessionId, events, workspace: join(dirname(events), 'workspace.yaml') });
    // its entries as a session of its own would hold them (no longer a side chain)
    const own = written.entries.flatMap((e) =>
      isObject(e.raw) && e.raw.agentId === agentId && e.sidechain ? [{ ...e, sidechain: false }] : [],
    );
    const first = encoded.records[0]?.timestamp;
    const last = encoded.records.at(-1)?.timestamp;
    return {
      id: agentId,
      source: SOURCE,
      ...(written.project ? { project: written.project } : {}),
      ...(child.title ? { title: child.title } : {}),
      createdAt: typeof first === 'string' ? first : written.createdAt,
      updatedAt: typeof last === 'string' ? last : written.updatedAt,
      messageCount: countMessages(own),
      parentId: parent.id,
      parentToolCallId: callId,
      path: events,
      ...(encoded.warnings.length ? { meta: { warnings: encoded.warnings } } : {}),
    };
  }

  /** `copilot --resume <id>` (Copilot CLI finds the session by id wherever it runs). */
  resumeCommand(session: SessionInfo): string {
    const { COPILOT_HOME } = this.env.env;
    return resumeCommandLine(session.project, { COPILOT_HOME }, `copilot --resume=${shellQuote(session.id)}`);
  }
}
