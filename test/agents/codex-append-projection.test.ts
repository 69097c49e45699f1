/**
 * threadbase appending to a thread the real codex 0.171 recorded (paginated, with codex's own projection in
 * thread_history_<n>.sqlite):
 * - an appended exchange is written as codex's turn (task_started, the UserMessage and AgentMessage items,
 *   task_complete: turns.ts), another model's thinking in it too (its agent_reasoning event is no row to
 *   codex), and the projection follows it: its turn and items added, the state at the file's end; codex's
 *   app-server lists it, and codex, resuming, continues the projection from there with its next turn;
 * - an appended compaction outside a turn is a turn of its own, and an appended reply with another model's refusal part
 *   an AgentMessage of its text: codex's own projection of the rollout on a resume is threadbase's, the resume sends our context;
 * - an appended exchange whose turn's projection was not checked (a reply with a content item codex has no ContentItem for) is written as
 *   before (its response items and the legacy user_message / agent_message events outside any turn, which
 *   codex passes over): the projection's state follows to the file's end, its rows unchanged, and codex,
 *   resuming, continues from there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import type { Entry, Part } from '../../src/model/types.js';
import { type CodexAgentHome, resumedByCodex, setupCodexAgentHome } from '../helpers/agents.js';
import { codexAppServer } from '../helpers/codex-app-server.js';
import { forgetThreadHistory, threadHistoryRows } from '../helpers/codex-history.js';
import { isCodexInjected, itemLine, withoutItemIds } from '../helpers/openai-responses-standin.js';

let home: CodexAgentHome;
let driver: CodexDriver;
beforeAll(async () => {
  home = await setupCodexAgentHome();
  driver = new CodexDriver(home.env);
}, 60_000);
afterAll(async () => {
  await home?.close();
});

interface Projection {
  turns: { turn_id: string; rollout_ordinal: number; rollout_byte_offset: number; rollout_end_byte_offset: number }[];
  items: { item_id: string; item_type: string }[];
  state: { offset: number; ordinal: number } | undefined;
}

function projection(id: string): Projection {
  const file = readdirSync(home.codexHome).find((f) => /^thread_history_\d+\.sqlite$/.test(f));
  const db = openDatabase(join(home.codexHome, file as string), { readonly: true });
  try {
    return {
      turns: db
        .prepare(
          'SELECT turn_id, rollout_ordinal, rollout_byte_offset, rollout_end_byte_offset FROM thread_turns WHERE thread_id = ? ORDER BY rollout_ordinal',
        )
        .all(id) as Projection['turns'],
      items: db
        .prepare('SELECT item_id, item_type FROM thread_items WHERE thread_id = ? ORDER BY rollout_ordinal')
        .all(id) as Projection['items'],
      state: db
        .prepare(
          'SELECT next_rollout_byte_offset AS offset, next_rollout_ordinal AS ordinal FROM thread_history_projection_state WHERE thread_id = ?',
        )
        .get(id) as Projection['state'],
    };
  } finally {
    db.close();
  }
}

/** The thread's projection rows, every column. */
const fullRows = (id: string) => threadHistoryRows(home.codexHome, id);

const where = () => ({ cwd: home.project, home: home.root, codexHome: home.codexHome });
async function readTurns(id: string): Promise<unknown[]> {
  const [read] = (await codexAppServer(where(), [['thread/read', { threadId: id, includeTurns: true }]])) as [
    { thread: { turns: unknown[] } },
  ];
  return read.thread.turns;
}

/** A new thread of codex's own: its id and rollout. */
async function codexThread(prompt: string): Promise<{ id: string; path: string }> {
  const known = new Set((await driver.listSessions()).map((s) => s.id));
  await home.codex([prompt]);
  const made = (await driver.listSessions()).find((s) => !known.has(s.id));
  if (!made?.path) throw new Error('codex recorded no thread');
  return { id: made.id, path: made.path };
}

const exchange = (extra: Part[] = []): Entry[] => [
  {
    id: 'tb-u',
    parentId: null,
    timestamp: new Date().toISOString(),
    kind: 'message',
    message: { role: 'user', parts: [{ type: 'text', text: 'appended question' }] },
  },
  {
    id: 'tb-a',
    parentId: 'tb-u',
    timestamp: new Date().toISOString(),
    kind: 'message',
    message: { role: 'assistant', model: 'claude-x', parts: [...extra, { type: 'text', text: 'appended answer' }] },
  },
];

/** Every turn row starts at its task_started record and ends after its last record; the state is the file's end. */
function expectAtItsRecords(p: Projection, path: string): void {
  const bytes = readFileSync(path);
  for (const t of p.turns) {
    const first = JSON.parse(bytes.subarray(t.rollout_byte_offset).toString('utf8').split('\n')[0] as string);
    expect(first).toMatchObject({ ordinal: t.rollout_ordinal, payload: { type: 'task_started', turn_id: t.turn_id } });
    expect(bytes[t.rollout_end_byte_offset - 1]).toBe(0x0a);
  }
  const last = JSON.parse(bytes.toString('utf8').trimEnd().split('\n').at(-1) as string) as { ordinal: number };
  expect(p.state).toEqual({ offset: bytes.length, ordinal: last.ordinal + 1 });
}

describe("threadbase's appends and codex's projection", () => {
  it("an appended exchange is codex's turn: the projection follows it, codex's app-server lists it and codex continues it on resume", async () => {
    const t = await codexThread('first question');
    const before = projection(t.id);
    const turnsBefore = await readTurns(t.id);
    await driver.appendEntries(t.id, exchange([{ type: 'thinking', thinking: 'Weighing it.', signature: 'sig' }]));
    expect(readFileSync(t.path, 'utf8')).toContain('"agent_reasoning"');
    const after = projection(t.id);
    expect(after.turns.slice(0, before.turns.length)).toEqual(before.turns);
    expect(after.turns).toHaveLength(2);
    expect(after.items.map((i) => i.item_type)).toEqual(['userMessage', 'agentMessage', 'userMessage', 'agentMessage']);
    expectAtItsRecords(after, t.path);
    const turns = (await readTurns(t.id)) as { items: { type: string; text?: string }[] }[];
    expect(turns.slice(0, turnsBefore.length)).toEqual(turnsBefore);
    expect(turns.at(-1)?.items.map((i) => [i.type, i.text ?? ''])).toEqual([
      ['userMessage', ''],
      ['agentMessage', 'appended answer'],
    ]);

    await home.codex(['resume', t.id, 'after append']);
    const resumed = projection(t.id);
    expect(resumed.turns.slice(0, 2)).toEqual(after.turns);
    expect(resumed.turns).toHaveLength(3);
    expect(resumed.items.map((i) => i.item_type)).toEqual([
      'userMessage',
      'agentMessage',
      'userMessage',
      'agentMessage',
      'userMessage',
      'agentMessage',
    ]);
    expectAtItsRecords(resumed, t.path);
  }, 120_000);

  it("an appended compaction outside a turn is a turn of its own (its ContextCompaction item) as codex's /compact; codex projects and resumes it as threadbase does", async () => {
    const t = await codexThread('third thread');
    const leaf = (await driver.getSession(t.id))?.leafId ?? null;
    const [question, answer] = exchange() as [Entry, Entry];
    const compaction: Entry = {
      id: 'tb-c',
      parentId: leaf,
      timestamp: new Date().toISOString(),
      kind: 'compaction',
      summary: 'The user started a thread.',
    };
    await driver.appendEntries(t.id, [compaction, { ...question, parentId: 'tb-c' }, answer]);
    const after = projection(t.id);
    expect(after.items.map((i) => i.item_type)).toEqual([
      'userMessage',
      'agentMessage',
      'contextCompaction',
      'userMessage',
      'agentMessage',
    ]);
    expectAtItsRecords(after, t.path);
    const turns = (await readTurns(t.id)) as { items: { type: string }[] }[];
    expect(turns.slice(1).map((x) => x.items.map((i) => i.type))).toEqual([
      ['contextCompaction'],
      ['userMessage', 'agentMessage'],
    ]);
    const ours = fullRows(t.id);
    const context = contextToResponses(await driver.getContext(t.id)).input;
    // codex's own projection of the rollout: the rows taken away, codex makes them again on a resume
    forgetThreadHistory(home.codexHome, t.id);
    const sent = await resumedByCodex(home, t.id, 'after compaction');
    expect(sent.map(itemLine).at(-1)).toBe('user after compaction');
    expect(withoutItemIds(sent.slice(0, -1))).toEqual(withoutItemIds(context));
    const theirs = fullRows(t.id);
    expect(theirs.turns.slice(0, ours.turns.length)).toEqual(ours.turns);
    expect(theirs.items.slice(0, ours.items.length)).toEqual(ours.items);
    expect(theirs.turns).toHaveLength(ours.turns.length + 1);
  }, 120_000);

  it("an appended reply with a refusal part (another model's refusal: text marked refusal) is codex's turn, the refusal its AgentMessage text; codex projects and resumes it as threadbase does", async () => {
    const t = await codexThread('fourth thread');
    const [question, answer] = exchange() as [Entry, Entry & { kind: 'message' }];
    answer.message.parts = [{ type: 'text', text: 'I cannot help with that.', meta: { refusal: true } }];
    await driver.appendEntries(t.id, [question, answer]);
    const after = projection(t.id);
    expect(after.items.map((i) => i.item_type)).toEqual(['userMessage', 'agentMessage', 'userMessage', 'agentMessage']);
    expectAtItsRecords(after, t.path);
    const turns = (await readTurns(t.id)) as { items: { type: string; text?: string }[] }[];
    expect(turns.at(-1)?.items.map((i) => [i.type, i.text ?? ''])).toEqual([
      ['userMessage', ''],
      ['agentMessage', 'I cannot help with that.'],
    ]);
    const ours = fullRows(t.id);
    const context = contextToResponses(await driver.getContext(t.id)).input;
    forgetThreadHistory(home.codexHome, t.id);
    const sent = await resumedByCodex(home, t.id, 'after refusal');
    expect(sent.map(itemLine).slice(-2)).toEqual(['assistant I cannot help with that.', 'user after refusal']);
    // codex injects its context again (developer instructions, environment) on a resume
    expect(withoutItemIds(sent.slice(0, -1))).toEqual(withoutItemIds(context.filter((i) => !isCodexInjected(i))));
    const theirs = fullRows(t.id);
    expect(theirs.turns.slice(0, ours.turns.length)).toEqual(ours.turns);
    expect(theirs.items.slice(0, ours.items.length)).toEqual(ours.items);
  }, 120_000);

  it('an appended exchange not checked as a turn (a reply with a content item codex has no ContentItem for) is written as before; the projection passes over it', async () => {
    const t = await codexThread('second thread');
    const before = projection(t.id);
    const turnsBefore = await readTurns(t.id);
    const [question, answer] = exchange() as [Entry, Entry & { kind: 'message' }];
    answer.message.parts.push({
      type: 'text',
      text: '',
      meta: { codexContent: { type: 'output_audio', data: 'UklGRg==', transcript: 'not text' } },
    });
    await driver.appendEntries(t.id, [question, answer]);
    expect(readFileSync(t.path, 'utf8')).toContain('"user_message"');
    const after = projection(t.id);
    expect({ turns: after.turns, items: after.items }).toEqual({ turns: before.turns, items: before.items });
    expectAtItsRecords(after, t.path);
    expect(await readTurns(t.id)).toEqual(turnsBefore);

    await home.codex(['resume', t.id, 'after append']);
    const resumed = projection(t.id);
    expect(resumed.turns).toHaveLength(2);
    expect(resumed.items.map((i) => i.item_type)).toEqual(['userMessage', 'agentMessage', 'userMessage', 'agentMessage']);
    expectAtItsRecords(resumed, t.path);
  }, 120_000);
});
