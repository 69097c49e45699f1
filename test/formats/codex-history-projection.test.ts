/**
 * Codex 0.171's paginated-history projection (thread_history_<n>.sqlite) of a rollout threadbase
 * writes (history-projection.ts): the rows codex writes for its own records (test/agents/
 * codex-written-thread-state.test.ts compares them with codex's own), and nothing at all for a rollout
 * with a record whose projection was not checked, a database at another schema version, or a thread
 * that already has rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRollout, recordThreadHistory } from '../../src/formats/codex/history-projection.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { CODEX_0171_THREAD_HISTORY } from '../helpers/codex-state-db.js';

const THREAD = '01a217ff-5c76-7eb0-b5b0-88cf6631c27f';
const TURN = '01a217ff-5c9a-7aa3-9ebb-bf898d269410';

/** A rollout of one codex 0.171 turn (its records cut to the fields the projection reads), `extra` records inside the turn. */
function rollout(extra: object[] = []): Buffer {
  const records: object[] = [
    { type: 'session_meta', payload: { id: THREAD, history_mode: 'paginated' } },
    {
      type: 'event_msg',
      payload: { type: 'task_started', turn_id: TURN, root_turn_id: TURN, started_at: 1795698941 },
    },
    { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'first' }] } },
    { type: 'turn_context', payload: { turn_id: TURN } },
    {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        thread_id: THREAD,
        turn_id: TURN,
        item: { type: 'UserMessage', id: 'u1', content: [{ type: 'text', text: 'first', text_elements: [] }] },
        started_at_ms: 1795698941166,
        completed_at_ms: 1795698941166,
      },
    },
    ...extra,
    {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        thread_id: THREAD,
        turn_id: TURN,
        item: { type: 'AgentMessage', id: 'msg_1', content: [{ type: 'Text', text: 'ok: first' }] },
        started_at_ms: 1795698941194,
        completed_at_ms: 1795698941195,
      },
    },
    { type: 'event_msg', payload: { type: 'token_count', info: null } },
    {
      type: 'event_msg',
      payload: { type: 'task_complete', turn_id: TURN, started_at: 1795698941, completed_at: 1795698942, duration_ms: 103 },
    },
  ];
  const lines = records.map((r, ordinal) => JSON.stringify({ timestamp: '2026-11-26T13:15:41.100Z', ordinal, ...r }));
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe("codex's projection of a rollout", () => {
  it('is a row per turn and per message item, at their records, as codex 0.171 writes for its own', () => {
    const bytes = rollout();
    const p = projectRollout(THREAD, bytes);
    if (typeof p === 'string') throw new Error(p);
    const lines = bytes.toString('utf8').split('\n');
    const startOf = (i: number) =>
      Buffer.byteLength(
        lines
          .slice(0, i)
          .map((l) => `${l}\n`)
          .join(''),
      );
    expect(p.turns).toEqual([
      {
        thread_id: THREAD,
        turn_id: TURN,
        rollout_ordinal: 1,
        status: 'completed',
        error_json: null,
        started_at: 1795698941,
        completed_at: 1795698942,
        duration_ms: 103,
        first_user_item_id: 'u1',
        final_agent_item_id: 'msg_1',
        rollout_byte_offset: startOf(1),
        rollout_end_ordinal: 7,
        rollout_end_byte_offset: bytes.length,
        root_turn_id: TURN,
      },
    ]);
    expect(p.items.map((i) => [i.item_id, i.rollout_ordinal, i.item_type, JSON.parse(String(i.item_json))])).toEqual([
      [
        'u1',
        4,
        'userMessage',
        { type: 'userMessage', id: 'u1', clientId: null, content: [{ type: 'text', text: 'first', text_elements: [] }] },
      ],
      [
        'msg_1',
        5,
        'agentMessage',
        {
          type: 'agentMessage',
          moderation: null,
          id: 'msg_1',
          text: 'ok: first',
          phase: null,
          memoryCitation: null,
          delivery: null,
          questions: null,
        },
      ],
    ]);
    expect(p.items[1]).toMatchObject({
      created_at_ms: 1795698941194,
      started_at_ms: 1795698941194,
      completed_at_ms: 1795698941195,
      updated_at_ordinal: 5,
    });
    expect([p.nextByteOffset, p.nextOrdinal]).toEqual([bytes.length, 8]);
  });

  it("a reasoning item is codex's reasoning ThreadItem: its summary parts", () => {
    const reasoning = {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        turn_id: TURN,
        item: { type: 'Reasoning', id: 'rs_1', summary_text: ['Part A.', 'Part B.'], raw_content: [] },
        started_at_ms: 7,
        completed_at_ms: 8,
      },
    };
    const p = projectRollout(THREAD, rollout([reasoning]));
    if (typeof p === 'string') throw new Error(p);
    expect(p.items.map((i) => [i.item_type, JSON.parse(String(i.item_json))])[1]).toEqual([
      'reasoning',
      { type: 'reasoning', id: 'rs_1', summary: ['Part A.', 'Part B.'], content: [] },
    ]);
    expect(p.turns[0]).toMatchObject({ first_user_item_id: 'u1', final_agent_item_id: 'msg_1' });
  });

  it("a shell command and a web search are codex's commandExecution and webSearch ThreadItems, as codex 0.171 wrote them", () => {
    // the items as the real codex 0.171 recorded them (agents test codex-written-thread-state), and its rows
    const completed = (item: object) => ({
      type: 'event_msg',
      payload: { type: 'item_completed', turn_id: TURN, item, started_at_ms: 1795701305042, completed_at_ms: 1795701305044 },
    });
    const command = (id: string, cmd: string, parsed: object, more: object = {}) => ({
      type: 'CommandExecution',
      id,
      process_id: '53898',
      command: ['/bin/bash', '-lc', cmd],
      cwd: 'file:///tmp/tb-agents-home-1g1zfG/project',
      parsed_cmd: [{ ...parsed, cmd }],
      source: 'unified_exec_startup',
      status: 'completed',
      aggregated_output: 'out\n',
      exit_code: 0,
      duration: { secs: 0, nanos: 7571 },
      ...more,
    });
    const p = projectRollout(
      THREAD,
      rollout([
        completed(command('c1', `printf '%s\\n' "it's" x=1; exit 3`, { type: 'unknown' }, { status: 'failed', exit_code: 3 })),
        completed(command('c2', 'cat hello.txt', { type: 'read', name: 'hello.txt', path: 'hello.txt' })),
        completed(command('c3', 'ls', { type: 'list_files', path: null }, { duration: { secs: 2, nanos: 345_999_999 } })),
        completed(command('c4', 'rg there', { type: 'search', query: 'there', path: null })),
        completed({
          type: 'WebSearch',
          id: 'ws_1',
          query: 'threadbase codex',
          action: { type: 'search', query: 'threadbase codex', queries: ['threadbase codex'] },
        }),
      ]),
    );
    if (typeof p === 'string') throw new Error(p);
    const base = {
      type: 'commandExecution',
      pluginId: null,
      scriptPath: null,
      cwd: '/tmp/tb-agents-home-1g1zfG/project',
      processId: '53898',
      source: 'unifiedExecStartup',
      status: 'completed',
      aggregatedOutput: 'out\n',
      exitCode: 0,
      durationMs: 0,
    };
    expect(p.items.slice(1, 6).map((i) => [i.item_type, JSON.parse(String(i.item_json))])).toEqual([
      [
        'commandExecution',
        {
          ...base,
          id: 'c1',
          command: `/bin/bash -lc "printf '%s\\\\n' \\"it's\\" x=1; exit 3"`,
          status: 'failed',
          commandActions: [{ type: 'unknown', command: `printf '%s\\n' "it's" x=1; exit 3` }],
          exitCode: 3,
        },
      ],
      [
        'commandExecution',
        {
          ...base,
          id: 'c2',
          command: "/bin/bash -lc 'cat hello.txt'",
          commandActions: [
            { type: 'read', command: 'cat hello.txt', name: 'hello.txt', path: '/tmp/tb-agents-home-1g1zfG/project/hello.txt' },
          ],
        },
      ],
      [
        'commandExecution',
        {
          ...base,
          id: 'c3',
          command: '/bin/bash -lc ls',
          commandActions: [{ type: 'listFiles', command: 'ls', path: null }],
          durationMs: 2345,
        },
      ],
      [
        'commandExecution',
        {
          ...base,
          id: 'c4',
          command: "/bin/bash -lc 'rg there'",
          commandActions: [{ type: 'search', command: 'rg there', query: 'there', path: null }],
        },
      ],
      [
        'webSearch',
        {
          type: 'webSearch',
          id: 'ws_1',
          query: 'threadbase codex',
          action: { type: 'search', query: 'threadbase codex', queries: ['threadbase codex'] },
          results: null,
        },
      ],
    ]);
    // a command or a search whose projection was not checked: `$` beside a quote, a user's shell command, an opened page
    for (const item of [
      command('c5', `echo "it's $HOME"`, { type: 'unknown' }),
      command('c6', 'ls', { type: 'list_files', path: null }, { source: 'user_shell' }),
      command('c7', 'ls src', { type: 'list_files', path: 'src' }),
      { type: 'WebSearch', id: 'ws_2', query: '', action: { type: 'open_page', url: 'https://example.com' } },
    ])
      expect(projectRollout(THREAD, rollout([completed(item)]))).toMatch(/item threadbase does not project$/);
  });

  it("an image viewed, codex's compaction and a heredoc are codex's imageView, contextCompaction and commandExecution items", () => {
    const completed = (item: object) => ({
      type: 'event_msg',
      payload: { type: 'item_completed', turn_id: TURN, item, started_at_ms: 1795701490661, completed_at_ms: 1795701490693 },
    });
    const heredoc = 'cat <<EOF\nx y\nEOF';
    const p = projectRollout(
      THREAD,
      rollout([
        { type: 'compacted', payload: { message: 'summary', replacement_history: [] } },
        { type: 'world_state', payload: { full: true } },
        completed({ type: 'ContextCompaction', id: 'cc_1' }),
        completed({ type: 'ImageView', id: 'call_2', path: 'file:///tmp/tb-agents-home-3KBIhK/project/dot.png' }),
        completed({
          type: 'CommandExecution',
          id: 'call_1',
          process_id: '11700',
          command: ['/bin/bash', '-lc', heredoc],
          cwd: 'file:///tmp/tb-agents-home-3KBIhK/project',
          parsed_cmd: [{ type: 'unknown', cmd: heredoc }],
          source: 'unified_exec_startup',
          status: 'completed',
          aggregated_output: 'x y\n',
          exit_code: 0,
          duration: { secs: 0, nanos: 4867 },
        }),
      ]),
    );
    if (typeof p === 'string') throw new Error(p);
    expect(p.items.slice(1, 4).map((i) => JSON.parse(String(i.item_json)))).toEqual([
      { type: 'contextCompaction', id: 'cc_1' },
      { type: 'imageView', id: 'call_2', path: '/tmp/tb-agents-home-3KBIhK/project/dot.png' },
      expect.objectContaining({
        command: `/bin/bash -lc 'cat <<EOF\nx y\nEOF'`,
        commandActions: [{ type: 'unknown', command: heredoc }],
      }),
    ]);
    // a compacted record without codex's item (another agent's compaction threadbase wrote) was not checked
    expect(projectRollout(THREAD, rollout([{ type: 'compacted', payload: { message: 's' } }]))).toBe(
      'a compaction without its item',
    );
  });

  it("an MCP tool call is codex's mcpToolCall ThreadItem; one with an error or structured content is not projected", () => {
    const completed = (item: object) => ({
      type: 'event_msg',
      payload: { type: 'item_completed', turn_id: TURN, item, started_at_ms: 1795702168294, completed_at_ms: 1795702168298 },
    });
    // as the real codex 0.171 recorded a call of a stdio MCP server's tool
    const call = {
      type: 'McpToolCall',
      id: 'call_standin_0001',
      server: 'probe',
      tool: 'echo',
      arguments: { text: 'hi' },
      status: 'completed',
      result: { content: [{ type: 'text', text: 'echo: hi' }] },
      duration: { secs: 0, nanos: 3879861 },
    };
    const p = projectRollout(THREAD, rollout([completed(call)]));
    if (typeof p === 'string') throw new Error(p);
    expect(JSON.parse(String(p.items[1]?.item_json))).toEqual({
      type: 'mcpToolCall',
      id: 'call_standin_0001',
      server: 'probe',
      environmentId: null,
      tool: 'echo',
      status: 'completed',
      arguments: { text: 'hi' },
      appContext: null,
      mcpAppUi: null,
      pluginId: null,
      readOnlyHint: null,
      result: { content: [{ type: 'text', text: 'echo: hi' }], structuredContent: null, _meta: null },
      error: null,
      durationMs: 3,
    });
    for (const other of [
      { ...call, status: 'failed', result: undefined, error: { message: 'boom' } },
      { ...call, result: { content: [], structured_content: { a: 1 } } },
    ])
      expect(projectRollout(THREAD, rollout([completed(other)]))).toBe('a McpToolCall item threadbase does not project');
  });

  it('a turn the user interrupted is an interrupted turn row, ended at its turn_aborted record; another reason is not projected', () => {
    const completeAt = (reason: string) =>
      Buffer.from(
        rollout()
          .toString('utf8')
          .replace(
            /"payload":\{"type":"task_complete","turn_id":"([^"]+)"/,
            `"payload":{"type":"turn_aborted","turn_id":"$1","reason":"${reason}"`,
          ),
      );
    const p = projectRollout(THREAD, completeAt('interrupted'));
    if (typeof p === 'string') throw new Error(p);
    expect(p.turns[0]).toMatchObject({
      status: 'interrupted',
      started_at: 1795698941,
      completed_at: 1795698942,
      duration_ms: 103,
      rollout_end_ordinal: 7,
      first_user_item_id: 'u1',
      final_agent_item_id: 'msg_1',
    });
    expect(projectRollout(THREAD, completeAt('replaced'))).toBe('a turn_aborted event');
  });

  it("a patch codex applied is codex's fileChange ThreadItem: one file added, updated or deleted; several files are not projected", () => {
    const completed = (item: object) => ({
      type: 'event_msg',
      payload: { type: 'item_completed', turn_id: TURN, item, started_at_ms: 1795702491043, completed_at_ms: 1795702491043 },
    });
    const file = '/tmp/tb-agents-home-CAu0fu/project/hello.txt';
    // as the real codex 0.171 recorded apply_patch run as a command
    const patch = (id: string, change: object) => ({
      type: 'FileChange',
      id,
      changes: { [file]: change },
      status: 'completed',
      stdout: 'Success. Updated the following files:\n',
      stderr: '',
    });
    const p = projectRollout(
      THREAD,
      rollout([
        completed(patch('p1', { type: 'add', content: 'hi\n' })),
        completed(patch('p2', { type: 'update', unified_diff: '@@ -1 +1 @@\n-hi\n+hello\n', move_path: null })),
        completed(patch('p3', { type: 'delete', content: 'hello\n' })),
      ]),
    );
    if (typeof p === 'string') throw new Error(p);
    expect(p.items.slice(1, 4).map((i) => JSON.parse(String(i.item_json)))).toEqual([
      { type: 'fileChange', id: 'p1', changes: [{ path: file, kind: { type: 'add' }, diff: 'hi\n' }], status: 'completed' },
      {
        type: 'fileChange',
        id: 'p2',
        changes: [{ path: file, kind: { type: 'update', move_path: null }, diff: '@@ -1 +1 @@\n-hi\n+hello\n' }],
        status: 'completed',
      },
      { type: 'fileChange', id: 'p3', changes: [{ path: file, kind: { type: 'delete' }, diff: 'hello\n' }], status: 'completed' },
    ]);
    for (const other of [
      {
        ...patch('p4', { type: 'add', content: 'a' }),
        changes: { '/a': { type: 'add', content: 'a' }, '/b': { type: 'add', content: 'b' } },
      },
      patch('p5', { type: 'update', unified_diff: '', move_path: '/elsewhere' }),
      { ...patch('p6', { type: 'add', content: 'a' }), status: 'failed' },
    ])
      expect(projectRollout(THREAD, rollout([completed(other)]))).toBe('a FileChange item threadbase does not project');
  });

  it('is none when a record was not checked against codex: a tool call, raw reasoning text, a rollback, an unnumbered record', () => {
    const item = (i: object) => ({
      type: 'event_msg',
      payload: { type: 'item_completed', turn_id: TURN, item: i, started_at_ms: 1, completed_at_ms: 1 },
    });
    expect(
      projectRollout(THREAD, rollout([item({ type: 'Reasoning', id: 'rs', summary_text: ['S'], raw_content: ['raw'] })])),
    ).toBe('a Reasoning item threadbase does not project');
    expect(projectRollout(THREAD, rollout([item({ type: 'CommandExecution', id: 'c' })]))).toBe(
      'a CommandExecution item threadbase does not project',
    );
    expect(projectRollout(THREAD, rollout([{ type: 'event_msg', payload: { type: 'thread_rolled_back', num_turns: 1 } }]))).toBe(
      'a thread_rolled_back event',
    );
    expect(projectRollout(THREAD, rollout([item({ type: 'McpToolCall', id: 'm' })]))).toBe(
      'a McpToolCall item threadbase does not project',
    );
    const unnumbered = Buffer.from(rollout().toString('utf8').replace('"ordinal":3,', ''));
    expect(projectRollout(THREAD, unnumbered)).toBe('a rollout record without its ordinal');
  });
});

describe('writing the projection into codex home', () => {
  let home: string | undefined;
  afterEach(() => {
    if (home) rmSync(home, { recursive: true, force: true });
    home = undefined;
  });
  const withHistoryDb = (version = 9): string => {
    home = mkdtempSync(join(tmpdir(), 'tb-codex-projection-'));
    const db = openDatabase(join(home, 'thread_history_1.sqlite'));
    db.exec(CODEX_0171_THREAD_HISTORY);
    if (version !== 9)
      db.prepare("INSERT INTO _sqlx_migrations VALUES (?, ?, CURRENT_TIMESTAMP, 1, x'00', 0)").run(version, 'later');
    db.close();
    return home;
  };
  const count = (dir: string) => {
    const db = openDatabase(join(dir, 'thread_history_1.sqlite'), { readonly: true });
    try {
      return ['thread_turns', 'thread_items', 'thread_history_projection_state'].map(
        (t) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      );
    } finally {
      db.close();
    }
  };

  it('writes the rows once, for a thread without any; never creates the database', () => {
    home = mkdtempSync(join(tmpdir(), 'tb-codex-projection-'));
    expect(recordThreadHistory(home, THREAD, rollout())).toBe('no thread history database');
    rmSync(home, { recursive: true, force: true });
    const dir = withHistoryDb();
    expect(recordThreadHistory(dir, THREAD, rollout())).toBeUndefined();
    expect(count(dir)).toEqual([1, 2, 1]);
    expect(recordThreadHistory(dir, THREAD, rollout())).toBe('the thread already has a projection');
    expect(count(dir)).toEqual([1, 2, 1]);
  });

  it('writes nothing at a schema version not checked, or for a rollout it does not project', () => {
    const dir = withHistoryDb(10);
    expect(recordThreadHistory(dir, THREAD, rollout())).toBe('thread history schema 10 (checked: 9)');
    expect(count(dir)).toEqual([0, 0, 0]);
    rmSync(dir, { recursive: true, force: true });
    const other = withHistoryDb();
    expect(
      recordThreadHistory(other, THREAD, rollout([{ type: 'event_msg', payload: { type: 'turn_aborted', reason: 'replaced' } }])),
    ).toBe('not projected: a turn_aborted event');
    expect(count(other)).toEqual([0, 0, 0]);
  });
});
