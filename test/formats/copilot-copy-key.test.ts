/**
 * A reply converted into GitHub Copilot CLI is a copy of the original: `stats` counts it once. Every
 * event Copilot CLI loads needs a UUID id, and threadbase makes up a `threadbase-<uuid>` apiCallId to
 * pair a response's usage record with its message, so a reply without a response id (as Zed's) read
 * back with neither its entry id nor its time's partner: its copy key differed. The writer keeps the
 * entry's id and time in the assistant.message's `threadbase` (Copilot CLI loads and resumes it:
 * test/agents/copilot-copy-key.test.ts); the reader takes them, and a rewind still names the event.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopilotDriver, encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { CountedResponses } from '../../src/model/copies.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Session } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-copilot-copy-key-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const usage = (input: number) => ({ input, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0 });
const reply = (text: string, input: number, responseId?: string): Message =>
  textMessage('assistant', text, { model: 'claude-sonnet-4-5', usage: usage(input), ...(responseId ? { responseId } : {}) });

/** the original: a reply without a response id (m2) and one with (m4) */
const original: Session = chainSession('zed-like', 'zed', '/p', [
  ['m1', textMessage('user', 'where are the otters')],
  ['m2', reply('by the river', 100)],
  ['m3', textMessage('user', 'and the badgers')],
  ['m4', reply('under the hill', 40, 'msg_01badgers')],
]);

/** `original` written into Copilot CLI under `id`, `extra` events appended (each linked to the one before) */
async function written(id: string, extra: (records: Record<string, unknown>[]) => Record<string, unknown>[] = () => []) {
  const { records } = encodeCopilotEvents(original, { sessionId: id });
  for (const e of extra(records)) records.push({ ...e, parentId: records.at(-1)?.id ?? null });
  const d = join(dir, id, 'session-state', id);
  await mkdir(d, { recursive: true });
  await writeFile(join(d, 'events.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const driver = new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: join(dir, id) } });
  const s = await driver.getSession(id);
  if (!s) throw new Error(`no session ${id}`);
  return { records, session: s };
}

const replies = (s: Session) =>
  s.entries.flatMap((e) =>
    e.kind === 'message' && e.message.role === 'assistant'
      ? [{ id: e.id, timestamp: e.timestamp, responseId: e.message.responseId }]
      : [],
  );

describe('a reply converted into Copilot CLI', () => {
  it('keeps its entry id and time without a response id, its response id and time with one; counted once', async () => {
    const { records, session } = await written(randomUUID());
    const messages = records.filter((r) => r.type === 'assistant.message').map((r) => r.data as Record<string, unknown>);
    expect(messages.map((d) => d.threadbase)).toEqual([{ entryId: 'm2', timestamp: original.entries[1]?.timestamp }, undefined]);
    expect(messages.map((d) => d.apiCallId)).toEqual([expect.stringMatching(/^threadbase-/), 'msg_01badgers']);
    const [m2, m4] = replies(original);
    // the reply with a response id is known by it and its time (its entry id is its event's)
    expect(replies(session)).toEqual([m2, { ...m4, id: expect.any(String) }]);
    expect(replies(session).map((r) => r.responseId)).toEqual([undefined, 'msg_01badgers']);
    // its usage still read (the made-up apiCallId pairs it with its usage record)
    const counted = new CountedResponses();
    counted.add(original);
    counted.add(session);
    expect(counted.totals()).toMatchObject({ input: 140, output: 4, messages: 2 });
  });

  it('a snapshot rewind that removes the copied reply’s event leaves it on the abandoned branch', async () => {
    // the events from the `at`th user or assistant message on removed, as Copilot CLI lists them, then a new prompt
    const rewoundFrom = (at: number) => (records: Record<string, unknown>[]) => {
      const first = records.filter((r) => r.type === 'user.message' || r.type === 'assistant.message')[at];
      const removed = records.slice(records.indexOf(first as Record<string, unknown>));
      return [
        {
          type: 'session.snapshot_rewind',
          data: { upToEventId: first?.id, eventsRemoved: removed.length, eventIds: removed.map((r) => r.id) },
          id: randomUUID(),
          timestamp: '2026-01-01T00:10:00.000Z',
        },
        { type: 'user.message', data: { content: 'instead' }, id: randomUUID(), timestamp: '2026-01-01T00:11:00.000Z' },
      ];
    };
    const texts = (s: Session) => buildContext(s).messages.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''));
    expect(texts((await written(randomUUID(), rewoundFrom(2))).session)).toEqual([
      'where are the otters',
      'by the river',
      'instead',
    ]);
    // the reply kept by its entry id removed by its event's
    const { session: back } = await written(randomUUID(), rewoundFrom(1));
    expect(texts(back)).toEqual(['where are the otters', 'instead']);
    expect(back.entries.find((e) => e.id === 'm2')).toBeDefined();
  });

  it('a reply a compaction kept, written again after it, is counted once (its usage written once)', async () => {
    const compacted: Session = {
      ...original,
      id: 'compacted',
      entries: [
        ...original.entries,
        {
          kind: 'compaction',
          id: 'c1',
          parentId: 'm4',
          timestamp: '2026-01-01T00:09:00.000Z',
          summary: 'otters and badgers',
          firstKeptEntryId: 'm3',
        },
      ],
      leafId: 'c1',
    };
    const { records } = encodeCopilotEvents(compacted, { sessionId: randomUUID() });
    // the kept reply is written twice, its usage once
    expect(records.filter((r) => r.type === 'assistant.message')).toHaveLength(3);
    expect(records.filter((r) => r.type === 'session.usage_record')).toHaveLength(2);
    const id = randomUUID();
    const d = join(dir, id, 'session-state', id);
    await mkdir(d, { recursive: true });
    await writeFile(join(d, 'events.jsonl'), encodeCopilotEvents(compacted, { sessionId: id }).jsonl);
    const copy = await new CopilotDriver({ home: join(dir, 'nohome'), env: { COPILOT_HOME: join(dir, id) } }).getSession(id);
    if (!copy) throw new Error('no copy');
    const alone = new CountedResponses();
    alone.add(copy);
    expect(alone.totals()).toMatchObject({ input: 140, messages: 2 });
    const counted = new CountedResponses();
    counted.add(compacted);
    counted.add(copy);
    expect(counted.totals()).toMatchObject({ input: 140, messages: 2 });
  });

  it('an entry id kept twice (a reply written again after a compaction) is the first one’s; the second keeps its event id', async () => {
    const again = randomUUID();
    const { session } = await written(randomUUID(), (records) => {
      const first = records.find((r) => r.type === 'assistant.message');
      return [{ ...first, id: again }];
    });
    const ids = session.entries.map((e) => e.id);
    expect(ids.filter((i) => i === 'm2')).toHaveLength(1);
    expect(ids).toContain(again);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
