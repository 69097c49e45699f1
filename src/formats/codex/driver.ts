/**
 * The Codex CLI driver: rollouts under `$CODEX_HOME/sessions` (default `~/.codex/sessions`). Reads
 * every rollout (compressed ones too: compressed.ts), writes new ones codex resumes (`codex resume <id>`),
 * appends whole lines, forks.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import { join } from 'node:path';
import type {
  DriverCapabilities,
  DriverEnv,
  ForkOptions,
  IncrementalSource,
  SessionFilter,
  SourceUnit,
  UnitRead,
  WriteOptions,
} from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { buildContext, type Context, type ContextOptions, messageText, pathToLeaf } from '../../model/tree.js';
import type {
  BranchSummaryEntry,
  CompactionEntry,
  Entry,
  Message,
  MessageEntry,
  Session,
  SessionInfo,
} from '../../model/types.js';
import { localCommand } from '../claude/local-command.js';
import { injectedLabel } from '../injected.js';
import { appendJsonlLines, makeDirectory, toJsonl, writeFileAtomic } from '../shared/atomic.js';
import { applyFilter, DriverBase, dirEntries, fileUnits, matchesSessionText } from '../shared/base.js';
import { branchSummaryField, COPIED_BRANCH_SUMMARY } from '../shared/branch-summary.js';
import { readJsonl } from '../shared/jsonl.js';
import { resumeCommandLine, shellQuote } from '../shared/shell.js';
import { openDatabase } from '../shared/sqlite.js';
import { usageExtrasOf } from '../shared/usage-extras.js';
import { WRITTEN_BY } from '../shared/written-by.js';
import { keptSpawnCallOf, loneSubagentMeta, rootSessionIdOf, spawnDepthOf, subagentMeta, threadSpawn } from './children.js';
import { isCompressedRollout, isRolloutName, materializeRollout, plainRolloutPath } from './compressed.js';
import { messageToItems } from './encode.js';
import {
  branchSummaryMessage,
  dropLastUserTurns,
  isSummaryText,
  normalizeCalls,
  selectUserMessages,
  userTextItems,
} from './history.js';
import { followThreadHistory, projectRollout, recordThreadHistory } from './history-projection.js';
import { injectedKind, isObject, itemToMessage, type JsonObject, keptReasoningParts, SUMMARY_PREFIX } from './items.js';
import { baseInstructionsOf, droppedCompactedTurns, idFromFileName, readRollout, SOURCE, withRolledBack } from './rollout.js';
import { codexSqliteHome, defaultModelProvider, recordThread, renameThread, stateDbPath } from './state-db.js';
import { hasTurns, wrapTurns } from './turns.js';

/** The CLI version written into session_meta of sessions threadbase creates. */
const WRITER_CLI_VERSION = '0.169.0';

export function codexHome(env: DriverEnv): string {
  return env.env.CODEX_HOME || join(env.home, '.codex');
}

interface Cached {
  mtimeMs: number;
  size: number;
  session: Session;
}

/**
 * Every rollout file under dir: `rollout-….jsonl`, and the `.jsonl.zst` codex compressed one into
 * unless its plain sibling is there too, which codex reads then (compressed.ts).
 */
function* walkRollouts(dir: string): Generator<string> {
  const entries = dirEntries(dir);
  const names = new Set(entries.map((d) => d.name));
  for (const d of entries) {
    const p = join(dir, d.name);
    if (d.isDirectory()) yield* walkRollouts(p);
    else if (d.isFile() && isRolloutName(d.name) && !(isCompressedRollout(d.name) && names.has(plainRolloutPath(d.name))))
      yield p;
  }
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The parent's call that spawned this sub-agent (its spawn_agent output names the agent id). */
function spawnCall(parent: SessionInfo | undefined, childId: string): string | undefined {
  const spawned = parent?.meta?.spawnedAgents;
  if (!isObject(spawned)) return undefined;
  const call = spawned[childId];
  return typeof call === 'string' ? call : undefined;
}

/** A unit's version holds the thread's /rename title: a rename changes no rollout. */
const TITLE_VERSION = 'title:';

export class CodexDriver extends DriverBase implements IncrementalSource {
  readonly name = SOURCE;
  /**
   * 1: rollbacks, tool searches, generated images, the usage after a cut-off response, forked sub-agents' titles;
   * 2: web searches marked providerExecuted;
   * 3: the output of a shell command codex saw fail is an error result;
   * 4: a rollback counts the user turns in the last compaction's history too (reaching into it, it continues
   *    from the compaction and records the turns it dropped there; the trim of injected context reaches back to it);
   * 5: a user message threadbase wrote for a branch summary (the item's `threadbase.branchSummary`) is that branch summary.
   * 6: an output in codex's words for a refused or cancelled call is marked `meta.refused` / `meta.cancelled` (denials.ts).
   * 9: another agent's reply without a response id keeps the entry id threadbase wrote (`threadbase.entryId`
   *    on its token_count), and gets no response id made up.
   * 12: the automatic approval reviewer's timeout or failed review is `meta.cancelled`, and an MCP call's words after
   *    0.171's wall-time header are read for its mark (denials.ts).
   * 13: names from codex's state database where codex keeps it (config.toml's `sqlite_home`, `$CODEX_SQLITE_HOME`).
   * 14: an automatic approval reviewer's denial with a model's own rejection instructions (the gpt-6 models') is refused.
   * 15: a rollout threadbase wrote says so (session_meta's originator `threadbase`: SessionInfo.writtenBy).
   * 16: a code-mode cell a refused or cancelled nested call ended, and the async reviewer's failure after a change of
   *    authorization, are marked (denials.ts).
   * 17: so is a code-mode cell whose header splits its wall time (code-mode; overhead).
   * 18: rollouts codex compressed (`….jsonl.zst`, compressed.ts) are listed and read.
   * 19: a compressed rollout that breaks off (cut short, damaged) gives the lines before the break and a warning
   *    (compressed.ts), where it was an error and no session; one whose frame asks for a window over 128 MiB is an
   *    error, as codex's decoder refuses it.
   */
  readonly readerVersion = 19;
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
  private cache = new Map<string, Cached>();
  /** session id → rollout, from the rollouts' names */
  private fileById = new Map<string, string>();

  constructor(private readonly env: DriverEnv) {
    super();
  }

  get home(): string {
    return codexHome(this.env);
  }

  get sessionsDir(): string {
    return join(this.home, 'sessions');
  }

  /** Where codex keeps its SQLite databases (config.toml's `sqlite_home`, `$CODEX_SQLITE_HOME`, or its home). */
  get sqliteHome(): string {
    return codexSqliteHome(this.home, this.env.home, this.env.env);
  }

  /** Every rollout: live ones under sessions/, and those `codex` archived under archived_sessions/. */
  private *rollouts(): Generator<string> {
    yield* walkRollouts(this.sessionsDir);
    yield* walkRollouts(join(this.home, 'archived_sessions'));
  }

  private async load(file: string): Promise<Session> {
    const st = await fs.stat(file);
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.session;
    const session = await this.readFile(file);
    this.cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, session });
    return session;
  }

  /** A rollout as a session, not cached (`load` caches). */
  private async readFile(file: string): Promise<Session> {
    const read = await readRollout(file);
    const archived = file.startsWith(join(this.home, 'archived_sessions'));
    return archived ? { ...read, meta: { ...read.meta, archived: true } } : read;
  }

  /** The listing fields a rollout alone does not give: its /rename title, and the parent's call that spawned it. */
  private async withLinks(s: Session, title: string | undefined): Promise<Session> {
    const parentFile = s.parentId ? await this.fileOf(s.parentId) : undefined;
    const call = (parentFile ? spawnCall(await this.load(parentFile), s.id) : undefined) ?? keptSpawnCallOf(s.raw);
    return { ...s, ...(title ? { title } : {}), ...(call ? { parentToolCallId: call } : {}) };
  }

  /**
   * For `threadbase sync`: every rollout by its size and time, none parsed (a full listing parses
   * every rollout). A /rename changes no rollout, so the thread's title is the unit's version.
   */
  async listUnits(known?: ReadonlyMap<string, SourceUnit>): Promise<SourceUnit[]> {
    const names = await this.threadNames();
    const files: string[] = [];
    for (const file of this.rollouts()) files.push(file);
    return fileUnits(
      files,
      (path) => path,
      (path, st) => {
        const unit = (sessionId: string): SourceUnit => {
          const title = names.get(sessionId);
          return {
            key: path,
            sessionId,
            path,
            size: st.size,
            mtimeMs: st.mtimeMs,
            ...(title ? { version: `${TITLE_VERSION}${title}` } : {}),
          };
        };
        const prev = known?.get(path);
        const id =
          idFromFileName(path) ?? (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs ? prev.sessionId : undefined);
        // a rollout renamed by hand still names its session in its session_meta
        return id !== undefined ? unit(id) : this.load(path).then((s) => unit(s.id));
      },
    );
  }

  /** For `threadbase sync`: one rollout read whole (not kept in the parse cache, so a long sync stays small). */
  async readUnit(unit: SourceUnit): Promise<UnitRead | undefined> {
    if (!unit.path) return undefined;
    let s: Session;
    try {
      s = await this.readFile(unit.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const title = unit.version?.startsWith(TITLE_VERSION) ? unit.version.slice(TITLE_VERSION.length) : undefined;
    return { session: await this.withLinks(s, title) };
  }

  /**
   * Thread names set with /rename: older codex appends them to session_index.jsonl (newest line
   * last); 0.169 keeps them in state_<n>.sqlite `threads.name`, read here read-only.
   */
  private async threadNames(): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const [id, name] of this.stateDbNames()) names.set(id, name);
    const file = join(this.home, 'session_index.jsonl');
    try {
      await fs.access(file);
    } catch {
      return names;
    }
    for await (const l of readJsonl(file)) {
      const v = l.value;
      if (isObject(v) && typeof v.id === 'string' && typeof v.thread_name === 'string') names.set(v.id, v.thread_name);
    }
    return names;
  }

  private stateDbNames(): [string, string][] {
    const file = stateDbPath(this.sqliteHome);
    if (!file) return [];
    try {
      const db = openDatabase(file, { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare("SELECT id, name FROM threads WHERE name IS NOT NULL AND name != ''").all() as {
          id: string;
          name: string;
        }[];
        return rows.map((r) => [r.id, r.name]);
      } finally {
        db.close();
      }
    } catch {
      // a schema without names, or a database codex holds locked: titles come from the rollouts
      return [];
    }
  }

  async listSessions(filter?: SessionFilter): Promise<SessionInfo[]> {
    const out: SessionInfo[] = [];
    const names = await this.threadNames();
    const keptCalls = new Map<string, string>();
    for (const file of this.rollouts()) {
      try {
        const s = await this.load(file);
        const { entries: _e, warnings: _w, raw: _r, ...info } = s;
        const kept = keptSpawnCallOf(s.raw);
        if (kept !== undefined) keptCalls.set(s.id, kept);
        const name = names.get(s.id);
        if (matchesSessionText(s, name ?? s.title, filter?.text)) out.push(name ? { ...info, title: name } : info);
      } catch {
        // A file that vanished or cannot be read is left out of the listing; getSession reports it.
      }
    }
    const byId = new Map(out.map((s) => [s.id, s]));
    const linked = out.map((s) => {
      const call = (s.parentId ? spawnCall(byId.get(s.parentId), s.id) : undefined) ?? keptCalls.get(s.id);
      return call ? { ...s, parentToolCallId: call } : s;
    });
    return applyFilter(linked, { ...filter, text: undefined });
  }

  private async fileOf(id: string): Promise<string | undefined> {
    // a kept rollout may be gone since (codex compressed it, or decompressed it to append)
    for (const s of this.cache.values())
      if (s.session.id === id && s.session.path && existsSync(s.session.path)) return s.session.path;
    const named = this.fileById.get(id);
    if (named && existsSync(named)) return named;
    // one walk maps every id a rollout's name carries (a sync asks once per sub-agent, for its parent)
    const byId = new Map<string, string>();
    for (const file of this.rollouts()) {
      const fileId = idFromFileName(file);
      if (fileId && !byId.has(fileId)) byId.set(fileId, file); // live sessions/ before archived_sessions/
    }
    this.fileById = byId;
    const found = byId.get(id);
    if (found) return found;
    // A rollout renamed by hand still carries its id in session_meta.
    for (const file of this.rollouts()) {
      if (idFromFileName(file)) continue;
      if ((await this.load(file)).id === id) return file;
    }
    return undefined;
  }

  async getSession(id: string): Promise<Session | undefined> {
    const file = await this.fileOf(id);
    if (!file) return undefined;
    const s = await this.load(file);
    return this.withLinks(s, (await this.threadNames()).get(s.id));
  }

  protected override contextOptions(): ContextOptions {
    return CODEX_CONTEXT_OPTIONS;
  }

  override async getMessages(sessionId: string, opts: { leafId?: string; includeAncestors?: boolean } = {}): Promise<Message[]> {
    const s = await this.requireSession(sessionId);
    const own = codexContext(s, { leafId: opts.leafId }).messages;
    if (!opts.includeAncestors || !s.parentId) return own;
    const parent = await this.getSession(s.parentId);
    if (!parent) return own;
    // A fork copies the parent's records (same item ids); a sub-agent's rollout starts afresh.
    const parentIds = new Set(parent.entries.map((e) => e.id));
    if (s.entries.some((e) => e.kind === 'message' && parentIds.has(e.id))) return own;
    return [...(await this.getMessages(parent.id, { includeAncestors: true })), ...own];
  }

  resumeCommand(session: SessionInfo): string {
    const { CODEX_HOME } = this.env.env;
    return resumeCommandLine(session.project, { CODEX_HOME }, `codex resume ${shellQuote(session.id)}`);
  }

  async writeSession(session: Session, opts: WriteOptions = {}): Promise<SessionInfo> {
    let id: string = randomUUID();
    if (opts.keepId && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(session.id)) {
      if (!(await this.fileOf(session.id))) id = session.id;
    }
    return this.writeRollout(session, id, (meta) => loneSubagentMeta(meta, id));
  }

  /** A sub-agent thread under `parent` (a thread written here), its session_meta as codex's own (children.ts). */
  async writeChildSession(parent: SessionInfo, child: Session): Promise<SessionInfo> {
    const parentFile = await this.fileOf(parent.id);
    if (!parentFile) throw new NotFoundError('codex session', parent.id);
    const parentMeta = (await this.load(parentFile)).raw;
    const link = {
      parentThreadId: parent.id,
      sessionId: rootSessionIdOf(parentMeta, parent.id),
      depth: spawnDepthOf(parentMeta) + 1,
      ...(child.parentToolCallId ? { callId: child.parentToolCallId } : {}),
    };
    const written = await this.writeRollout({ ...child, parentId: null }, randomUUID(), (meta) => subagentMeta(meta, link));
    return { ...written, parentId: parent.id, ...(link.callId ? { parentToolCallId: link.callId } : {}) };
  }

  private async writeRollout(
    session: Session,
    id: string,
    metaOf: (payload: JsonObject) => JsonObject = (payload) => payload,
  ): Promise<SessionInfo> {
    let { lines, warnings, createdAt } = encodeRollout(session, id, new Date(), {
      modelProvider: defaultModelProvider(this.home),
    });
    const [first] = lines;
    if (first && isObject(first.payload)) first.payload = metaOf(first.payload);
    if (first && isObject(first.payload)) lines = asTurns(session, id, first, lines);
    const created = new Date(createdAt);
    const when = Number.isNaN(created.getTime()) ? new Date() : created;
    const stamp = `${when.getUTCFullYear()}-${pad(when.getUTCMonth() + 1)}-${pad(when.getUTCDate())}T${pad(when.getUTCHours())}-${pad(when.getUTCMinutes())}-${pad(when.getUTCSeconds())}`;
    const dir = join(this.sessionsDir, String(when.getUTCFullYear()), pad(when.getUTCMonth() + 1), pad(when.getUTCDate()));
    const file = join(dir, `rollout-${stamp}-${id}.jsonl`);
    await writeFileAtomic(file, toJsonl(lines), { exclusive: true });
    const written = await this.load(file);
    // codex 0.169 lists threads from its state database, not from the rollouts on disk
    const skipped = recordThread(this.home, written, file, this.sqliteHome);
    if (skipped && skipped !== 'no state database') warnings.push(`not listed by codex resume --last: ${skipped}`);
    // codex 0.171's app-server reads a paginated thread's turns from its projection, which it makes only as it writes
    if (!skipped && isObject(written.raw) && isObject(written.raw.payload) && written.raw.payload.history_mode === 'paginated') {
      const unprojected = recordThreadHistory(this.sqliteHome, id, await fs.readFile(file));
      if (unprojected?.startsWith('thread history database not'))
        warnings.push(`codex app-server shows no turns until codex resumes it: ${unprojected}`);
    }
    const { entries: _e, warnings: _w, raw: _r, ...info } = written;
    return warnings.length ? { ...info, meta: { ...info.meta, warnings } } : info;
  }

  /**
   * Appends entries as whole lines at the rollout's end, which codex reads as continuing its leaf:
   * each entry must follow the leaf (the first) or the entry before it, or an entry that only
   * records off the model's history (events, turn contexts) come after; a parent of `null` follows
   * the leaf. A parent earlier on the live branch, or on a branch codex rolled back
   * (`thread_rolled_back`), is refused (`not_linear`): codex would read the entry as continuing the
   * live branch. A fork at that entry continues it instead.
   */
  async appendEntries(sessionId: string, entries: Entry[]): Promise<void> {
    const found = await this.fileOf(sessionId);
    if (!found) throw new NotFoundError('codex session', sessionId);
    const s = await this.load(found);
    const known = new Set(s.entries.map((e) => e.id));
    const chain: Entry[] = s.entries.length ? pathToLeaf(s) : [];
    const leaf = chain.at(-1)?.id;
    for (const e of entries) {
      if (e.parentId !== null) {
        if (!known.has(e.parentId)) {
          throw new ThreadbaseError('orphan_entry', `parent ${e.parentId} is not in the session`, { file: found, id: e.id });
        }
        const at = chain.findLastIndex((c) => c.id === e.parentId);
        if (at < 0)
          throw new ThreadbaseError(
            'not_linear',
            `codex session ${sessionId}: entry ${e.id} cannot follow ${e.parentId}, which is on a branch codex rolled back (thread_rolled_back); appended, it would continue the live branch after ${leaf}. Append after ${leaf}, or fork at ${e.parentId}`,
            { file: found, id: e.id },
          );
        const after = chain.slice(at + 1).find((c) => !OFF_HISTORY.has(c.kind));
        if (after)
          throw new ThreadbaseError(
            'not_linear',
            `codex session ${sessionId}: entry ${e.id} cannot follow ${e.parentId}: codex rollouts are linear and ${after.id} follows it; appended, it would continue after ${chain.at(-1)?.id}. Append after that, or fork at ${e.parentId}`,
            { file: found, id: e.id },
          );
      }
      known.add(e.id);
      chain.push(e);
    }
    // a compressed rollout is decompressed back to its plain name first, as codex does before it appends
    const file = await materializeRollout(found);
    if (file !== found) this.cache.delete(found);
    // Newer codex numbers every record (`ordinal`) and refuses to resume a rollout whose last
    // record has none: continue the numbering when the file has one. The thread's token total
    // continues from the file's last one.
    let last: number | undefined;
    let totals = zeroTotals();
    let inTurn = false;
    for await (const l of readJsonl(file)) {
      if (!isObject(l.value)) continue;
      last = typeof l.value.ordinal === 'number' ? l.value.ordinal : undefined;
      totals = recordedTotal(l.value) ?? totals;
      const event = l.value.type === 'event_msg' && isObject(l.value.payload) ? l.value.payload.type : undefined;
      if (event === 'task_started') inTurn = true;
      else if (event === 'task_complete' || event === 'turn_aborted') inTurn = false;
    }
    // another agent's compaction gets its replacement history from the path it continues
    const lines = encodeEntries(withReplacementHistories(chain, chain.length - entries.length), new Date().toISOString(), totals);
    let numbered = last === undefined ? lines : lines.map((r, i) => withOrdinal(r, (last as number) + 1 + i));
    // a paginated thread's appended prompts become turns of codex's as a converted session's do
    // (turns.ts), when none is in progress and codex 0.171's projection of them was checked
    const paginated = isObject(s.raw) && isObject(s.raw.payload) && s.raw.payload.history_mode === 'paginated';
    if (paginated && last !== undefined && !inTurn && !hasTurns(lines)) {
      const from = last + 1;
      const wrapped = wrapTurns(s.id, lines).map((r, i) => withOrdinal(r, from + i));
      const projected = projectRollout(s.id, Buffer.from(toJsonl(wrapped)), { offset: 0, ordinal: from });
      if (typeof projected !== 'string' && projected.turns.length > 0) numbered = wrapped;
    }
    await appendJsonlLines(file, numbered);
    // codex 0.171's projection of a paginated thread (thread_history_<n>.sqlite) follows the appended records when it can
    if (last !== undefined && numbered.length) {
      const bytes = await fs.readFile(file);
      followThreadHistory(this.sqliteHome, s.id, bytes, bytes.length - Buffer.byteLength(toJsonl(numbered)));
    }
  }

  async forkSession(sessionId: string, opts: ForkOptions = {}): Promise<SessionInfo> {
    const s = await this.requireSession(sessionId);
    const path = withRolledBack(s.entries, pathToLeaf(s, opts.at));
    const entries = path.map((e, i) => ({ ...e, parentId: i === 0 ? null : (path[i - 1]?.id ?? null) }));
    const fork: Session = {
      ...s,
      entries,
      leafId: entries[entries.length - 1]?.id ?? null,
      parentId: s.id,
      parentEntryId: entries[entries.length - 1]?.id,
      createdAt: new Date().toISOString(),
      ...(opts.title ? { title: opts.title } : {}),
    };
    const written = await this.writeSession(fork);
    // A rollout has no title field: the name goes where codex keeps thread names.
    if (opts.title) {
      await this.setTitle(written.id, opts.title);
      return { ...written, title: opts.title };
    }
    return written;
  }

  /**
   * Names a thread as codex 0.169's rename does: a `{id, thread_name, updated_at}` line appended to
   * `$CODEX_HOME/session_index.jsonl` (the newest line for an id wins), and the thread's row in the
   * state database renamed (`name`, `updated_at`), which is where codex's thread listing takes the
   * name from. No database or no row: only the line; a database threadbase cannot write (an unknown
   * schema, locked) is left alone with a warning.
   */
  async setTitle(sessionId: string, title: string): Promise<void> {
    if (!(await this.fileOf(sessionId))) throw new NotFoundError('codex session', sessionId);
    const now = new Date();
    await makeDirectory(this.home);
    await appendJsonlLines(join(this.home, 'session_index.jsonl'), [
      { id: sessionId, thread_name: title, updated_at: now.toISOString() },
    ]);
    const skipped = renameThread(this.sqliteHome, sessionId, title, now);
    if (skipped && skipped !== 'no state database' && skipped !== 'no row for the thread')
      this.warn(`codex session ${sessionId} renamed in session_index.jsonl only: ${skipped}`);
  }

  /** Where a warning of an operation that returns nothing goes (DriverEnv.warn). */
  private warn(message: string): void {
    if (this.env.warn) this.env.warn(message);
    else console.warn(`threadbase: ${message}`);
  }
}

/** Entry kinds outside the model's history: an appended entry may follow one earlier than them. */
const OFF_HISTORY = new Set<Entry['kind']>(['metadata', 'model_change', 'label']);

const CODEX_CONTEXT_OPTIONS: ContextOptions = { compactionText: (c) => `${SUMMARY_PREFIX}\n${c.summary}` };

/**
 * The context codex rebuilds on resume, normalized as codex sends it (codex's ResumeContext): base
 * instructions as `system`, and after a compaction either the exact replacement history the rollout
 * recorded, or (local compaction) the recent user messages before it followed by the prefixed summary.
 */
export function codexContext(s: Session, opts: ContextOptions = {}): Context {
  const ctx = buildContext(s, { ...CODEX_CONTEXT_OPTIONS, ...opts });
  const baseInstructions = s.source === SOURCE ? baseInstructionsOf(s.raw) : undefined;
  if (baseInstructions !== undefined) ctx.system = baseInstructions;
  const at = ctx.messages.findIndex((m) => m.meta?.compactionSummary);
  if (at >= 0) {
    const replacement = compactedHistory(pathToLeaf(s, opts.leafId));
    if (replacement) ctx.messages = [...ctx.messages.slice(0, at), ...replacement, ...ctx.messages.slice(at + 1)];
  }
  ctx.messages = normalizeCalls(ctx.messages);
  return ctx;
}

const textMessage = (texts: string[], meta: Message['meta']): Message => ({
  role: 'user',
  parts: texts.map((text) => ({ type: 'text', text })),
  meta,
});

/**
 * The history codex replays up to the last compaction on the path: the exact replacement history the
 * rollout recorded, or (local compaction) the user's messages codex had in its history then, the
 * newest within its token budget, followed by the summary. Replayed compaction by compaction, as codex
 * does: an earlier compaction's cut message is what a later one collects. A rollback that reached past
 * the compaction (more user turns than followed it) drops the rest from that history, as codex's
 * drop_last_n_user_turns does on the history it replayed.
 */
function compactedHistory(path: readonly Entry[]): Message[] | undefined {
  // the user's messages in codex's history so far, as their text items
  let users: string[][] = [];
  let history: Message[] | undefined;
  // the branch summaries so far, by the text codex has of them: a compaction copies that text without the entry
  const summaries = new Map<string, BranchSummaryEntry>();
  const userMessages = (ms: Message[]) =>
    ms
      .filter((m) => m.role === 'user' && !m.meta?.codexInjected)
      .map(userTextItems)
      .filter((items) => !isSummaryText(items.join('')));
  for (const e of path) {
    if (e.kind === 'message') {
      users.push(...userMessages([e.message]));
      continue;
    }
    // codex has a branch summary (in a rollout threadbase wrote) as a user message of its text
    if (e.kind === 'branch_summary') {
      users.push(...userMessages([branchSummaryMessage(e)]));
      summaries.set(messageText(branchSummaryMessage(e)), e);
      continue;
    }
    // a rollback that reached past the compaction drops the turns left over from its history
    const dropped = droppedCompactedTurns(e);
    if (dropped && history) {
      history = dropLastUserTurns(history, dropped);
      users = userMessages(history);
      continue;
    }
    if (e.kind !== 'compaction') continue;
    history = withCopiedBranchSummaries(replacedHistory(e, users), summaries);
    users = userMessages(history);
  }
  return history;
}

/**
 * The history codex replaced everything before compaction `e` with: the replacement history it recorded,
 * or (local compaction) the user's messages `users` codex had, the newest within its budget, and the summary.
 */
function replacedHistory(e: CompactionEntry, users: string[][]): Message[] {
  const payload = isObject(e.raw) && isObject(e.raw.payload) ? e.raw.payload : undefined;
  if (payload && Array.isArray(payload.replacement_history))
    return payload.replacement_history.filter(isObject).flatMap((it) => {
      const read = itemToMessage(it);
      if (!read) return [];
      const kept = isObject(it.threadbase) ? it.threadbase : {};
      const m: Message = { ...read, ...keptReply(kept), parts: [...keptReasoningParts(kept.reasoning), ...read.parts] };
      // Marked: these come from the compaction record, not from entries on the path (the summary as such).
      const summary = m.role === 'user' && isSummaryText(userTextItems(m).join(''));
      const marked = { compactionReplacement: true, ...(summary ? { compactionSummary: true } : {}) };
      // a thinking-only reply kept after the item (replacementItems)
      const after = isObject(kept.reasoningAfter) ? kept.reasoningAfter : {};
      const thought = keptReasoningParts(after.reasoning);
      return [
        { ...m, meta: { ...m.meta, ...marked } },
        ...(thought.length
          ? [{ role: 'assistant' as const, ...keptReply(after), parts: thought, meta: { compactionReplacement: true } }]
          : []),
      ];
    });
  // codex sends compacted.message as it is (older rollouts recorded it without the prefix)
  const summary = typeof payload?.message === 'string' ? payload.message : `${SUMMARY_PREFIX}\n${e.summary}`;
  return [
    ...selectUserMessages(users).map((t) => textMessage(t, { compactionReplacement: true })),
    textMessage([summary || '(no summary available)'], { compactionSummary: true }),
  ];
}

/** A kept reply's model, provider and API (replacementItems). */
function keptReply(kept: JsonObject): Pick<Message, 'model' | 'provider' | 'api'> {
  return {
    ...(typeof kept.model === 'string' ? { model: kept.model } : {}),
    ...(typeof kept.provider === 'string' ? { provider: kept.provider } : {}),
    ...(typeof kept.api === 'string' ? { api: kept.api } : {}),
  };
}

/**
 * A compaction's history with each user message that is the text of a branch summary before it (a copy
 * codex made, which lost the entry threadbase kept beside it) marked as that branch summary's copy, so
 * that it is written as the branch summary again in another agent (convert/session.ts keptMessagesOf).
 */
function withCopiedBranchSummaries(history: Message[], summaries: ReadonlyMap<string, BranchSummaryEntry>): Message[] {
  if (summaries.size === 0) return history;
  return history.map((m) => {
    const e = m.role === 'user' && !m.meta?.compactionSummary ? summaries.get(messageText(m)) : undefined;
    return e ? { ...m, meta: { ...m.meta, branchSummary: true, [COPIED_BRANCH_SUMMARY]: branchSummaryField(e) } } : m;
  });
}

/** A message's role and text, as a compaction's kept copy repeats it. */
const keptKey = (m: Message) => `${m.role}\n${messageText(m)}`;

/** Initial context codex injects itself (its instructions, AGENTS.md, `<environment_context>`), wherever its copy stands. */
const INITIAL_CONTEXT = new Set(['environment_context', 'user_instructions']);
const isContextCopy = (m: Message) =>
  m.role === 'system' || (m.role === 'user' && INITIAL_CONTEXT.has(injectedKind(messageText(m)) ?? ''));

/**
 * Another agent's compaction as a `compacted` record with a replacement history, so codex sends what
 * the agent sent after it. Without one, codex rebuilds the history itself from every user message
 * before the compaction and the summary (compact.rs build_compacted_history): prompts the summary
 * already covers, and none of the replies and tool calls the agent kept.
 * - The entries it keeps (pi's `firstKeptEntryId`, Claude Code's preserved segment: the entries from
 *   the first kept one to it, as buildContext sends them) follow the summary, as the agent sent them:
 *   messages, tool calls and their outputs, reasoning codex can replay, branch summaries as the user
 *   message they are in codex. They stay written before the compaction too, as codex's own records
 *   are (what codex shows of the thread).
 * - Keeping none, it may be followed by copies of messages from before it (how every target writes
 *   codex's replacement history: the messages codex kept, after the summary; convert/session.ts):
 *   those become codex's own record again, the copies then the summary, as codex recorded it, and
 *   are not written again (codex would send them after the summary). Copies are user or developer
 *   messages repeating ones before the compaction: the user's own in order; the context codex
 *   injects itself (developer messages, `<environment_context>`…: isContextCopy) any earlier one not
 *   repeated yet, as a compaction mid-turn injects it again before the turn's prompt, after the
 *   user's earlier prompts (compact.rs insert_initial_context_before_last_real_user_or_summary). The
 *   first message that is none ends them.
 * - Keeping none, it may also be followed by copies of the messages right before it, a reply among
 *   them (keptRunAfter: how the other agents hold the entries such a compaction kept, converted back):
 *   those follow the summary in the replacement history again, and are not written again.
 * - Keeping nothing, the summary alone.
 * Only the entries from index `from` on are returned (an append: the rollout's path, then the new ones).
 */
function withReplacementHistories(path: readonly Entry[], from = 0): Entry[] {
  const absorbed = new Set<Entry>();
  const out: Entry[] = [];
  path.forEach((e, i) => {
    if (absorbed.has(e) || i < from) return;
    if (e.kind !== 'compaction' || e.rawSource === SOURCE) {
      out.push(e);
      return;
    }
    const message = `${SUMMARY_PREFIX}\n${e.summary}`;
    const summary: Message = { role: 'user', parts: [{ type: 'text', text: message }] };
    const keptFrom = e.firstKeptEntryId === undefined ? -1 : path.slice(0, i).findIndex((x) => x.id === e.firstKeptEntryId);
    const keptBefore = keptFrom < 0 ? [] : path.slice(keptFrom, i).flatMap(historyMessage);
    const keptAfter = keptBefore.length ? [] : keptRunAfter(path, i);
    const copies = keptBefore.length || keptAfter.length ? [] : copiesAfter(path, i);
    for (const k of [...keptAfter, ...copies]) absorbed.add(k);
    const history = [
      ...copies.flatMap(historyMessage),
      summary,
      ...keptBefore,
      ...keptAfter.map((k) => (k as MessageEntry).message),
    ];
    const replacement = replacementItems(history);
    out.push({ ...e, rawSource: SOURCE, raw: line(e.timestamp, 'compacted', { message, replacement_history: replacement }) });
  });
  return out;
}

/**
 * A compaction's kept messages as the items of its replacement history. What codex has no item for is
 * kept beside the items, in the field codex ignores (read back by replacedHistory):
 * - another provider's thinking (an agent_reasoning event in the rollout) on the assistant item after
 *   it, which may be the next message's: Claude Code keeps a response's signed thinking in a record of
 *   its own, before the record of its text or call; thinking no assistant item follows (a thinking-only
 *   reply before a user's message or last) on the item before it as a reply of its own (`reasoningAfter`);
 * - a reply's model, provider and API (codex records a model per turn) on its first item.
 */
function replacementItems(history: readonly Message[]): JsonObject[] {
  const items: JsonObject[] = [];
  let reasoning: JsonObject[] = [];
  let reasoningOf: Message | undefined;
  const keep = (at: number, field: JsonObject) => {
    const item = items[at] as JsonObject;
    items[at] = { ...item, threadbase: { ...(isObject(item.threadbase) ? item.threadbase : {}), ...field } };
  };
  const replyOf = (m: Message): JsonObject =>
    m.model ? { model: m.model, ...(m.provider ? { provider: m.provider } : {}), ...(m.api ? { api: m.api } : {}) } : {};
  const keepReasoningAfter = () => {
    if (reasoning.length && reasoningOf && items.length)
      keep(items.length - 1, { reasoningAfter: { reasoning, ...replyOf(reasoningOf) } });
    reasoning = [];
    reasoningOf = undefined;
  };
  for (const m of history) {
    const assistant = m.role === 'assistant';
    if (!assistant) keepReasoningAfter();
    let first = assistant;
    for (const enc of messageToItems(m)) {
      if (enc.event?.type === 'agent_reasoning' && typeof enc.event.threadbase === 'string') {
        reasoning.push(enc.event);
        reasoningOf ??= m;
      }
      if (!enc.item) continue;
      items.push(withFailedFlag(enc.item, m));
      const kept: JsonObject = { ...(assistant && reasoning.length ? { reasoning } : {}), ...(first ? replyOf(m) : {}) };
      if (Object.keys(kept).length) keep(items.length - 1, kept);
      if (assistant) {
        reasoning = [];
        reasoningOf = undefined;
      }
      first = false;
    }
  }
  keepReasoningAfter();
  return items;
}

/** An entry as the message codex has of it in its history: a message, or a branch summary (a user message of its text). */
function historyMessage(e: Entry): Message[] {
  if (e.kind === 'message') return [e.message];
  if (e.kind === 'branch_summary') return [{ role: 'user', parts: [{ type: 'text', text: e.text ?? e.summary }] }];
  return [];
}

/** An item as codex sends it, for comparing copies (no ids, statuses or fields of threadbase's own). */
function itemKey(item: JsonObject): string {
  const content = Array.isArray(item.content)
    ? item.content.filter(isObject).map((c) => [c.type, c.text ?? c.image_url ?? null])
    : null;
  return JSON.stringify([
    item.type,
    item.role ?? null,
    content,
    item.name ?? null,
    item.arguments ?? null,
    item.call_id ?? null,
    item.output ?? null,
  ]);
}

const itemKeys = (m: Message) => messageToItems(m).flatMap((enc) => (enc.item ? [itemKey(enc.item)] : []));

/**
 * The messages right after the compaction at `i` that repeat, reply included, the ones right before it:
 * the entries another agent's compaction kept, as every target writes a codex replacement history that
 * keeps them after the summary (threadbase's own writing of a compaction that keeps entries). Compared
 * as codex's items, since a target may split or join a response's items into messages its own way.
 */
function keptRunAfter(path: readonly Entry[], i: number): Entry[] {
  const before = path.slice(0, i).flatMap((x) => (x.kind === 'message' ? itemKeys(x.message) : []));
  const after: Entry[] = [];
  for (const next of path.slice(i + 1)) {
    if (OFF_HISTORY.has(next.kind)) continue;
    if (next.kind !== 'message') break;
    after.push(next);
  }
  for (let n = after.length; n > 0; n--) {
    const run = after.slice(0, n) as MessageEntry[];
    if (!run.some((e) => e.message.role === 'assistant' || e.message.role === 'tool')) continue;
    const keys = run.flatMap((e) => itemKeys(e.message));
    if (keys.length === 0 || keys.length > before.length) continue;
    const tail = before.slice(before.length - keys.length);
    if (keys.every((k, j) => k === tail[j])) return run;
  }
  return [];
}

/** The copies of messages from before the compaction at `i` that follow it (withReplacementHistories). */
function copiesAfter(path: readonly Entry[], i: number): Entry[] {
  // branch summaries as the user messages codex has of them: codex's own compaction copies those too
  const before = path.slice(0, i).flatMap((x) => historyMessage(x).map(keptKey));
  const kept: Entry[] = [];
  const repeated = new Set<number>();
  let from = 0;
  for (const next of path.slice(i + 1)) {
    // records outside the history (the target's own bookkeeping) do not end the copies
    if (OFF_HISTORY.has(next.kind)) continue;
    const [message] = historyMessage(next);
    if (!message || (message.role !== 'user' && message.role !== 'system')) break;
    const key = keptKey(message);
    if (isContextCopy(message)) {
      const at = before.findIndex((k, j) => k === key && !repeated.has(j));
      if (at < 0) break;
      repeated.add(at);
    } else {
      const at = before.indexOf(key, from);
      if (at < 0) break;
      from = at + 1;
    }
    kept.push(next);
  }
  return kept;
}

/**
 * The rollout of thread `id` with another agent's prompts made codex's turns (turns.ts) and
 * `history_mode: "paginated"`, as codex 0.171 records its own threads, so its app-server lists their
 * turns and items from the projection threadbase writes for them; only when that projection is one
 * checked (projectRollout), else as encoded (legacy: no history_mode, codex reads its turns from
 * the rollout). Codex's own threads are written as they are (one without a turn too); a copy of one
 * threadbase wrapped (read as the legacy rollout it stands for) is wrapped again.
 */
function asTurns(session: Session, id: string, first: JsonObject, lines: JsonObject[]): JsonObject[] {
  const meta = first.payload as JsonObject;
  const own = session.source === SOURCE;
  const body = lines.slice(1);
  if (hasTurns(body) || (own && meta.history_mode !== 'paginated')) return lines;
  const wrapped = [{ ...first, payload: { ...meta, history_mode: 'paginated' } }, ...wrapTurns(id, body)].map((r, i) =>
    withOrdinal(r, i),
  );
  const projected = projectRollout(id, Buffer.from(toJsonl(wrapped)));
  return typeof projected !== 'string' && projected.turns.length > 0 ? wrapped : lines;
}

/** A copy of a rollout record with its ordinal set, keys in codex's order (timestamp, ordinal, type, payload). */
function withOrdinal(record: JsonObject, ordinal: number): JsonObject {
  const { timestamp, ordinal: _old, ...rest } = record;
  return { timestamp, ordinal, ...rest };
}

function line(timestamp: string, type: string, payload: unknown): JsonObject {
  return { timestamp, type, payload };
}

/** Codex's TokenUsage fields; `total_token_usage` is their running sum over the thread. */
const USAGE_FIELDS = [
  'input_tokens',
  'cached_input_tokens',
  'cache_write_input_tokens',
  'output_tokens',
  'reasoning_output_tokens',
  'total_tokens',
] as const;
type TokenTotals = Record<(typeof USAGE_FIELDS)[number], number>;

function zeroTotals(): TokenTotals {
  return Object.fromEntries(USAGE_FIELDS.map((k) => [k, 0])) as TokenTotals;
}

/** The thread total a token_count record states, if it states one. */
function recordedTotal(record: JsonObject): TokenTotals | undefined {
  const p = isObject(record.payload) ? record.payload : undefined;
  if (record.type !== 'event_msg' || p?.type !== 'token_count' || !isObject(p.info)) return undefined;
  const t = p.info.total_token_usage;
  if (!isObject(t)) return undefined;
  const out = zeroTotals();
  for (const k of USAGE_FIELDS) out[k] = typeof t[k] === 'number' ? t[k] : 0;
  return out;
}

function usageRecord(u: NonNullable<Message['usage']>): TokenTotals {
  return {
    input_tokens: u.input + u.cacheRead,
    cached_input_tokens: u.cacheRead,
    cache_write_input_tokens: u.cacheWrite,
    output_tokens: u.output,
    reasoning_output_tokens: u.reasoning,
    total_tokens: u.input + u.cacheRead + u.output,
  };
}

/**
 * Whether a user message is a prompt the user typed, which codex records with a `user_message` event
 * (and, paginated, makes a turn of: turns.ts). A message its agent wrote itself (codex's environment
 * context, Claude Code's `<local-command-caveat>`: injectedLabel) or Claude Code's record of a command
 * the user ran in Claude Code itself and its output (`<command-name>/compact…`,
 * `<local-command-stdout>`: localCommand, never sent to the model as a request) gets none, as codex
 * records the context it injects: the model still gets it, codex lists no turn of its own for it. Nor does
 * another agent's compaction summary kept as a user message (`meta.compactionSummary`, or codex's own
 * summary text): codex records its own summary in `compacted` records, never as a prompt.
 */
function isTypedPrompt(m: Message): boolean {
  if (m.meta?.codexInjected || injectedLabel(m) !== undefined) return false;
  // a compaction's summary is no turn of the user's to codex (is_user_turn_boundary): codex records no event for its own
  if (m.meta?.compactionSummary || isSummaryText(messageText(m))) return false;
  return localCommand(messageText(m)) === undefined;
}

/**
 * A failed call's result item of message `m`: codex keeps a command's exit only in its UI events, so
 * another agent's error flag rides in a `threadbase` field codex ignores (items.ts reads it back).
 */
function withFailedFlag(item: JsonObject, m: Message): JsonObject {
  if (item.type !== 'function_call_output' && item.type !== 'custom_tool_call_output') return item;
  const failed = m.parts.some((p) => p.type === 'tool_result' && p.isError === true && p.callId === item.call_id);
  return failed ? { ...item, threadbase: { isError: true } } : item;
}

/** One entry as rollout lines: its own lines when it came from codex, else encoded from the model. */
function encodeEntry(e: Entry, fallbackTime: string, totals: TokenTotals, nextResponseId?: string): JsonObject[] {
  const ts = e.timestamp || fallbackTime;
  const own = (records: JsonObject[]): JsonObject[] => {
    for (const r of records) Object.assign(totals, recordedTotal(r));
    return records;
  };
  if (e.rawSource === SOURCE && isObject(e.raw) && typeof e.raw.type === 'string') return own([e.raw]);
  // One response's items (and the UI events between them), as codex wrote them.
  if (e.rawSource === SOURCE && Array.isArray(e.raw) && e.raw.length > 0 && e.raw.every(isObject))
    return own(e.raw as JsonObject[]);
  switch (e.kind) {
    case 'message': {
      const m = e.message;
      const out: JsonObject[] = [];
      for (const enc of messageToItems(m)) {
        if (enc.item) out.push(line(ts, 'response_item', withFailedFlag(enc.item, m)));
        if (enc.event) out.push(line(ts, 'event_msg', enc.event));
      }
      if (m.role === 'user' && isTypedPrompt(m)) {
        const text = messageText(m);
        if (text) out.push(line(ts, 'event_msg', { type: 'user_message', message: text, images: [] }));
      }
      if (m.role === 'assistant') {
        const text = messageText(m);
        if (text) out.push(line(ts, 'event_msg', { type: 'agent_message', message: text }));
        // Usage once per response, on its last record. The model (which codex records per turn, in
        // a turn_context it would then resume with), the response's id, else the entry's (so that
        // `stats` knows the copy) and the usage codex has no field for (1-hour cache writes, fast
        // mode, place, web searches, advisor requests) ride along in a `threadbase` field codex ignores.
        const lastOfResponse = !m.responseId || m.responseId !== nextResponseId;
        if (lastOfResponse && (m.usage || m.model)) {
          const u = m.usage ? usageRecord(m.usage) : undefined;
          // codex resumes its thread total from the last total_token_usage: a running sum, as codex writes it.
          if (u) for (const k of USAGE_FIELDS) totals[k] += u[k];
          const extras = usageExtrasOf(m.usage, { reasoning: false });
          const marker = {
            ...(m.model ? { model: m.model } : {}),
            ...(m.model && m.provider ? { provider: m.provider } : {}),
            ...(m.responseId ? { responseId: m.responseId } : { entryId: e.id }),
            ...(extras ? { usage: extras } : {}),
          };
          out.push(
            line(ts, 'event_msg', {
              type: 'token_count',
              info: u ? { total_token_usage: { ...totals }, last_token_usage: u } : null,
              rate_limits: null,
              ...(Object.keys(marker).length ? { threadbase: marker } : {}),
            }),
          );
        }
      }
      return out;
    }
    case 'compaction':
      return [line(ts, 'compacted', { message: `${SUMMARY_PREFIX}\n${e.summary}` })];
    case 'branch_summary':
      // a user message of what the agent it came from sends for it (convert/session.ts), the entry kept
      // in the item's `threadbase.branchSummary`, which codex does not read (rollout.ts reads it back)
      return [
        line(ts, 'response_item', {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: e.text ?? e.summary }],
          threadbase: { branchSummary: branchSummaryField(e) },
        }),
      ];
    default:
      // Model changes, labels and other agents' metadata have no rollout record codex would accept.
      return [];
  }
}

/**
 * Entries in order as rollout lines. The records of one response (consecutive, one responseId) are
 * one codex response: its usage once, after its last record, and all of it at that record's time,
 * the one whose usage it carries, which `stats` knows a copy by (CopyKey).
 */
function encodeEntries(entries: readonly Entry[], fallbackTime: string, totals: TokenTotals = zeroTotals()): JsonObject[] {
  const responseTime = new Map<Entry, string>();
  for (let i = entries.length - 1, last: Entry | undefined; i >= 0; i--) {
    const e = entries[i] as Entry;
    const rid = e.kind === 'message' ? e.message.responseId : undefined;
    const lastRid = last?.kind === 'message' ? last.message.responseId : undefined;
    if (!rid || rid !== lastRid) last = e;
    else if (last?.timestamp) responseTime.set(e, last.timestamp);
  }
  return entries.flatMap((e, i) => {
    const next = entries[i + 1];
    const nextResponseId = next?.kind === 'message' ? next.message.responseId : undefined;
    const at = responseTime.get(e);
    return encodeEntry(at ? { ...e, timestamp: at } : e, fallbackTime, totals, nextResponseId);
  });
}

/** A copy's session_meta from its codex original's: threadbase's originator, codex's kept beside it (codex reads neither). */
function ownCopyMeta(payload: JsonObject): JsonObject {
  const { originator } = payload;
  if (originator === undefined || originator === WRITTEN_BY) return { ...payload, originator: WRITTEN_BY };
  const kept = isObject(payload.threadbase) ? payload.threadbase : {};
  return { ...payload, originator: WRITTEN_BY, threadbase: { ...kept, originator } };
}

/**
 * A whole session as a rollout with the given id: session_meta first, then the path to the leaf. A
 * rollout of codex's own keeps its start time; one converted from another agent starts now (as codex's
 * own forks do), its records keeping their times: so it is listed as new, and the index counts a copied
 * response in the session it was first recorded in (copies.ts). Either says threadbase wrote it (originator
 * `threadbase`; a copy of codex's keeps codex's originator in the session_meta's `threadbase` field), so that
 * of sessions that started together the original counts (copies.ts). A session_meta without a
 * `model_provider` gets `opts.modelProvider` (the driver passes the one codex is configured with), as
 * codex records one in every thread it starts: codex 0.169 lists a thread that names none under
 * whatever provider is configured at the time (`thread/list`, `codex resume --last`), not the one it ran on.
 */
export function encodeRollout(
  session: Session,
  id: string,
  now: Date = new Date(),
  opts: { modelProvider?: string } = {},
): { lines: JsonObject[]; warnings: string[]; createdAt: string } {
  const warnings: string[] = [];
  const own = session.source === SOURCE && isObject(session.raw) && isObject(session.raw.payload);
  const created = (own && session.createdAt) || now.toISOString();
  const metaPayload: JsonObject = own
    ? ownCopyMeta((session.raw as { payload: JsonObject }).payload)
    : {
        timestamp: created,
        cwd: session.project ?? '/',
        originator: WRITTEN_BY,
        cli_version: WRITER_CLI_VERSION,
        source: 'cli',
      };
  metaPayload.id = id;
  // A top thread's session is its own; a sub-agent's stays its root thread's, which codex resumes it
  // under (the session-id header and prompt_cache_key; it looks the id up nowhere): writeChildSession
  // sets that of a new root, and a sub-agent written alone becomes a top thread (loneSubagentMeta).
  if ('session_id' in metaPayload && !(threadSpawn(metaPayload) && typeof metaPayload.session_id === 'string'))
    metaPayload.session_id = id;
  if (typeof metaPayload.model_provider !== 'string' && opts.modelProvider) metaPayload.model_provider = opts.modelProvider;
  metaPayload.timestamp = created;
  if (session.parentId && session.source === SOURCE) metaPayload.forked_from_id = session.parentId;
  const lines: JsonObject[] = [line(created, 'session_meta', metaPayload)];
  const path = session.entries.length ? withRolledBack(session.entries, pathToLeaf(session)) : [];
  const dropped = session.entries.length - path.length;
  if (dropped > 0) warnings.push(`codex rollouts are linear: ${dropped} entries off the current branch were not written`);
  lines.push(...encodeEntries(withReplacementHistories(path), session.createdAt || created));
  // Codex's own records may carry ordinals; then every record must, in order (see appendEntries).
  const numbered = lines.some((r) => typeof r.ordinal === 'number') ? lines.map((r, i) => withOrdinal(r, i)) : lines;
  return { lines: numbered, warnings, createdAt: created };
}
