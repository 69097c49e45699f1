/**
 * OpenCode's own fork (`opencode run --fork`, `/session/:id/fork`) copies every message and part of a
 * session under new ids with the same info (times, tokens, cost): the summary of a compaction it made
 * is copied too, so its request (CompactionEntry.usage) must count once across original and fork, as
 * the replies do, in the TypeScript rule (statsOfSessions) and in the local index (`stats`); and in
 * the copies threadbase makes of such a session (its fork, `convert` into OpenCode or Kilo).
 * The session is the one the real OpenCode 1.18.33 recorded and compacted by itself (fixture).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  newId,
  type OcSessionData,
  OpenCodeDriver,
  readSessionData,
  writeSessionData,
} from '../../src/formats/opencode/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { CompactionEntry, Entry, Session } from '../../src/model/types.js';
import { PRICES, statsOfSessions } from '../../src/stores/index-sync/prices.js';
import { localStatsTotals, runCliOk, type StatsTotals } from '../helpers/cli.js';
import { messageEntry, secondInto2026, textMessage } from '../helpers/sessions.js';

const FIXTURES = join(__dirname, '..', 'fixtures');
/** the session the real OpenCode recorded: an automatic compaction whose summary request used 580 + 18 tokens */
const COMPACTED = 'ses_dfb46f783ffeZ1j67MnacZPrQP';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A temp HOME with copies of the OpenCode fixture database and of the Kilo one (a target to convert into). */
function home(): { env: DriverEnv; db: string } {
  const root = mkdtempSync(join(tmpdir(), 'tb-oc-fork-compaction-'));
  temps.push(root);
  const data = join(root, '.local', 'share');
  mkdirSync(join(data, 'opencode'), { recursive: true });
  mkdirSync(join(data, 'kilo'), { recursive: true });
  const db = join(data, 'opencode', 'opencode.db');
  copyFileSync(join(FIXTURES, 'opencode', 'opencode.db'), db);
  copyFileSync(join(FIXTURES, 'kilo', 'real-7.7.7', 'kilo.db'), join(data, 'kilo', 'kilo.db'));
  const env = { HOME: root, XDG_DATA_HOME: data, THREADBASE_HOME: join(root, '.threadbase') };
  return { env: { home: root, env }, db };
}

/**
 * What OpenCode's Session.fork writes: a new session row (new id, "(fork #1)" title, created now, no
 * parent), and each message and part copied with a new id, its info as it was (times, tokens, cost,
 * summary flag) but for the session, and an assistant's parentID mapped to its user message's copy.
 */
function opencodeFork(db: string, sessionId: string): string {
  const original = readSessionData(db, sessionId, []) as OcSessionData;
  const id = newId('ses');
  const now = Date.now();
  const idMap = new Map<string, string>();
  const messages = original.messages.map((m) => {
    const messageId = newId('msg');
    idMap.set(String(m.info.id), messageId);
    const parentID = m.info.role === 'assistant' ? idMap.get(String(m.info.parentID)) : undefined;
    return {
      info: { ...m.info, id: messageId, sessionID: id, ...(parentID ? { parentID } : {}) },
      parts: m.parts.map((p) => ({ ...p, id: newId('prt'), messageID: messageId, sessionID: id })),
    };
  });
  writeSessionData(db, {
    info: {
      ...original.info,
      id,
      parentID: undefined,
      title: `${String(original.info.title)} (fork #1)`,
      time: { created: now, updated: now },
    },
    messages,
    ...(original.project ? { project: original.project } : {}),
  });
  return id;
}

const compactionOf = (s: Session | undefined): CompactionEntry | undefined =>
  s?.entries.find((e): e is CompactionEntry => e.kind === 'compaction');

/** statsOfSessions over these sessions, as loaded through the driver: the TypeScript rule. */
async function ruleTotals(d: OpenCodeDriver, ids: string[]): Promise<StatsTotals> {
  const sessions = await Promise.all(ids.map(async (id) => (await d.getSession(id)) as Session));
  const s = statsOfSessions(sessions, PRICES);
  return { cost: s.recordedCost + s.cost, input: s.usage.input, output: s.usage.output, messages: s.usage.messages };
}

it("counts the summary of a compaction OpenCode made once across the session and OpenCode's fork of it", async () => {
  const { env, db } = home();
  const d = new OpenCodeDriver(env);
  const summary = compactionOf(await d.getSession(COMPACTED));
  // the summary's request is counted at all: its tokens are in the original's totals
  expect(summary?.usage).toMatchObject({ input: 580, output: 18 });
  const alone = await ruleTotals(d, [COMPACTED]);
  await runCliOk(env, ['sync']);
  const indexedAlone = await localStatsTotals(env);

  const fork = opencodeFork(db, COMPACTED);
  const forked = await d.getSession(fork);
  // OpenCode's fork: another entry id for the compaction (its user message's new id), the same time
  expect(compactionOf(forked)?.id).not.toBe(summary?.id);
  expect(compactionOf(forked)).toMatchObject({ timestamp: summary?.timestamp, usage: { input: 580, output: 18 } });

  // (a) the TypeScript rule, (b) the local index: nothing of the fork counts again
  expect(await ruleTotals(d, [COMPACTED, fork])).toEqual(alone);
  await runCliOk(env, ['sync']);
  expect(await localStatsTotals(env)).toEqual(indexedAlone);
});

it("counts it once in threadbase's copies of the session too, and in OpenCode's fork of such a copy", async () => {
  const { env, db } = home();
  const d = new OpenCodeDriver(env);
  const alone = await ruleTotals(d, [COMPACTED]);
  await runCliOk(env, ['sync']);
  const indexedAlone = await localStatsTotals(env);

  // threadbase's fork and a conversion into OpenCode and into Kilo (the summary message copied)
  const ours = (await d.forkSession(COMPACTED)).id;
  const converted = JSON.parse(await runCliOk(env, ['convert', COMPACTED, '--to', 'opencode', '--json'])) as { id: string };
  await runCliOk(env, ['convert', COMPACTED, '--to', 'kilo', '--json']);
  // and OpenCode's fork of threadbase's fork
  const forkOfOurs = opencodeFork(db, ours);
  const original = compactionOf(await d.getSession(COMPACTED));
  for (const id of [ours, converted.id, forkOfOurs])
    expect(compactionOf(await d.getSession(id))).toMatchObject({ id: original?.id, responseId: original?.responseId });

  expect(await ruleTotals(d, [COMPACTED, ours, converted.id, forkOfOurs])).toEqual(alone);
  await runCliOk(env, ['sync']);
  expect(await localStatsTotals(env)).toEqual(indexedAlone);
});

it("counts a compaction threadbase wrote into OpenCode from another agent once in OpenCode's fork of it", async () => {
  const { env, db } = home();
  const d = new OpenCodeDriver(env);
  // a pi session whose compaction recorded the request that wrote its summary
  const entries: Entry[] = [
    messageEntry('u1', null, 1, textMessage('user', 'list the files')),
    {
      id: 'c1',
      parentId: 'u1',
      timestamp: secondInto2026(2),
      kind: 'compaction',
      summary: 'we listed the files',
      model: 'summary-model',
      usage: { input: 7000, output: 300, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      cost: 0.07,
    },
  ];
  const written = await d.writeSession({
    id: 'compacted-in-pi',
    source: 'pi',
    project: '/work/compacted',
    createdAt: secondInto2026(1),
    updatedAt: secondInto2026(2),
    messageCount: 1,
    entries,
  });
  // its copy keeps the compaction's entry id and time and has no response id (its original has none)
  expect(compactionOf(await d.getSession(written.id))).toMatchObject({ id: 'c1', timestamp: secondInto2026(2) });
  expect(compactionOf(await d.getSession(written.id))).not.toHaveProperty('responseId');
  const fork = opencodeFork(db, written.id);
  expect(await ruleTotals(d, [written.id, fork])).toMatchObject({ input: 7000, output: 300, messages: 1 });
  await runCliOk(env, ['sync']);
  const before = await localStatsTotals(env);
  const again = opencodeFork(db, written.id);
  await runCliOk(env, ['sync']);
  expect(again).not.toBe(fork);
  expect(await localStatsTotals(env)).toEqual(before);
});
