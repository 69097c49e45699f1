/**
 * The GitHub Copilot CLI driver: reads the sessions under `$COPILOT_HOME/session-state/` (default
 * `~/.copilot`, as Copilot CLI resolves it): `<id>/events.jsonl` with `<id>/workspace.yaml`, and a
 * bare `<id>.jsonl` where an older Copilot CLI kept only the events, each sub-agent run in a session
 * also listed as a session of its own (side-chains.ts runSessions). Writes new sessions (encode.ts).
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
import { pathToLeaf } from '../../model/tree.js';
import type { Session, SessionInfo } from '../../model/types.js';
import { toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { applyFilter, DriverBase, dirEntries, fileUnits, matchesSessionText, READ_ONLY_CAPABILITIES } from '../shared/base.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { type CopilotReadState, initialState, isObject, type JsonObject, parseEvents, SOURCE, sessionOf } from './events.js';
import { endBytes, endLine, hasRunMarkers } from './run-markers.js';
import { runSessions, sideChainRuns } from './side-chains.js';
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

/** The id of the session an events file holds: its folder's name (`<id>/events.jsonl`), else its own (`<id>.jsonl`). */
function sessionIdOfFile(events: string): string | undefined {
  if (basename(events) === 'events.jsonl') return basename(dirname(events));
  return events.endsWith('.jsonl') ? basename(events).slice(0, -'.jsonl'.length) : undefined;
}

/** A sub-agent run's unit key: its file's, this, its agentId. */
const RUN_KEY = '#run:';

/**
 * A file unit's version: workspace.yaml's (workspaceVersion), then what tells the events file appended
 * to from one rewritten (threadbase rewrites a file it wrote whole, by a rename: writeChildSession): its
 * inode and its last bytes as listed (run-markers.ts endBytes; an inode may come back after two renames).
 */
function fileVersion(workspace: string, ino: number, end: string): string {
  return `${workspace}@ino:${ino}@end:${end}`;
}

function fileMarks(version: string | undefined): { ino: string; end: string } | undefined {
  const m = /@ino:([^@]*)@end:([^@]*)$/.exec(version ?? '');
  return m ? { ino: m[1] as string, end: m[2] as string } : undefined;
}

/**
 * What a run holds, for its unit's version: its entries, its last one, its title. A run only grows by
 * events appended to its file (or loses its place when a rewind abandons its call); once done it no
 * longer changes however its session goes on.
 */
function runHeld(run: Session): string {
  return `${run.entries.length}:${run.entries.at(-1)?.id ?? ''}:${run.title ?? ''}`;
}

/** runHeld as a run unit's version keeps it (`[workspace.yaml's version, held]`), else undefined. */
function heldOf(version: string | undefined): string | undefined {
  try {
    const v: unknown = JSON.parse(version ?? '');
    return Array.isArray(v) && v.length === 2 && typeof v[1] === 'string' ? v[1] : undefined;
  } catch {
    return undefined;
  }
}

export class CopilotDriver extends DriverBase {
  readonly name = SOURCE;
  /**
   * 2: a system.message threadbase wrote is a system message; a result's images (binaryResultsForLlm,
   *    a session.binary_asset) are read; a sub-agent run's events are its side chain by their agentId.
   * 3: each sub-agent run is a session (and an index unit) of its own too (side-chains.ts runSessions).
   * 4: a refused or interrupted call's result marked (meta.refused / meta.cancelled, denials.ts).
   * 5: the calls an `abort` left without a result answered in Copilot CLI's interrupted words, cancelled, no error.
   * 6: so too the calls the user's next message finds open; a tool.execution_complete after a session.resume
   *    for a call made before it is no result (Copilot CLI does not send it).
   * 7: a reply threadbase copied that had no response id keeps its entry id and time (its assistant.message's
   *    `threadbase`, encode.ts) and no response id (not threadbase's made-up apiCallId).
   * 8: a title from the first user line is cut by titleLine (between graphemes, not inside a surrogate pair).
   * 9: a response's results in call order, a user's message recorded among them (steering) after them (results-order.ts).
   * 10: a sub-agent run's own calls still open when it is cancelled or fails are answered as interrupted in its side chain.
   * 11: a session threadbase wrote says so (session.start's producer `threadbase`: SessionInfo.writtenBy).
   * 12: a call still open at the next response is answered as interrupted; a queued user message does not answer one.
   * 13: a session threadbase wrote is titled by its workspace name (its source's title) before its first user line.
   * 14: a response's stop reason (its usage record's finishReason) in the model's words (Copilot CLI's `stop` as end_turn, …) and its
   *     API (apiEndpoint), or as threadbase kept them (finish.ts).
   * 15: a result recorded after a call was answered in the interrupted words (a user's message without delivery,
   *     or idle, among a response's results; the next response) takes their place: a call had both.
   * 16: a response's cost in USD threadbase kept (the assistant.message's `threadbase.cost`) is read back.
   * 17: the meta threadbase kept of a response's reasoning and calls (`threadbase.reasoningMeta`, `callMeta`) is read back on them.
   * 18: a reply Copilot CLI continued after max_tokens has the usage of the responses cut short before it (no message of their own).
   * 19: a file attached by its bytes without a name keeps its place among the attachments (meta.copilotAttachment: it names the file when sent).
   * 20: a failed turn's error threadbase kept (`threadbase.error`) is read back.
   * 21: the usage terms threadbase kept beside a usage record (`threadbase.usage`: 1-hour cache writes, advisor requests, …) are read back.
   * 22: a reply Copilot CLI recorded as `reasoningBlocks.orderedBlocks` (several texts, or text before thinking or after a call) has its
   *     blocks in that order; a reply threadbase wrote has its texts and unsigned thinking parts apart, in their order (`threadbase.partLayout`).
   * 23: a failed model call (`session.error` naming its user message) is the model's error entry: its words, stop reason `error`.
   * 24: unsigned thinking threadbase kept beside thinking blocks (`reasoningText`, `threadbase.unsignedThinking`) is read back in place.
   * 25: an attached image keeps its `displayName` (meta.copilotImageName: Copilot CLI sends it before the image).
   * 26: a reply written without a usage record keeps its provider (`threadbase.provider`).
   */
  readonly readerVersion = 27;
  // new sessions only: appending to a file Copilot CLI may be writing is not offered; sub-agent
  // sessions go into a session written here (writeChildSession), side chains in it (encode.ts)
  readonly capabilities: DriverCapabilities = { ...READ_ONLY_CAPABILITIES, write: true, sideChains: true };
  private cache = new Map<string, { stamp: string; session: Session; runs?: Session[] }>();
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

  /** The sub-agent runs a session read from `events` holds, each a session of its own (side-chains.ts runSessions). */
  private runsIn(events: string, session: Session): Session[] {
    const hit = this.cache.get(events);
    if (hit?.session !== session) return runSessions(session);
    hit.runs ??= runSessions(session);
    return hit.runs;
  }

  /** Every session, each followed by its sub-agent runs. */
  private async all(): Promise<Session[]> {
    const out: Session[] = [];
    for (const loc of this.locate()) {
      try {
        const session = await this.load(loc);
        out.push(session, ...this.runsIn(loc.events, session));
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

  /** A session by its folder's name, or a sub-agent run by its agentId (looked for in every session). */
  async getSession(id: string): Promise<Session | undefined> {
    const locs = this.locate();
    const loc = locs.find((l) => l.id === id);
    if (loc) return this.load(loc);
    // a run written here is in a known file; else every session is looked in
    const written = this.runs.get(id)?.events;
    for (const l of written ? [...locs.filter((x) => x.events === written), ...locs] : locs) {
      try {
        const run = this.runsIn(l.events, await this.load(l)).find((r) => r.id === id);
        if (run) return run;
      } catch {
        // gone meanwhile, or unreadable: not there
      }
    }
    return undefined;
  }

  /**
   * IncrementalSource: each events.jsonl by its size and time, append-only (Copilot CLI only appends
   * events); its session id is its folder's name. The version is workspace.yaml's size and time (the
   * session's name and folder are there) and the file's inode (threadbase rewrites a file it wrote
   * whole, by a rename: writeChildSession). Each sub-agent run in a file is a unit too
   * (`<file>#run:<agentId>`, read whole with it), versioned by what it holds, not by its file's size:
   * a run done is not read again while its session goes on.
   *
   * Listing reads no file whole to find its runs unless it may hold new ones (listedRuns): the runs the
   * index knows stand while its file is unchanged, or only grew by events none of which is a run's (a
   * byte scan of what was appended, run-markers.ts); a new file without any is none's.
   */
  async listUnits(known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]> {
    const locs = this.locate();
    const files = await fileUnits(
      locs,
      (l) => l.events,
      (l, st) => {
        const unit = (end: string): SourceUnit => ({
          key: l.events,
          sessionId: l.id,
          path: l.events,
          size: st.size,
          mtimeMs: st.mtimeMs,
          appendOnly: true,
          version: fileVersion(workspaceVersion(l), st.ino, end),
        });
        // a file as the index listed it: its last bytes as they were (not read again)
        const before = known?.get(l.events);
        const kept = before?.size === st.size && before.mtimeMs === st.mtimeMs ? fileMarks(before.version) : undefined;
        return kept?.ino === String(st.ino) ? unit(kept.end) : endBytes(l.events, st.size).then(unit);
      },
    );
    // the runs the index knows in each file, by its key
    const knownRuns = new Map<string, SourceUnit[]>();
    for (const k of known?.values() ?? []) {
      const at = k.key.lastIndexOf(RUN_KEY);
      if (at > 0) knownRuns.set(k.key.slice(0, at), [...(knownRuns.get(k.key.slice(0, at)) ?? []), k]);
    }
    const byFile = new Map(locs.map((l) => [l.events, l]));
    const out: SourceUnit[] = [];
    for (const file of files) {
      out.push(file);
      const loc = byFile.get(file.key);
      // workspace.yaml's version (its project is the run's too), not the file's: a run done stays as read
      const runUnit = (sessionId: string, held: string): SourceUnit => ({
        key: `${file.key}${RUN_KEY}${sessionId}`,
        sessionId,
        path: file.path as string,
        version: JSON.stringify([loc ? workspaceVersion(loc) : '-', held]),
      });
      try {
        const runs = loc ? await this.listedRuns(loc, file, known?.get(file.key), knownRuns.get(file.key) ?? []) : [];
        out.push(...runs.map((r) => runUnit(r.id, r.held)));
      } catch {
        // gone meanwhile, or unreadable: its own unit says so when read
      }
    }
    return out;
  }

  /**
   * The runs a file holds, each with what it holds (runHeld): the ones the index knows (`runs`) while
   * the file is the one the index listed (`before`: same inode, same bytes where it ended, a line's end)
   * and what was appended since holds no run's event; none in a new file without any; else the file
   * read whole (load).
   */
  private async listedRuns(
    loc: Located,
    file: SourceUnit,
    before: SourceUnit | undefined,
    runs: readonly SourceUnit[],
  ): Promise<{ id: string; held: string }[]> {
    const path = loc.events;
    const size = file.size ?? 0;
    const knownHeld = runs.map((r) => ({ id: r.sessionId, held: heldOf(r.version) }));
    const asKnown = knownHeld.every((r) => r.held !== undefined) ? (knownHeld as { id: string; held: string }[]) : undefined;
    if (!before) {
      if (!(await this.scanForRuns(path, 0, size))) return [];
    } else {
      const was = fileMarks(before.version);
      if (asKnown && was && was.ino === fileMarks(file.version)?.ino && before.size !== undefined) {
        if (before.size === size && before.mtimeMs === file.mtimeMs) return asKnown;
        // grown by whole lines after the bytes listed before, none a run's
        if (size > before.size) {
          const end = await endBytes(path, before.size);
          if (end === was.end && endLine(end) && !(await this.scanForRuns(path, before.size, size))) return asKnown;
        }
      }
    }
    return this.runsIn(loc.events, await this.load(loc)).map((r) => ({ id: r.id, held: runHeld(r) }));
  }

  /** Whether the bytes of `file` from `start` to `end` may hold a run's events (run-markers.ts); its own method, for the tests to count. */
  private scanForRuns(file: string, start: number, end: number): Promise<boolean> {
    return hasRunMarkers(file, start, end);
  }

  /** One file read whole, or with `from` only the events appended since (read whole again after a rewind). */
  async readUnit(unit: SourceUnit, from?: ReadFrom): Promise<UnitRead | undefined> {
    if (!unit.path) return undefined;
    if (unit.key.includes(RUN_KEY)) {
      // a sub-agent run: read with the file that holds it, whole
      const loc = this.locate().find((l) => l.events === unit.path);
      const run = loc ? this.runsIn(loc.events, await this.load(loc)).find((r) => r.id === unit.sessionId) : undefined;
      return run ? { session: run } : undefined;
    }
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
    // the encoder is loaded when a session is written: reading (threadbase sessions) does without it
    const { encodeCopilotEvents, encodeWorkspace } = await import('./encode.js');
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
    const { encodeSubAgentEvents, unplacedWarning } = await import('./encode.js');
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
    // the child's own side chains (its sub-agents' work it holds), each inside its run after the call that ran it
    const nested = sideChainRuns(
      child,
      pathToLeaf(child).filter((e) => !e.sidechain),
    );
    const encoded = encodeSubAgentEvents(
      child,
      { toolCallId: callId, agentId, sessionId },
      start,
      { byCall: nested.byCall, sessionId },
      // a turn of the run naming no model (a failed one) is written with the model its parent ran the call on
      modelBefore(records, at),
    );
    const warnings = [...encoded.warnings, ...nested.unplaced.map(unplacedWarning)];
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
    const loc = { id: sessionId, events, workspace: join(dirname(events), 'workspace.yaml') };
    // the run as the reader lists it: a session of its own under its parent
    const written = this.runsIn(events, await this.load(loc)).find((r) => r.id === agentId);
    const said = warnings.length ? { meta: { warnings } } : {};
    if (!written) {
      // a run of no message is no side chain, and so no session of its own
      const { entries: _e, warnings: _w, raw: _r, leafId: _l, path: _p, ...info } = child;
      return {
        ...info,
        id: agentId,
        source: SOURCE,
        messageCount: 0,
        parentId: parent.id,
        parentToolCallId: callId,
        path: events,
        ...said,
      };
    }
    const { entries: _e, warnings: _w, raw: _r, leafId: _l, ...info } = written;
    return { ...info, ...(child.title ? { title: child.title } : {}), ...said };
  }

  /**
   * `copilot --resume=<id>` (Copilot CLI finds the session by id wherever it runs). A sub-agent run's is
   * its session's: Copilot CLI knows no run by its agentId ("No session, task, or name matched"), and the
   * session it resumes holds the run (what it sends is the session's main chain, the run's result in it).
   */
  resumeCommand(session: SessionInfo): string {
    const { COPILOT_HOME } = this.env.env;
    const id =
      (session.parentId && session.path ? sessionIdOfFile(session.path) : undefined) ??
      this.runs.get(session.id)?.sessionId ??
      session.id;
    return resumeCommandLine(session.project, { COPILOT_HOME }, `copilot --resume=${shellQuote(id)}`);
  }
}

/** The model the records name last up to `at` (a reply's, a usage record's, a switch's, else the session's selected one). */
function modelBefore(records: readonly JsonObject[], at: number): string | undefined {
  for (let i = at; i >= 0; i--) {
    const r = records[i];
    const d = r?.data;
    if (!r || !isObject(d)) continue;
    if (r.type === 'assistant.message' && typeof d.model === 'string') return d.model;
    if (r.type === 'session.usage_record' && isObject(d.usage) && typeof d.usage.model === 'string') return d.usage.model;
    if (r.type === 'session.model_change' && typeof d.newModel === 'string') return d.newModel;
    if (r.type === 'session.start' && typeof d.selectedModel === 'string') return d.selectedModel;
  }
  return undefined;
}
