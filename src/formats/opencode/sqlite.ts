/**
 * OpenCode's SQLite database (`opencode.db`, tables project/session/message/part, each message and
 * part a JSON `data` column). Reading opens the file read-only, reads what it needs and closes it
 * again, so a running OpenCode (WAL mode) is never blocked. Columns are looked up first, so a
 * database from an older or newer OpenCode (missing or extra columns, extra tables) still reads; a
 * row with malformed JSON is skipped with a warning naming table and id. Writing adds a new session
 * with its messages, parts and (when missing) its project row in one IMMEDIATE transaction.
 */
import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import type { ParseWarning } from '../../model/types.js';
import { jsonValueOf } from '../shared/jsonl.js';
import { columnsOf, openDatabase, requireTables } from '../shared/sqlite.js';
import { isJson, type Json, num, type OcMessage, type OcSessionData, OPENCODE, obj, str } from './records.js';

const BUSY_TIMEOUT_MS = 2000;

export interface SessionRowSummary {
  info: Json;
  messageCount: number;
  project?: { id: string; worktree: string };
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/i.test(String((err as Error)?.message));
}

/** `label`: the agent whose database it is (OpenCode, or a fork of it keeping its records), as errors name it. */
function wrap(file: string, err: unknown, label: string): Error {
  if (err instanceof ThreadbaseError) return err;
  if (isBusy(err))
    return new ThreadbaseError(
      'locked',
      `the ${label} database is locked by another process; try again when ${label} is idle`,
      { file },
      { cause: err },
    );
  return new ThreadbaseError('sqlite', `cannot read the ${label} database: ${(err as Error).message}`, { file }, { cause: err });
}

/** Opens the database read-only for one quick read. */
export function withReadDb<T>(file: string, label: string, fn: (db: Database.Database) => T): T {
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    return fn(db);
  } catch (err) {
    throw wrap(file, err, label);
  } finally {
    db?.close();
  }
}

function parseJsonColumn(text: unknown): unknown {
  return typeof text === 'string' ? jsonValueOf(text) : undefined;
}

/** A session row as Session.Info (the shape `opencode export` prints). */
export function sessionInfoFromRow(row: Json): Json {
  const info: Json = { id: row.id };
  const set = (key: string, v: unknown) => {
    if (v !== undefined && v !== null) info[key] = v;
  };
  set('slug', row.slug);
  set('projectID', row.project_id);
  set('workspaceID', row.workspace_id);
  set('directory', row.directory);
  set('path', row.path);
  set('parentID', row.parent_id);
  set('title', row.title);
  set('agent', row.agent);
  set('model', parseJsonColumn(row.model));
  set('version', row.version);
  if (row.share_url) info.share = { url: row.share_url };
  // OpenCode keeps a summary when any of its counts is set
  if ([row.summary_additions, row.summary_deletions, row.summary_files].some((n) => n !== undefined && n !== null)) {
    info.summary = {
      additions: row.summary_additions ?? 0,
      deletions: row.summary_deletions ?? 0,
      files: row.summary_files ?? 0,
      ...(row.summary_diffs ? { diffs: parseJsonColumn(row.summary_diffs) } : {}),
    };
  }
  set('metadata', parseJsonColumn(row.metadata));
  set('cost', row.cost);
  if (row.tokens_input !== undefined) {
    info.tokens = {
      input: row.tokens_input ?? 0,
      output: row.tokens_output ?? 0,
      reasoning: row.tokens_reasoning ?? 0,
      cache: { read: row.tokens_cache_read ?? 0, write: row.tokens_cache_write ?? 0 },
    };
  }
  set('revert', parseJsonColumn(row.revert));
  set('permission', parseJsonColumn(row.permission));
  const time: Json = { created: row.time_created, updated: row.time_updated };
  if (row.time_compacting) time.compacting = row.time_compacting;
  if (row.time_archived) time.archived = row.time_archived;
  info.time = time;
  return info;
}

function projectsOf(db: Database.Database): Map<string, { id: string; worktree: string }> {
  const out = new Map<string, { id: string; worktree: string }>();
  if (!columnsOf(db, 'project').has('worktree')) return out;
  for (const r of db.prepare('SELECT id, worktree FROM project').all() as { id: string; worktree: string }[]) {
    out.set(r.id, { id: r.id, worktree: r.worktree });
  }
  return out;
}

/** Every session in the database with its message count (no messages read). */
export function listSessionRows(file: string, label = OPENCODE.label): SessionRowSummary[] {
  return withReadDb(file, label, (db) => {
    requireTables(db, file, ['session', 'message'], label);
    const projects = projectsOf(db);
    const counts = new Map<string, number>();
    for (const r of db.prepare('SELECT session_id AS id, COUNT(*) AS n FROM message GROUP BY session_id').all() as {
      id: string;
      n: number;
    }[]) {
      counts.set(r.id, r.n);
    }
    const rows = db.prepare('SELECT * FROM session').all() as Json[];
    return rows.map((row) => {
      const info = sessionInfoFromRow(row);
      const project = projects.get(str(row.project_id) ?? '');
      return { info, messageCount: counts.get(str(row.id) ?? '') ?? 0, ...(project ? { project } : {}) };
    });
  });
}

/** One session with its messages and parts; undefined when the id is not in the database. */
export function readSessionData(
  file: string,
  sessionId: string,
  warnings: ParseWarning[],
  label = OPENCODE.label,
): OcSessionData | undefined {
  return withReadDb(file, label, (db) => {
    requireTables(db, file, ['session', 'message', 'part'], label);
    const row = db.prepare('SELECT * FROM session WHERE id = ?').get(sessionId) as Json | undefined;
    if (!row) return undefined;
    const project = projectsOf(db).get(str(row.project_id) ?? '');
    const messageCols = columnsOf(db, 'message');
    const order = messageCols.has('time_created') ? 'time_created, id' : 'id';
    const messages: OcMessage[] = [];
    const byId = new Map<string, OcMessage>();
    for (const r of db.prepare(`SELECT * FROM message WHERE session_id = ? ORDER BY ${order}`).all(sessionId) as Json[]) {
      const data = parseJsonColumn(r.data);
      const id = str(r.id) ?? '';
      if (!isJson(data)) {
        warnings.push({ file, id, message: `message row ${id}: malformed JSON in data; skipped` });
        continue;
      }
      const info: Json = { ...data, id, sessionID: sessionId };
      if (!obj(info.time) && num(r.time_created) !== undefined) info.time = { created: r.time_created };
      const m = { info, parts: [] as Json[] };
      messages.push(m);
      byId.set(id, m);
    }
    for (const r of db.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id').all(sessionId) as Json[]) {
      const data = parseJsonColumn(r.data);
      const id = str(r.id) ?? '';
      if (!isJson(data)) {
        warnings.push({ file, id, message: `part row ${id}: malformed JSON in data; skipped` });
        continue;
      }
      const owner = byId.get(str(r.message_id) ?? '');
      if (!owner) {
        warnings.push({
          file,
          id,
          message: `part row ${id}: its message ${String(r.message_id)} is not in the session; skipped`,
        });
        continue;
      }
      owner.parts.push({ ...data, id, sessionID: sessionId, messageID: r.message_id });
    }
    const parentToolCallId = str(row.parent_id) ? spawningCall(db, str(row.parent_id) as string, sessionId) : undefined;
    return {
      info: sessionInfoFromRow(row),
      messages,
      ...(project ? { project } : {}),
      ...(parentToolCallId ? { parentToolCallId } : {}),
    };
  });
}

/** The call id of the parent's task tool whose metadata names the sub-agent session. */
function spawningCall(db: Database.Database, parentId: string, childId: string): string | undefined {
  const rows = db.prepare('SELECT data FROM part WHERE session_id = ? AND data LIKE ?').all(parentId, `%${childId}%`) as {
    data: string;
  }[];
  for (const r of rows) {
    const p = parseJsonColumn(r.data);
    if (isJson(p) && p.type === 'tool' && obj(obj(p.state)?.metadata)?.sessionId === childId) return str(p.callID);
  }
  return undefined;
}

/** Whether a session id is taken. */
export function sessionExists(file: string, sessionId: string, label = OPENCODE.label): boolean {
  if (!existsSync(file)) return false;
  return withReadDb(file, label, (db) => db.prepare('SELECT 1 FROM session WHERE id = ?').get(sessionId) !== undefined);
}

/** The project whose worktree holds `directory` (longest match), from the database. */
export function findProject(
  file: string,
  directory: string,
  label = OPENCODE.label,
): { id: string; worktree: string } | undefined {
  if (!existsSync(file)) return undefined;
  return withReadDb(file, label, (db) => {
    let best: { id: string; worktree: string } | undefined;
    for (const p of projectsOf(db).values()) {
      if (p.worktree === '/') continue;
      if (directory === p.worktree || directory.startsWith(`${p.worktree}/`)) {
        if (!best || p.worktree.length > best.worktree.length) best = p;
      }
    }
    return best;
  });
}

function insert(db: Database.Database, table: string, cols: Set<string>, row: Json): void {
  const names = Object.keys(row).filter((k) => cols.has(k));
  db.prepare(`INSERT INTO ${table} (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
    ...names.map((n) => {
      const v = row[n];
      return v === undefined
        ? null
        : typeof v === 'object' && v !== null
          ? JSON.stringify(v)
          : typeof v === 'boolean'
            ? Number(v)
            : v;
    }),
  );
}

type TableColumns = Record<'message' | 'part', Set<string>>;

/** Message rows and their part rows (ids, session and message ids as columns, the rest as `data`). */
function insertMessages(
  conn: Database.Database,
  cols: TableColumns,
  sessionId: string,
  messages: readonly OcMessage[],
  fallbackCreated: number,
): void {
  for (const m of messages) {
    const { id, sessionID: _s, ...rest } = m.info;
    const mt = obj(m.info.time) ?? {};
    const created = num(mt.created) ?? fallbackCreated;
    insert(conn, 'message', cols.message, {
      id,
      session_id: sessionId,
      time_created: created,
      time_updated: num(mt.completed) ?? created,
      data: rest,
    });
    for (const p of m.parts) {
      const { id: pid, sessionID: _ps, messageID: _pm, ...prest } = p;
      insert(conn, 'part', cols.part, {
        id: pid,
        message_id: id,
        session_id: sessionId,
        time_created: created,
        time_updated: created,
        data: prest,
      });
    }
  }
}

/** The id of the session's last message row, read on its own (what an append checks against). */
export function readLastMessageId(file: string, sessionId: string, label = OPENCODE.label): string | undefined {
  return withReadDb(file, label, (db) => lastMessageId(db, sessionId));
}

/** The id of the session's last message as OpenCode orders them, or undefined when it has none. */
function lastMessageId(conn: Database.Database, sessionId: string): string | undefined {
  const order = columnsOf(conn, 'message').has('time_created') ? 'time_created DESC, id DESC' : 'id DESC';
  const row = conn.prepare(`SELECT id FROM message WHERE session_id = ? ORDER BY ${order} LIMIT 1`).get(sessionId) as
    | { id: string }
    | undefined;
  return row?.id;
}

export interface AppendData {
  sessionId: string;
  messages: readonly OcMessage[];
  /** existing tool parts completed by an appended result (whole part JSON, ids included) */
  updatedParts: readonly Json[];
  /** the session's last message when it was read; the append is refused if OpenCode added one since */
  expectedLastMessageId: string | undefined;
  tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } };
  cost: number;
}

/**
 * Appends messages (and completes earlier tool parts) in one IMMEDIATE transaction, adding their
 * tokens and cost to the session's totals and bumping its time_updated, as OpenCode does.
 */
export function appendSessionData(file: string, data: AppendData, label = OPENCODE.label): void {
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, { fileMustExist: true, timeout: 5000 });
    requireTables(db, file, ['session', 'message', 'part'], label);
    const cols = { message: columnsOf(db, 'message'), part: columnsOf(db, 'part') };
    const sessionCols = columnsOf(db, 'session');
    const conn = db;
    conn
      .transaction(() => {
        if (!conn.prepare('SELECT 1 FROM session WHERE id = ?').get(data.sessionId))
          throw new NotFoundError(`${label} session`, data.sessionId, { file });
        const last = lastMessageId(conn, data.sessionId);
        if (last !== data.expectedLastMessageId)
          throw new ThreadbaseError(
            'conflict',
            `session ${data.sessionId} changed while appending (its last message is now ${String(last)}); read it again`,
            { file, id: data.sessionId },
          );
        const now = Date.now();
        insertMessages(conn, cols, data.sessionId, data.messages, now);
        for (const p of data.updatedParts) {
          const { id, sessionID: _s, messageID: _m, ...rest } = p;
          const sets = ['data = ?', ...(cols.part.has('time_updated') ? ['time_updated = ?'] : [])];
          conn
            .prepare(`UPDATE part SET ${sets.join(', ')} WHERE id = ? AND session_id = ?`)
            .run(JSON.stringify(rest), ...(cols.part.has('time_updated') ? [now] : []), id, data.sessionId);
        }
        const add: [string, number][] = [
          ['cost', data.cost],
          ['tokens_input', data.tokens.input],
          ['tokens_output', data.tokens.output],
          ['tokens_reasoning', data.tokens.reasoning],
          ['tokens_cache_read', data.tokens.cache.read],
          ['tokens_cache_write', data.tokens.cache.write],
        ].filter(([c]) => sessionCols.has(c as string)) as [string, number][];
        const sets = [
          ...add.map(([c]) => `"${c}" = COALESCE("${c}", 0) + ?`),
          ...(sessionCols.has('time_updated') ? ['time_updated = MAX(COALESCE(time_updated, 0), ?)'] : []),
        ];
        if (sets.length)
          conn
            .prepare(`UPDATE session SET ${sets.join(', ')} WHERE id = ?`)
            .run(...add.map(([, v]) => v), ...(sessionCols.has('time_updated') ? [now] : []), data.sessionId);
      })
      .immediate();
  } catch (err) {
    throw wrap(file, err, label);
  } finally {
    db?.close();
  }
}

/** Renames a session (and bumps its time_updated, as OpenCode's rename does). */
export function setSessionTitle(file: string, sessionId: string, title: string, label = OPENCODE.label): void {
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, { fileMustExist: true, timeout: 5000 });
    requireTables(db, file, ['session'], label);
    const hasUpdated = columnsOf(db, 'session').has('time_updated');
    const r = db
      .prepare(
        `UPDATE session SET title = ?${hasUpdated ? ', time_updated = MAX(COALESCE(time_updated, 0), ?)' : ''} WHERE id = ?`,
      )
      .run(title, ...(hasUpdated ? [Date.now()] : []), sessionId);
    if (r.changes !== 1) throw new NotFoundError(`${label} session`, sessionId, { file });
  } catch (err) {
    throw wrap(file, err, label);
  } finally {
    db?.close();
  }
}

/** Writes a new session (and its project row when missing) in one transaction. */
export function writeSessionData(file: string, data: OcSessionData, opts: { vcs?: string; label?: string } = {}): void {
  const label = opts.label ?? OPENCODE.label;
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file, { fileMustExist: true, timeout: 5000 });
    requireTables(db, file, ['project', 'session', 'message', 'part'], label);
    const cols = {
      project: columnsOf(db, 'project'),
      session: columnsOf(db, 'session'),
      message: columnsOf(db, 'message'),
      part: columnsOf(db, 'part'),
    };
    const info = data.info;
    const time = obj(info.time) ?? {};
    const tokens = obj(info.tokens) ?? {};
    const cache = obj(tokens.cache) ?? {};
    const conn = db;
    conn
      .transaction(() => {
        const project = data.project;
        if (project && !conn.prepare('SELECT 1 FROM project WHERE id = ?').get(project.id)) {
          const now = Date.now();
          insert(conn, 'project', cols.project, {
            id: project.id,
            worktree: project.worktree,
            vcs: opts.vcs ?? project.vcs ?? null,
            time_created: now,
            time_updated: now,
            sandboxes: [],
          });
        }
        if (conn.prepare('SELECT 1 FROM session WHERE id = ?').get(info.id)) {
          throw new ThreadbaseError('exists', `session ${String(info.id)} already exists`, { file, id: str(info.id) });
        }
        insert(conn, 'session', cols.session, {
          id: info.id,
          project_id: info.projectID,
          workspace_id: info.workspaceID ?? null,
          parent_id: info.parentID ?? null,
          slug: info.slug,
          directory: info.directory,
          path: info.path ?? null,
          title: info.title,
          version: info.version,
          metadata: info.metadata ?? null,
          cost: num(info.cost) ?? 0,
          tokens_input: num(tokens.input) ?? 0,
          tokens_output: num(tokens.output) ?? 0,
          tokens_reasoning: num(tokens.reasoning) ?? 0,
          tokens_cache_read: num(cache.read) ?? 0,
          tokens_cache_write: num(cache.write) ?? 0,
          agent: info.agent ?? null,
          model: info.model ?? null,
          time_created: time.created,
          time_updated: time.updated,
        });
        insertMessages(conn, cols, str(info.id) ?? '', data.messages, num(time.created) ?? Date.now());
      })
      .immediate();
  } catch (err) {
    throw wrap(file, err, label);
  } finally {
    db?.close();
  }
}
