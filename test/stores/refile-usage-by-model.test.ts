/**
 * A listing stored in an index before 485cd8c keeps the per-model filing of its usage as
 * summarizeUsage filed it then (a split response under the model of its last record with usage, even
 * one naming none; since, under the last record with usage or a cost that names one, as `stats --by
 * model` counts it). Schema 17 files the stored listings again from the counted records, so an index
 * from before shows what a fresh one shows without re-reading any session.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Entry, Message, Session, Usage } from '../../src/model/types.js';
import { openSqliteStore } from '../../src/stores/sqlite/index.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const usage = (input: number, extra: Partial<Usage> = {}): Usage => ({
  input,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  ...extra,
});
const reply = (model: string | undefined, extra: Partial<Message>) =>
  textMessage('assistant', 'reply', { ...(model ? { model } : {}), ...extra });

const session = (id: string, replies: [string, Message][]): Session => {
  const entries: Entry[] = [messageEntry(`${id}-u`, null, 1, textMessage('user', 'go'))];
  for (const [i, [eid, m]] of replies.entries()) entries.push(messageEntry(eid, entries[i]?.id ?? null, i + 2, m));
  return {
    id,
    source: 'claude',
    project: '/refile',
    createdAt: entries[0]?.timestamp as string,
    updatedAt: entries.at(-1)?.timestamp as string,
    messageCount: entries.length,
    entries,
  };
};

/** split responses whose records name different models, and a record of its own */
const MOVED = session('moved', [
  // the usage, then the cost on a record naming another model: filed under the first, now the cost's
  ['uc-1', reply('uc-first', { responseId: 'msg_uc', usage: usage(10) })],
  ['uc-2', reply('uc-later', { responseId: 'msg_uc', cost: 0.5 })],
  // the later usage record names no model: filed under none (''), now the first's
  ['un-1', reply('un-first', { responseId: 'msg_un', usage: usage(1000) })],
  ['un-2', reply(undefined, { responseId: 'msg_un', usage: usage(2000) })],
  ['solo', reply('solo', { usage: usage(5) })],
]);
/** the old filing of MOVED */
const MOVED_BEFORE = { 'uc-first': usage(10), '': usage(2000), solo: usage(5) };

/** a fork of MOVED: the same records, copies that count in MOVED (counted = 2), filed in its own listing too */
const FORK: Session = { ...MOVED, id: 'moved-fork', parentId: 'moved', createdAt: '2026-06-01T00:00:00.000Z' };

/** one model in all, which the old filing split in two (its usage with no model under '') */
const ONE = session('one', [
  ['one-1', reply('only', { responseId: 'msg_one', usage: usage(1) })],
  ['one-2', reply(undefined, { responseId: 'msg_one', usage: usage(2) })],
  ['one-3', reply('only', { usage: usage(3) })],
]);
const ONE_BEFORE = { '': usage(2), only: usage(3) };

/** filed alike before and since, with 1-hour cache writes: its listing is left as it is */
const SAME = session('same', [
  ['s-1', reply('a', { usage: usage(7, { cacheWrite: 4, cacheWrite1h: 4 }) })],
  ['s-2', reply('b', { usage: usage(8) })],
]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tb-refile-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('an index from before 485cd8c lists each session’s usage per model as one stored since lists it', async () => {
  const sessions = [MOVED, FORK, ONE, SAME];
  const fresh = openSqliteStore(join(dir, 'fresh.db'));
  for (const s of sessions) fresh.putSession(s, { keepSource: true });
  const want = await fresh.listSessions();
  const wantShown = await Promise.all(sessions.map((s) => fresh.getSession(s.id)));
  await fresh.close();
  expect(want.find((s) => s.id === 'moved')?.usageByModel).toEqual({
    'uc-later': usage(10),
    'un-first': usage(2000),
    solo: usage(5),
  });
  expect(want.find((s) => s.id === 'moved-fork')?.usageByModel).toEqual(want.find((s) => s.id === 'moved')?.usageByModel);
  expect(want.find((s) => s.id === 'one')?.usageByModel).toBeUndefined();

  // the same index at schema 16, its listings filed as before 485cd8c
  const path = join(dir, 'old.db');
  const store = openSqliteStore(path);
  for (const s of sessions) store.putSession(s, { keepSource: true });
  await store.close();
  const db = new Database(path);
  expect(db.prepare("SELECT count(*) FROM entries WHERE session_id = 'moved-fork' AND counted = 2").pluck().get()).toBe(3);
  const setFiling = db.prepare("UPDATE sessions SET info_json = json_set(info_json, '$.usageByModel', json(?)) WHERE id = ?");
  setFiling.run(JSON.stringify(MOVED_BEFORE), 'moved');
  setFiling.run(JSON.stringify(MOVED_BEFORE), 'moved-fork');
  setFiling.run(JSON.stringify(ONE_BEFORE), 'one');
  db.pragma('user_version = 16');
  const sameBefore = db.prepare("SELECT info_json FROM sessions WHERE id = 'same'").pluck().get();
  db.close();

  const again = openSqliteStore(path);
  try {
    expect(await again.listSessions()).toEqual(want);
    expect(await Promise.all(sessions.map((s) => again.getSession(s.id)))).toEqual(wantShown);
    expect(again.db.prepare("SELECT info_json FROM sessions WHERE id = 'same'").pluck().get()).toBe(sameBefore);
  } finally {
    await again.close();
  }
});
