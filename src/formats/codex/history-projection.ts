/**
 * Codex 0.171 reads a paginated thread's turns (app-server `thread/read` with turns,
 * `thread/turns/list`) from a projection in `$CODEX_HOME/thread_history_<n>.sqlite` (`thread_turns`,
 * `thread_items`, `thread_history_projection_state`), which it makes from the rollout as it writes
 * it, and never on reading: a rollout threadbase wrote shows no turns there until codex resumes it.
 *
 * So for a paginated rollout threadbase creates, the same rows are written as codex writes for its
 * own records, checked against what codex 0.171 wrote for its own thread (agents test
 * `codex-written-thread-state`). The projection codex makes is internal and changes often (nine
 * schema migrations by 0.171, its items the app-server's `ThreadItem`s), so it is written only when
 * every record of the rollout is one whose projection was checked (turn start and end, user and agent
 * message and reasoning items, shell commands the model ran, patches applied, web searches, images
 * viewed, MCP tool calls, codex's compactions, tool calls codex makes no item of, records codex does
 * not project), its turns completed or interrupted, and the database is at the schema version
 * checked; anything else (a patch of several files, a compaction without its item, a rollback, a turn
 * aborted otherwise, another schema) writes nothing and the copy shows its turns once codex resumes
 * it, as before.
 */
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { columnsOf, openDatabase } from '../shared/sqlite.js';
import { isObject, str } from './items.js';
import { newestCodexDb } from './state-db.js';
import { IMAGE_DETAILS } from './turns.js';

/** The newest thread history database codex keeps in its home, if any. */
export function threadHistoryDbPath(home: string): string | undefined {
  return newestCodexDb(home, 'thread_history');
}

/** The last migration of `thread_history_1.sqlite` in codex 0.171 ("realtime observation indexes"), the schema checked. */
const CHECKED_MIGRATION = 9;

const TURN_COLUMNS = [
  'thread_id',
  'turn_id',
  'rollout_ordinal',
  'status',
  'error_json',
  'started_at',
  'completed_at',
  'duration_ms',
  'first_user_item_id',
  'final_agent_item_id',
  'rollout_byte_offset',
  'rollout_end_ordinal',
  'rollout_end_byte_offset',
  'root_turn_id',
] as const;
const ITEM_COLUMNS = [
  'thread_id',
  'turn_id',
  'item_id',
  'rollout_ordinal',
  'created_at_ms',
  'item_json',
  'item_type',
  'updated_at_ordinal',
  'started_at_ms',
  'completed_at_ms',
] as const;
const STATE_COLUMNS = ['thread_id', 'next_rollout_byte_offset', 'next_rollout_ordinal'] as const;

type TurnRow = Record<(typeof TURN_COLUMNS)[number], string | number | null>;
type ItemRow = Record<(typeof ITEM_COLUMNS)[number], string | number | null>;

/** What codex 0.171 projects from one rollout: its turns, their items, and where it stopped. */
export interface HistoryProjection {
  turns: TurnRow[];
  items: ItemRow[];
  nextByteOffset: number;
  nextOrdinal: number;
}

/** Records codex writes that its projection passes over (checked against codex 0.171's rows for its own thread). */
const UNPROJECTED_RECORDS = new Set(['response_item', 'turn_context', 'world_state', 'token_usage_record']);
const UNPROJECTED_EVENTS = new Set(['token_count', 'thread_settings_applied']);

/** A user message item as the app-server's `ThreadItem` (`userMessage`), or undefined when not one checked. */
function userMessageItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'content', 'client_id'].includes(k))) return undefined;
  if (!Array.isArray(item.content)) return undefined;
  const content = item.content.map(userInput);
  if (content.some((c) => c === undefined)) return undefined;
  return { type: 'userMessage', id: item.id, clientId: str(item.client_id) ?? null, content };
}

/**
 * One part of a user message as the app-server's `UserInput`: a text as it is; an image (codex's
 * `image` input, a URL) as its url with its detail level, null without one (checked with the real 0.171
 * projecting another agent's image prompt); else undefined (a local image, a skill, a mention were not checked).
 */
function userInput(c: unknown): unknown {
  if (isObject(c) && c.type === 'text' && typeof c.text === 'string') return c;
  if (isObject(c) && c.type === 'image' && typeof c.image_url === 'string') {
    if (Object.keys(c).length === 2) return { type: 'image', url: c.image_url, detail: null };
    // with a detail level: checked with the real 0.171 projecting another agent's prompt with one
    if (Object.keys(c).length === 3 && IMAGE_DETAILS.includes(c.detail))
      return { type: 'image', url: c.image_url, detail: c.detail };
  }
  return undefined;
}

/** An agent message item as the app-server's `ThreadItem` (`agentMessage`), or undefined when not one checked. */
function agentMessageItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'content', 'phase'].includes(k))) return undefined;
  const content = item.content;
  // its text parts, joined as codex 0.171 joins them (checked with two)
  if (!Array.isArray(content) || content.length === 0) return undefined;
  if (!content.every((c) => isObject(c) && c.type === 'Text' && typeof c.text === 'string')) return undefined;
  if (item.phase !== undefined && item.phase !== null) return undefined;
  return {
    type: 'agentMessage',
    moderation: null,
    id: item.id,
    text: content.map((c) => (c as { text: string }).text).join(''),
    phase: null,
    memoryCitation: null,
    delivery: null,
    questions: null,
  };
}

/** A reasoning item as the app-server's `ThreadItem` (`reasoning`: its summary parts), or undefined when not one checked. */
function reasoningItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'summary_text', 'raw_content'].includes(k))) return undefined;
  const summary = item.summary_text;
  if (!Array.isArray(summary) || !summary.every((t) => typeof t === 'string')) return undefined;
  // raw reasoning text (open-weight models) was not checked
  if (!Array.isArray(item.raw_content) || item.raw_content.length > 0) return undefined;
  return { type: 'reasoning', id: item.id, summary, content: [] };
}

/**
 * One argv word as codex 0.171 joins a command for its `commandExecution` item (shlex): bare when
 * plain, in single quotes, or in double quotes with `"` and `\` escaped when it holds a single quote;
 * undefined for a word whose quoting was not checked (an empty word, a control character other than a
 * newline in single quotes; `$`, a backquote, `!` or a newline beside a single quote).
 */
function shellWord(word: string): string | undefined {
  if (/^[A-Za-z0-9_./-]+$/.test(word)) return word;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters other than a newline were not checked
  if (word === '' || /[\u0000-\u0009\u000b-\u001f\u007f]/.test(word)) return undefined;
  if (!word.includes("'")) return `'${word}'`;
  if (word.includes('\n')) return undefined;
  if (/[$`!]/.test(word)) return undefined;
  return `"${word.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** A `parsed_cmd` entry as the item's `commandActions` entry (the kinds checked), in a command run in `cwd`. */
function commandAction(parsed: unknown, cwd: string): Record<string, unknown> | undefined {
  if (!isObject(parsed) || typeof parsed.cmd !== 'string') return undefined;
  const keys = Object.keys(parsed).sort().join(',');
  const command = parsed.cmd;
  if (parsed.type === 'unknown' && keys === 'cmd,type') return { type: 'unknown', command };
  // a file read: its path made absolute in the command's directory (an absolute one was not checked)
  if (parsed.type === 'read' && keys === 'cmd,name,path,type' && typeof parsed.name === 'string') {
    if (typeof parsed.path !== 'string' || isAbsolute(parsed.path)) return undefined;
    return { type: 'read', command, name: parsed.name, path: join(cwd, parsed.path) };
  }
  // a listing or a search without a path (one with a path was not checked)
  if (parsed.type === 'list_files' && keys === 'cmd,path,type' && parsed.path === null)
    return { type: 'listFiles', command, path: null };
  if (parsed.type === 'search' && keys === 'cmd,path,query,type' && parsed.path === null && typeof parsed.query === 'string')
    return { type: 'search', command, query: parsed.query, path: null };
  return undefined;
}

const COMMAND_KEYS = new Set([
  'type',
  'id',
  'process_id',
  'command',
  'cwd',
  'parsed_cmd',
  'source',
  'status',
  'aggregated_output',
  'exit_code',
  'duration',
]);

/**
 * A shell command the model ran (`exec_command`) as the app-server's `ThreadItem`
 * (`commandExecution`), or undefined when not one checked: a finished command of codex's unified exec,
 * its argv joined, its directory a path, its duration in whole milliseconds (Rust's `as_millis`).
 */
function commandExecutionItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !COMMAND_KEYS.has(k))) return undefined;
  if (item.source !== 'unified_exec_startup' || (item.status !== 'completed' && item.status !== 'failed')) return undefined;
  if (typeof item.process_id !== 'string' || typeof item.aggregated_output !== 'string') return undefined;
  if (typeof item.exit_code !== 'number') return undefined;
  const duration = item.duration;
  if (!isObject(duration) || typeof duration.secs !== 'number' || typeof duration.nanos !== 'number') return undefined;
  const argv = item.command;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((w) => typeof w === 'string')) return undefined;
  const words = argv.map(shellWord);
  if (words.some((w) => w === undefined)) return undefined;
  const cwd = pathOfFileUrl(item.cwd);
  if (cwd === undefined || !Array.isArray(item.parsed_cmd)) return undefined;
  const actions = item.parsed_cmd.map((p) => commandAction(p, cwd));
  if (actions.some((a) => a === undefined)) return undefined;
  return {
    type: 'commandExecution',
    id: item.id,
    pluginId: null,
    scriptPath: null,
    command: words.join(' '),
    cwd,
    processId: item.process_id,
    source: 'unifiedExecStartup',
    status: item.status,
    commandActions: actions,
    aggregatedOutput: item.aggregated_output,
    exitCode: item.exit_code,
    durationMs: duration.secs * 1000 + Math.floor(duration.nanos / 1_000_000),
  };
}

/** A web search the API ran (a search action) as the app-server's `ThreadItem` (`webSearch`), or undefined when not one checked. */
function webSearchItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'query', 'action'].includes(k))) return undefined;
  const action = item.action;
  if (typeof item.query !== 'string' || !isObject(action) || action.type !== 'search') return undefined;
  // opening or finding in a page was not checked
  if (Object.keys(action).some((k) => !['type', 'query', 'queries'].includes(k))) return undefined;
  return { type: 'webSearch', id: item.id, query: item.query, action, results: null };
}

/** The path of a `file://` URL codex records, or undefined. */
function pathOfFileUrl(url: unknown): string | undefined {
  if (typeof url !== 'string' || !url.startsWith('file:///')) return undefined;
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}

/** An image the model looked at (`view_image`) as the app-server's `ThreadItem` (`imageView`: its path), or undefined when not one checked. */
function imageViewItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'path'].includes(k))) return undefined;
  const path = pathOfFileUrl(item.path);
  return path === undefined ? undefined : { type: 'imageView', id: item.id, path };
}

/** A compaction codex made (its `compacted` record beside it) as the app-server's `ThreadItem` (`contextCompaction`), or undefined when not one checked. */
function contextCompactionItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id'].includes(k))) return undefined;
  return { type: 'contextCompaction', id: item.id };
}

/**
 * A call of an MCP server's tool as the app-server's `ThreadItem` (`mcpToolCall`), or undefined when not
 * one checked: a completed call whose result is text content only (structured content, an error, an
 * app's or plugin's call were not checked); its duration in whole milliseconds.
 */
function mcpToolCallItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  const keys = ['type', 'id', 'server', 'tool', 'arguments', 'status', 'result', 'duration'];
  if (Object.keys(item).some((k) => !keys.includes(k))) return undefined;
  if (item.status !== 'completed' || typeof item.server !== 'string' || typeof item.tool !== 'string') return undefined;
  if (!('arguments' in item)) return undefined;
  const { result, duration } = item;
  if (!isObject(result) || Object.keys(result).some((k) => k !== 'content') || !Array.isArray(result.content)) return undefined;
  const textOnly = result.content.every(
    (c) => isObject(c) && c.type === 'text' && typeof c.text === 'string' && Object.keys(c).length === 2,
  );
  if (!textOnly || !isObject(duration) || typeof duration.secs !== 'number' || typeof duration.nanos !== 'number')
    return undefined;
  return {
    type: 'mcpToolCall',
    id: item.id,
    server: item.server,
    environmentId: null,
    tool: item.tool,
    status: 'completed',
    arguments: item.arguments,
    appContext: null,
    mcpAppUi: null,
    pluginId: null,
    readOnlyHint: null,
    result: { content: result.content, structuredContent: null, _meta: null },
    error: null,
    durationMs: duration.secs * 1000 + Math.floor(duration.nanos / 1_000_000),
  };
}

/** One file's change of a patch as the item's `changes` entry: its kind, and the file's text (add, delete) or diff (update). */
function fileChange(path: string, change: unknown): Record<string, unknown> | undefined {
  if (!isObject(change)) return undefined;
  const keys = Object.keys(change).sort().join(',');
  if ((change.type === 'add' || change.type === 'delete') && keys === 'content,type' && typeof change.content === 'string')
    return { path, kind: { type: change.type }, diff: change.content };
  // a move (move_path set) was not checked
  if (change.type === 'update' && keys === 'move_path,type,unified_diff' && change.move_path === null) {
    if (typeof change.unified_diff !== 'string') return undefined;
    return { path, kind: { type: 'update', move_path: null }, diff: change.unified_diff };
  }
  return undefined;
}

/**
 * A patch codex applied (apply_patch) as the app-server's `ThreadItem` (`fileChange`), or undefined
 * when not one checked: a completed patch of one file (the order codex gives several was not checked).
 */
function fileChangeItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (Object.keys(item).some((k) => !['type', 'id', 'changes', 'status', 'stdout', 'stderr'].includes(k))) return undefined;
  if (item.status !== 'completed' || !isObject(item.changes)) return undefined;
  const entries = Object.entries(item.changes);
  if (entries.length !== 1) return undefined;
  const [path, change] = entries[0] as [string, unknown];
  const projected = fileChange(path, change);
  return projected ? { type: 'fileChange', id: item.id, changes: [projected], status: 'completed' } : undefined;
}

/** The app-server's `ThreadItem` codex 0.171 projects from an `item_completed` item, for the kinds checked. */
function projectedItem(item: Record<string, unknown>): Record<string, unknown> | undefined {
  if (item.type === 'UserMessage') return userMessageItem(item);
  if (item.type === 'AgentMessage') return agentMessageItem(item);
  if (item.type === 'Reasoning') return reasoningItem(item);
  if (item.type === 'CommandExecution') return commandExecutionItem(item);
  if (item.type === 'WebSearch') return webSearchItem(item);
  if (item.type === 'ImageView') return imageViewItem(item);
  if (item.type === 'ContextCompaction') return contextCompactionItem(item);
  if (item.type === 'McpToolCall') return mcpToolCallItem(item);
  if (item.type === 'FileChange') return fileChangeItem(item);
  return undefined;
}

/**
 * Events codex 0.171 passes over when they stand outside a turn: the legacy `user_message` /
 * `agent_message` events threadbase appends for another agent's messages (codex continued its
 * projection past them with no row: agents test `codex-append-projection`; inside a turn not checked).
 */
const UNPROJECTED_OUTSIDE_TURNS = new Set(['user_message', 'agent_message']);

/**
 * The projection codex 0.171 makes of `rollout` (the file's bytes) for thread `threadId`, or why
 * there is none that threadbase can write as codex does. `from`: where to start (a projection's
 * state: the byte offset and ordinal of the next record, outside any turn), else the file's start.
 */
export function projectRollout(
  threadId: string,
  rollout: Buffer,
  from: { offset: number; ordinal: number } = { offset: 0, ordinal: 0 },
): HistoryProjection | string {
  const turns: TurnRow[] = [];
  const items: ItemRow[] = [];
  let open: TurnRow | undefined;
  // `compacted` records in the open turn: codex writes each beside its ContextCompaction item
  let compactedInTurn = 0;
  let offset = from.offset;
  let nextOrdinal = from.ordinal;
  while (offset < rollout.length) {
    const newline = rollout.indexOf(0x0a, offset);
    if (newline < 0) return 'a rollout line without its newline';
    const start = offset;
    const end = newline + 1;
    offset = end;
    let record: unknown;
    try {
      record = JSON.parse(rollout.subarray(start, newline).toString('utf8'));
    } catch {
      return 'an unreadable rollout line';
    }
    if (!isObject(record) || typeof record.ordinal !== 'number' || record.ordinal !== nextOrdinal)
      return 'a rollout record without its ordinal';
    const ordinal = record.ordinal;
    nextOrdinal = ordinal + 1;
    const payload = isObject(record.payload) ? record.payload : {};
    if (record.type === 'session_meta' && ordinal === 0) continue;
    if (typeof record.type === 'string' && UNPROJECTED_RECORDS.has(record.type)) continue;
    if (record.type === 'compacted') {
      // outside a turn it has no item (threadbase makes another agent's its own turn: turns.ts), which was not checked
      if (!open) return 'a compaction outside a turn';
      compactedInTurn++;
      continue;
    }
    if (record.type !== 'event_msg') return `a ${String(record.type)} record`;
    const event = str(payload.type) ?? '';
    if (UNPROJECTED_EVENTS.has(event) || (!open && UNPROJECTED_OUTSIDE_TURNS.has(event))) continue;
    // another provider's thinking threadbase keeps in codex's legacy reasoning event (driver.ts encodeEntry):
    // codex 0.171 projects no row for it, in a turn or outside (agents test `codex-written-thread-state`)
    if (event === 'agent_reasoning' && (payload.threadbase === 'thinking' || payload.threadbase === 'redacted_thinking'))
      continue;
    if (event === 'task_started') {
      const turnId = str(payload.turn_id);
      if (!turnId || open) return 'a turn started inside another';
      compactedInTurn = 0;
      open = {
        thread_id: threadId,
        turn_id: turnId,
        rollout_ordinal: ordinal,
        status: 'inProgress',
        error_json: null,
        started_at: typeof payload.started_at === 'number' ? payload.started_at : null,
        completed_at: null,
        duration_ms: null,
        first_user_item_id: null,
        final_agent_item_id: null,
        rollout_byte_offset: start,
        rollout_end_ordinal: null,
        rollout_end_byte_offset: null,
        root_turn_id: str(payload.root_turn_id) ?? turnId,
      };
      turns.push(open);
      continue;
    }
    // a turn ends completed, or interrupted (the user stopped it: checked; another reason was not)
    const interrupted = event === 'turn_aborted' && payload.reason === 'interrupted';
    if (event === 'task_complete' || interrupted) {
      if (!open || str(payload.turn_id) !== open.turn_id) return 'a turn completed that was not started';
      open.status = interrupted ? 'interrupted' : 'completed';
      open.started_at = typeof payload.started_at === 'number' ? payload.started_at : open.started_at;
      open.completed_at = typeof payload.completed_at === 'number' ? payload.completed_at : null;
      open.duration_ms = typeof payload.duration_ms === 'number' ? payload.duration_ms : null;
      open.rollout_end_ordinal = ordinal;
      open.rollout_end_byte_offset = end;
      // codex's summary of the turn: its first user message and its last agent message
      const own = items.filter((i) => i.turn_id === open?.turn_id);
      if (own.filter((i) => i.item_type === 'contextCompaction').length !== compactedInTurn)
        return 'a compaction without its item';
      open.first_user_item_id = own.find((i) => i.item_type === 'userMessage')?.item_id ?? null;
      open.final_agent_item_id = own.filter((i) => i.item_type === 'agentMessage').at(-1)?.item_id ?? null;
      open = undefined;
      continue;
    }
    if (event === 'item_completed') {
      const item = isObject(payload.item) ? payload.item : {};
      if (!open || str(payload.turn_id) !== open.turn_id) return 'an item outside its turn';
      const projected = projectedItem(item);
      const id = str(item.id);
      const startedAt = typeof payload.started_at_ms === 'number' ? payload.started_at_ms : undefined;
      const completedAt = typeof payload.completed_at_ms === 'number' ? payload.completed_at_ms : undefined;
      if (!projected || !id || startedAt === undefined || completedAt === undefined)
        return `a ${String(item.type)} item threadbase does not project`;
      if (items.some((i) => i.item_id === id && i.turn_id === open?.turn_id)) return 'an item completed twice';
      items.push({
        thread_id: threadId,
        turn_id: open.turn_id,
        item_id: id,
        rollout_ordinal: ordinal,
        created_at_ms: startedAt,
        item_json: JSON.stringify(projected),
        item_type: String(projected.type),
        updated_at_ordinal: ordinal,
        started_at_ms: startedAt,
        completed_at_ms: completedAt,
      });
      continue;
    }
    return `a ${event} event`;
  }
  if (open) return 'a turn still in progress';
  return { turns, items, nextByteOffset: offset, nextOrdinal };
}

type Database = ReturnType<typeof openDatabase>;

/**
 * Runs `write` on codex's thread history database when it exists at the schema checked (never
 * creating it); what `write` returns, or why the database was not written.
 */
function withHistoryDb(home: string, write: (db: Database) => string | undefined): string | undefined {
  const dbFile = threadHistoryDbPath(home);
  if (!dbFile) return 'no thread history database';
  let db: Database;
  try {
    db = openDatabase(dbFile, { fileMustExist: true, timeout: 2000 });
  } catch (error) {
    return `thread history database not opened: ${(error as Error).message}`;
  }
  try {
    const version = (db.prepare('SELECT max(version) AS v FROM _sqlx_migrations WHERE success').get() as { v: number | null }).v;
    if (version !== CHECKED_MIGRATION) return `thread history schema ${version} (checked: ${CHECKED_MIGRATION})`;
    for (const [table, columns] of [
      ['thread_turns', TURN_COLUMNS],
      ['thread_items', ITEM_COLUMNS],
      ['thread_history_projection_state', STATE_COLUMNS],
    ] as const) {
      const have = columnsOf(db, table);
      const missing = columns.filter((c) => !have.has(c));
      if (missing.length) return `unexpected ${table} schema (${missing.join(', ')})`;
    }
    return write(db);
  } catch (error) {
    return `thread history database not written: ${(error as Error).message}`;
  } finally {
    db.close();
  }
}

function inserts(db: Database): { turn: (t: TurnRow) => void; item: (i: ItemRow) => void } {
  const turn = db.prepare(
    `INSERT INTO thread_turns (${TURN_COLUMNS.join(', ')}) VALUES (${TURN_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const item = db.prepare(
    `INSERT INTO thread_items (${ITEM_COLUMNS.join(', ')}) VALUES (${ITEM_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  return { turn: (t) => void turn.run(t), item: (i) => void item.run(i) };
}

/**
 * Writes codex's paginated-history projection of the rollout threadbase just created at `file`
 * (`rollout`: its bytes) into codex's thread history database, in one transaction, when the database
 * exists at the schema checked and holds nothing for the thread. Never creates the database, never
 * touches another thread's rows. Returns why nothing was written, or undefined.
 */
export function recordThreadHistory(home: string, threadId: string, rollout: Buffer): string | undefined {
  if (!threadHistoryDbPath(home)) return 'no thread history database';
  const projection = projectRollout(threadId, rollout);
  if (typeof projection === 'string') return `not projected: ${projection}`;
  return withHistoryDb(home, (db) => {
    const insert = inserts(db);
    const insertState = db.prepare(
      'INSERT INTO thread_history_projection_state (thread_id, next_rollout_byte_offset, next_rollout_ordinal) VALUES (?, ?, ?)',
    );
    const existing = db.prepare(
      'SELECT (SELECT count(*) FROM thread_history_projection_state WHERE thread_id = ?) + (SELECT count(*) FROM thread_turns WHERE thread_id = ?) + (SELECT count(*) FROM thread_items WHERE thread_id = ?) AS n',
    );
    return db
      .transaction(() => {
        // a thread codex (or an earlier write) already projected is not ours to write
        if ((existing.get(threadId, threadId, threadId) as { n: number }).n > 0) return 'the thread already has a projection';
        for (const t of projection.turns) insert.turn(t);
        for (const i of projection.items) insert.item(i);
        insertState.run(threadId, projection.nextByteOffset, projection.nextOrdinal);
        return undefined;
      })
      .immediate();
  });
}

/**
 * After threadbase appended records to the rollout of thread `threadId` (`rollout`: the file's bytes
 * now, the appended ones from byte `appendedAt`), continues the thread's projection over them as codex
 * continues it on a resume (from its state's offset and ordinal): their turns and items added and the
 * state moved to the file's end, in one transaction. Only when the projection (codex's, or one
 * threadbase wrote) ends right where the appended records start, with no turn left open, and every
 * appended record is one whose projection was checked. Otherwise nothing changes: no row is removed
 * (one codex wrote cannot be told from one threadbase wrote), and codex, which continues a projection
 * from its state on a resume and passes over what it does not project, catches up itself (agents test
 * `codex-append-projection`). Returns why nothing was written, or undefined.
 */
export function followThreadHistory(home: string, threadId: string, rollout: Buffer, appendedAt: number): string | undefined {
  return withHistoryDb(home, (db) => {
    const insert = inserts(db);
    const stateOf = db.prepare(
      'SELECT next_rollout_byte_offset AS offset, next_rollout_ordinal AS ordinal FROM thread_history_projection_state WHERE thread_id = ?',
    );
    const openTurns = db.prepare("SELECT count(*) AS n FROM thread_turns WHERE thread_id = ? AND status = 'inProgress'");
    const moveState = db.prepare(
      'UPDATE thread_history_projection_state SET next_rollout_byte_offset = ?, next_rollout_ordinal = ? WHERE thread_id = ? AND next_rollout_byte_offset = ? AND next_rollout_ordinal = ?',
    );
    return db
      .transaction(() => {
        const state = stateOf.get(threadId) as { offset: number; ordinal: number } | undefined;
        if (!state) return 'the thread has no projection';
        if (state.offset !== appendedAt) return 'the projection does not end where the appended records start';
        if ((openTurns.get(threadId) as { n: number }).n > 0) return 'the projection has a turn in progress';
        const projection = projectRollout(threadId, rollout, state);
        if (typeof projection === 'string') return `not projected: ${projection}`;
        for (const t of projection.turns) insert.turn(t);
        for (const i of projection.items) insert.item(i);
        moveState.run(projection.nextByteOffset, projection.nextOrdinal, threadId, state.offset, state.ordinal);
        return undefined;
      })
      .immediate();
  });
}
