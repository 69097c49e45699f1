/**
 * Another agent's session written into codex as codex 0.171's turns (turns.ts): each prompt a turn
 * (`task_started`, its UserMessage item, the AgentMessage items of the replies, `task_complete`, the
 * records marked `threadbase: "turn"`), `history_mode: "paginated"`, ordinals from 0, and the
 * projection codex makes of it written (agents test codex-foreign-turns checks it against the real
 * codex). Only when that projection is one checked; otherwise (a reply with a content item codex has no ContentItem for, such as output audio) as before:
 * legacy; a compaction before the first prompt is a turn of its own. Read back, the session is what the legacy rollout
 * gives: the same messages with the same ids, no entry for the turn records; a copy of it is wrapped
 * again.
 */
import { promises as fs, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeRollout } from '../../src/formats/codex/driver.js';
import { projectRollout } from '../../src/formats/codex/history-projection.js';
import { CodexDriver, contextToResponses } from '../../src/formats/codex/index.js';
import { readRollout } from '../../src/formats/codex/rollout.js';
import { openDatabase } from '../../src/formats/shared/sqlite.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { CODEX_0169_THREAD_SPAWN_EDGES, CODEX_0169_THREADS, CODEX_0171_THREAD_HISTORY } from '../helpers/codex-state-db.js';
import { claudeListingSession, imagePrompt, startingWithCompaction } from '../helpers/sessions.js';

let home: string;
let driver: CodexDriver;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-codex-foreign-turns-'));
  const state = openDatabase(join(home, 'state_5.sqlite'));
  state.exec(CODEX_0169_THREADS);
  state.exec(CODEX_0169_THREAD_SPAWN_EDGES);
  state.close();
  const history = openDatabase(join(home, 'thread_history_1.sqlite'));
  history.exec(CODEX_0171_THREAD_HISTORY);
  history.close();
  driver = new CodexDriver({ home: '/nonexistent', env: { CODEX_HOME: home } });
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

const claudeSession = (firstPrompt?: Message): Session => claudeListingSession('/proj', firstPrompt);

type Record_ = { ordinal?: number; type: string; payload: Record<string, unknown> };
const records = (path: string): Record_[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record_);

function rowsOf(id: string) {
  const db = openDatabase(join(home, 'thread_history_1.sqlite'), { readonly: true });
  try {
    return {
      turns: db.prepare('SELECT * FROM thread_turns WHERE thread_id = ? ORDER BY rollout_ordinal').all(id),
      items: db.prepare('SELECT * FROM thread_items WHERE thread_id = ? ORDER BY rollout_ordinal').all(id),
      state: db.prepare('SELECT * FROM thread_history_projection_state WHERE thread_id = ?').all(id),
    };
  } finally {
    db.close();
  }
}

/** The session's entries without the rollout records they were read from (raw), to compare two readings. */
const modelEntries = (s: Session): Entry[] =>
  s.entries.map((e) => {
    const { raw: _raw, rawSource: _source, ...rest } = e;
    return rest as Entry;
  });

/** The ids of the messages on the path to the session's leaf. */
const messagePath = (s: Session): string[] =>
  pathToLeaf(s)
    .filter((e) => e.kind === 'message')
    .map((e) => e.id);

/** The session as a legacy rollout (what threadbase wrote before) read back. */
async function legacyReading(session: Session, id: string): Promise<Session> {
  const { lines } = encodeRollout(session, id);
  const file = join(home, `rollout-2026-01-01T00-00-00-${id}.jsonl`);
  await fs.writeFile(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return readRollout(file);
}

describe("another agent's session written into codex as codex's turns", () => {
  it('each prompt a turn of marked records, paginated and numbered, its projection written', async () => {
    const written = await driver.writeSession(claudeSession());
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBe('paginated');
    expect(recs.map((r) => r.ordinal)).toEqual(recs.map((_, i) => i));
    const events = recs.filter((r) => r.type === 'event_msg').map((r) => r.payload);
    expect(events.filter((p) => p.type === 'user_message' || p.type === 'agent_message')).toEqual([]);
    const turnRecords = events.filter((p) => p.threadbase === 'turn');
    expect(turnRecords.map((p) => (p.type === 'item_completed' ? (p.item as { type: string }).type : p.type))).toEqual([
      'task_started',
      'UserMessage',
      'AgentMessage',
      'AgentMessage',
      'task_complete',
      'task_started',
      'UserMessage',
      'AgentMessage',
      'task_complete',
    ]);
    expect(turnRecords.at(-1)).toMatchObject({ last_agent_message: 'You are welcome.' });
    // the other model's thinking stays its agent_reasoning event, in the turn
    expect(events.some((p) => p.type === 'agent_reasoning' && p.threadbase === 'thinking')).toBe(true);

    const projected = projectRollout(written.id, readFileSync(written.path as string));
    if (typeof projected === 'string') throw new Error(projected);
    const rows = rowsOf(written.id);
    expect(rows.turns).toEqual(projected.turns);
    expect(rows.items).toEqual(projected.items);
    expect(rows.turns.map((t) => (t as { status: string }).status)).toEqual(['completed', 'completed']);
    expect(rows.state).toEqual([
      {
        thread_id: written.id,
        next_rollout_byte_offset: readFileSync(written.path as string).length,
        next_rollout_ordinal: recs.length,
      },
    ]);
  });

  it('reads back as the legacy rollout does: the same entries, ids and parents, no entry for the other turn records', async () => {
    const session = claudeSession();
    const written = await driver.writeSession(session);
    const back = await driver.getSession(written.id);
    if (!back) throw new Error('not read');
    const legacy = await legacyReading(session, written.id);
    expect(modelEntries(back)).toEqual(modelEntries(legacy));
    expect(messagePath(back)).toEqual(messagePath(legacy));
    expect(back.entries.filter((e) => e.kind === 'metadata' && /task_|item_completed/.test(e.type))).toEqual([]);
    expect(back.messageCount).toBe(legacy.messageCount);
    expect(back.title).toBe(legacy.title);
    // a copy of it (codex to codex) is codex's turns again, with its own projection
    const copy = await driver.writeSession(back);
    const copied = records(copy.path as string);
    expect(copied[0]?.payload.history_mode).toBe('paginated');
    expect(copied.filter((r) => r.payload.type === 'task_started')).toHaveLength(2);
    expect(rowsOf(copy.id).turns).toHaveLength(2);
    const again = await driver.getSession(copy.id);
    expect(again && modelEntries(again)).toEqual(modelEntries(await legacyReading(back, copy.id)));
    expect(again && messagePath(again)).toEqual(messagePath(back));
  });

  it('an image in a prompt is an image input of its UserMessage, a reply of several text parts one AgentMessage of them', async () => {
    const prompt = imagePrompt('iVBORw0KGgo=');
    const session = claudeSession(prompt);
    const reply = session.entries[3] as Entry & { kind: 'message' };
    reply.message.parts.push({ type: 'text', text: ' And more.', meta: { codexNewItem: false } });
    const written = await driver.writeSession(session);
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBe('paginated');
    const items = rowsOf(written.id).items.map((i) => JSON.parse((i as { item_json: string }).item_json));
    expect(items[0].content).toEqual([
      { type: 'text', text: 'what is this?', text_elements: [] },
      { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', detail: null },
    ]);
    expect(items.map((i) => i.text).filter(Boolean)).toEqual(['Listing.', 'One file: a.txt And more.', 'You are welcome.']);
    const back = await driver.getSession(written.id);
    expect(back && modelEntries(back)).toEqual(modelEntries(await legacyReading(session, written.id)));
  });

  it("an image with a detail level in a prompt is an image input of its UserMessage with codex's detail", async () => {
    const prompt = imagePrompt('iVBORw0KGgo=', { detail: 'high' });
    const written = await driver.writeSession(claudeSession(prompt));
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBe('paginated');
    const prompted = recs.find((r) => r.payload.type === 'item_completed')?.payload.item as { content: unknown[] };
    expect(prompted.content[1]).toEqual({ type: 'image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' });
    const items = rowsOf(written.id).items.map((i) => JSON.parse((i as { item_json: string }).item_json));
    expect(items[0].content[1]).toEqual({ type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' });
  });

  it('a reply with input text and an image input is an AgentMessage of its texts, as codex makes it; read back, the context sends both items as they were', async () => {
    const session = claudeSession();
    const reply = session.entries[3] as Entry & { kind: 'message' };
    const input = { type: 'input_text', text: ' Input text.' };
    const image = { type: 'input_image', image_url: 'data:image/png;base64,AAAA' };
    reply.message.parts.push(
      { type: 'text', text: '', meta: { codexContent: input } },
      { type: 'text', text: '', meta: { codexContent: image } },
    );
    const written = await driver.writeSession(session);
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBe('paginated');
    const agent = recs.flatMap((r) => {
      const item = r.payload.item as { type?: string; content?: unknown } | undefined;
      return r.payload.type === 'item_completed' && item?.type === 'AgentMessage' ? [item.content] : [];
    });
    expect(agent).toContainEqual([
      { type: 'Text', text: 'One file: a.txt' },
      { type: 'Text', text: ' Input text.' },
    ]);
    const sent = contextToResponses(await driver.getContext(written.id)).input.find(
      (i) => i.type === 'message' && i.role === 'assistant' && JSON.stringify(i).includes('One file'),
    );
    expect(sent?.content).toEqual([{ type: 'output_text', text: 'One file: a.txt', annotations: [] }, input, image]);
  });

  it('stays legacy when the projection of its turns was not checked: a reply with a content item codex has no ContentItem for', async () => {
    const session = claudeSession();
    const reply = session.entries[3] as Entry & { kind: 'message' };
    reply.message.parts.push({
      type: 'text',
      text: '',
      meta: { codexContent: { type: 'output_audio', data: 'UklGRg==', transcript: 'not text' } },
    });
    const written = await driver.writeSession(session);
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBeUndefined();
    expect(recs.some((r) => r.payload.type === 'task_started')).toBe(false);
    expect(recs.some((r) => r.payload.type === 'user_message')).toBe(true);
    expect(rowsOf(written.id)).toEqual({ turns: [], items: [], state: [] });
  });

  it('a compaction before its first prompt is a turn of its own: task_started, the compacted record, its ContextCompaction item, task_complete', async () => {
    const session = startingWithCompaction(claudeSession(), 'before');
    const written = await driver.writeSession(session);
    const recs = records(written.path as string);
    expect(recs[0]?.payload.history_mode).toBe('paginated');
    expect(
      recs
        .slice(1, 5)
        .map((r) =>
          r.payload.type === 'item_completed'
            ? (r.payload.item as { type: string }).type
            : r.type === 'event_msg'
              ? r.payload.type
              : r.type,
        ),
    ).toEqual(['task_started', 'compacted', 'ContextCompaction', 'task_complete']);
    const rows = rowsOf(written.id);
    expect(rows.turns).toHaveLength(3);
    expect(rows.items.map((i) => (i as { item_type: string }).item_type)[0]).toBe('contextCompaction');
    const back = await driver.getSession(written.id);
    expect(back && modelEntries(back)).toEqual(modelEntries(await legacyReading(session, written.id)));
  });
  it("leaves codex's own threads as they are: a copy of a paginated thread without a turn stays paginated", async () => {
    const id = '01a21900-0000-7000-8000-000000000001';
    const dir = join(home, 'sessions', '2026', '11', '26');
    await fs.mkdir(dir, { recursive: true });
    const meta = { id, timestamp: '2026-11-26T10:00:00.000Z', cwd: '/p', history_mode: 'paginated', model_provider: 'openai' };
    await fs.writeFile(
      join(dir, `rollout-2026-11-26T10-00-00-${id}.jsonl`),
      `${JSON.stringify({ timestamp: meta.timestamp, ordinal: 0, type: 'session_meta', payload: meta })}\n`,
    );
    const own = await driver.getSession(id);
    if (!own) throw new Error('not read');
    const copy = await driver.writeSession(own);
    expect(records(copy.path as string).map((r) => r.payload.history_mode)).toEqual(['paginated']);
  });
});
