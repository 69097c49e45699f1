/**
 * Appending to a paginated codex rollout that has codex 0.171's history projection (thread_history_<n>.sqlite,
 * written by codex or by threadbase): the projection follows the appended records as codex continues it on a
 * resume (history-projection.ts followThreadHistory): their turns and items added and its state moved to the
 * file's end, in one transaction, when every appended record is one whose projection was checked; else
 * nothing changes (no row removed) and codex catches up itself on its next resume (agents test
 * codex-append-projection).
 */
import { promises as fs, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followThreadHistory, recordThreadHistory } from '../../src/formats/codex/history-projection.js';
import { CodexDriver } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import type { Entry } from '../../src/model/types.js';
import { CODEX_0171_THREAD_HISTORY } from '../helpers/codex-state-db.js';

const THREAD = '01a217ff-5c76-7eb0-b5b0-88cf6631c27f';

/** One codex 0.171 turn (its records cut to what the reader and the projection read), numbered from `ordinal`. */
function turn(turnId: string, prompt: string, answer: string): object[] {
  const at = { started_at_ms: 1795698941166, completed_at_ms: 1795698941166 };
  return [
    { type: 'event_msg', payload: { type: 'task_started', turn_id: turnId, root_turn_id: turnId, started_at: 1795698941 } },
    { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } },
    {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        thread_id: THREAD,
        turn_id: turnId,
        item: { type: 'UserMessage', id: `u-${turnId}`, content: [{ type: 'text', text: prompt, text_elements: [] }] },
        ...at,
      },
    },
    {
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer, annotations: [] }] },
    },
    {
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        thread_id: THREAD,
        turn_id: turnId,
        item: { type: 'AgentMessage', id: `a-${turnId}`, content: [{ type: 'Text', text: answer }] },
        ...at,
      },
    },
    {
      type: 'event_msg',
      payload: { type: 'task_complete', turn_id: turnId, started_at: 1795698941, completed_at: 1795698942, duration_ms: 103 },
    },
  ];
}

const jsonl = (records: object[], from = 0) =>
  records.map((r, i) => `${JSON.stringify({ timestamp: '2026-11-26T13:15:41.100Z', ordinal: from + i, ...r })}\n`).join('');

const FIRST = [
  {
    type: 'session_meta',
    payload: {
      id: THREAD,
      timestamp: '2026-11-26T13:15:41.000Z',
      cwd: '/p',
      history_mode: 'paginated',
      model_provider: 'openai',
    },
  },
  ...turn('t1', 'first', 'ok: first'),
];

let home: string;
let file: string;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'tb-codex-append-projection-'));
  const db = openDatabase(join(home, 'thread_history_1.sqlite'));
  db.exec(CODEX_0171_THREAD_HISTORY);
  db.close();
  const dir = join(home, 'sessions', '2026', '11', '26');
  await fs.mkdir(dir, { recursive: true });
  file = join(dir, `rollout-2026-11-26T13-15-41-${THREAD}.jsonl`);
  await fs.writeFile(file, jsonl(FIRST));
  // the projection codex (or threadbase's copy) made of it
  expect(recordThreadHistory(home, THREAD, readFileSync(file))).toBeUndefined();
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function projection() {
  const db = openDatabase(join(home, 'thread_history_1.sqlite'), { readonly: true });
  try {
    return {
      turns: db
        .prepare('SELECT turn_id, status, rollout_ordinal, rollout_byte_offset FROM thread_turns ORDER BY rollout_ordinal')
        .all(),
      items: db.prepare('SELECT item_id, item_type, rollout_ordinal FROM thread_items ORDER BY rollout_ordinal').all(),
      state: db
        .prepare(
          'SELECT next_rollout_byte_offset AS offset, next_rollout_ordinal AS ordinal FROM thread_history_projection_state',
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

const message = (id: string, parentId: string | null, role: 'user' | 'assistant', text: string, extra = {}): Entry => ({
  id,
  parentId,
  timestamp: '2026-11-26T14:00:00.000Z',
  kind: 'message',
  message: {
    role,
    parts: [{ type: 'text', text }, ...Object.values(extra)] as never,
    ...(role === 'assistant' ? { model: 'm' } : {}),
  },
});

/** A content item codex has no ContentItem for in a reply: its AgentMessage was not checked. */
const UNCHECKED = {
  type: 'text',
  text: '',
  meta: { codexContent: { type: 'output_audio', data: 'UklGRg==', transcript: 'not text' } },
};

describe('appending to a projected codex rollout', () => {
  it("writes an appended exchange as codex's turn (another model's thinking in it too) and adds its turn and items", async () => {
    const before = projection();
    const driver = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: home } });
    // another model's thinking: an agent_reasoning event of threadbase's, no row to codex
    const thinking = { type: 'thinking', thinking: 'hmm', signature: 'sig' };
    await driver.appendEntries(THREAD, [
      message('n1', null, 'user', 'appended'),
      message('n2', 'n1', 'assistant', 'answered', { thinking }),
    ]);
    const bytes = readFileSync(file);
    const text = bytes.toString('utf8');
    expect(text).toContain('agent_reasoning');
    expect(text).not.toMatch(/"type":"event_msg","payload":\{"type":"(user|agent)_message"/);
    const last = JSON.parse(text.trimEnd().split('\n').at(-1) as string) as { ordinal: number; payload: { type: string } };
    expect(last.payload.type).toBe('task_complete');
    const after = projection();
    expect(after.turns.slice(0, 1)).toEqual(before.turns);
    expect(after.turns).toEqual([
      ...before.turns,
      {
        turn_id: expect.any(String),
        status: 'completed',
        rollout_ordinal: FIRST.length,
        rollout_byte_offset: (before.state[0] as { offset: number }).offset,
      },
    ]);
    expect(after.items.map((i) => (i as { item_type: string }).item_type)).toEqual([
      'userMessage',
      'agentMessage',
      'userMessage',
      'agentMessage',
    ]);
    expect(after.state).toEqual([{ offset: bytes.length, ordinal: last.ordinal + 1 }]);
    // read back: the appended messages as written, no entry for the turn records
    const s = await driver.getSession(THREAD);
    const appended = s?.entries.filter((e) => e.kind === 'message').slice(-2);
    expect(appended?.map((e) => (e.kind === 'message' ? e.message.parts.map((p) => p.type) : e.kind))).toEqual([
      ['text'],
      ['text', 'thinking'],
    ]);
    expect(
      s?.entries.filter(
        (e) => e.kind === 'metadata' && /task_|item_completed/.test(e.type) && e.timestamp.startsWith('2026-11-26T14'),
      ),
    ).toEqual([]);
  });

  it("writes an exchange not checked as codex's turn (a reply with a content item codex has no ContentItem for) as before, and moves the state over it (codex passes over it)", async () => {
    const before = projection();
    const driver = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: home } });
    await driver.appendEntries(THREAD, [
      message('n1', null, 'user', 'appended'),
      message('n2', 'n1', 'assistant', 'answered', { unchecked: UNCHECKED }),
    ]);
    const bytes = readFileSync(file);
    expect(bytes.toString('utf8')).toContain('"user_message"');
    const last = JSON.parse(bytes.toString('utf8').trimEnd().split('\n').at(-1) as string) as { ordinal: number };
    const after = projection();
    expect(after.turns).toEqual(before.turns);
    expect(after.items).toEqual(before.items);
    expect(after.state).toEqual([{ offset: bytes.length, ordinal: last.ordinal + 1 }]);
  });

  it('leaves the projection as it is when an appended record was not checked (codex catches up on resume)', async () => {
    const before = projection();
    const driver = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: home } });
    // another agent's compaction before an exchange not written as turns: a compacted record outside a turn
    const compaction: Entry = {
      id: 'c1',
      parentId: null,
      timestamp: '2026-11-26T14:00:00.000Z',
      kind: 'compaction',
      summary: 'so far',
    };
    await driver.appendEntries(THREAD, [
      compaction,
      message('n1', 'c1', 'user', 'appended'),
      message('n2', 'n1', 'assistant', 'answered', { unchecked: UNCHECKED }),
    ]);
    expect(readFileSync(file, 'utf8')).toContain('"compacted"');
    expect(projection()).toEqual(before);
  });

  it('adds the turns and items of appended turn records, and leaves a projection that does not end where they start', async () => {
    const bytes = Buffer.from(readFileSync(file).toString('utf8') + jsonl(turn('t2', 'second', 'ok: second'), FIRST.length));
    const appendedAt = readFileSync(file).length;
    await fs.writeFile(file, bytes);
    expect(followThreadHistory(home, THREAD, bytes, appendedAt + 1)).toBe(
      'the projection does not end where the appended records start',
    );
    expect(projection().turns).toHaveLength(1);
    expect(followThreadHistory(home, THREAD, bytes, appendedAt)).toBeUndefined();
    const after = projection();
    expect(after.turns).toEqual([
      { turn_id: 't1', status: 'completed', rollout_ordinal: 1, rollout_byte_offset: expect.any(Number) },
      { turn_id: 't2', status: 'completed', rollout_ordinal: FIRST.length, rollout_byte_offset: appendedAt },
    ]);
    expect(after.items.map((i) => (i as { item_id: string }).item_id)).toEqual(['u-t1', 'a-t1', 'u-t2', 'a-t2']);
    expect(after.state).toEqual([{ offset: bytes.length, ordinal: FIRST.length + 6 }]);
    // once followed, the same append does not follow again
    expect(followThreadHistory(home, THREAD, bytes, appendedAt)).toBe(
      'the projection does not end where the appended records start',
    );
  });
});
