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
    expect(projectRollout(THREAD, rollout([{ type: 'compacted', payload: { message: 's' } }]))).toBe('a compacted record');
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
    expect(recordThreadHistory(other, THREAD, rollout([{ type: 'compacted', payload: {} }]))).toBe(
      'not projected: a compacted record',
    );
    expect(count(other)).toEqual([0, 0, 0]);
  });
});
