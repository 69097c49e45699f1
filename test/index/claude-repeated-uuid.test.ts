/**
 * A Claude Code transcript grown after a sync by a record repeating a uuid (Claude Code keeps the later
 * record, parse.ts). The sync re-reads the part from the last prompt on: when both records are in it
 * and nothing hangs under the uuid, the part is appended from the offset; when the earlier record is
 * stored before that part, or a record in it hangs under the uuid (now before its parent), the index
 * refuses the part and reads the file whole. Either way it holds what the file gives and what a fresh
 * index of the whole file holds. The same for transcripts grown so that Claude Code's leaf rule
 * (parse.ts claudeLeaf) needs what came before the part: the sync reads those whole (driver.ts leafAfter).
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { messageText } from '../../src/model/tree.js';
import { claudeLines, entryShape, homeWithClaudeTranscript } from '../helpers/index-units.js';

const SID = '7a2c9e10-3b4d-4f5e-8a6b-7c8d9e0f1a2c';
const record = claudeLines(SID, '/work/repeated');

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-claude-repeated-sync-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A home holding the transcript of `lines`; its file, sources and index. */
const homeWith = (name: string, lines: string[]) => homeWithClaudeTranscript(root, name, '/work/repeated', SID, lines);

const shape = entryShape;

const twoTurns = [
  record('user', 'u1', null, 'first alpha', 1),
  record('assistant', 'a1', 'u1', 'reply alpha', 2),
  record('user', 'X', 'a1', 'second bravo', 3),
  record('assistant', 'a2', 'X', 'reply bravo', 4),
];

it.each([
  // the part from X's first record on holds both records of X, and nothing hangs under X: appended
  ['in the part re-read, nothing under it', 'part', twoTurns.slice(0, 3), [1, 0]],
  // a2 hangs under X, and X now comes after it: the index lacks a2's parent when it adds a2
  ['in the part re-read, a reply under it', 'under', twoTurns, [0, 1]],
  // X is stored before the part re-read
  [
    'before the part re-read',
    'stored',
    [...twoTurns, record('user', 'u3', 'a2', 'third delta', 5), record('assistant', 'a3', 'u3', 'reply delta', 6)],
    [0, 1],
  ],
] as const)('a record repeating a uuid %s: the index holds what the file gives', async (_, name, lines, counts) => {
  const added = [record('user', 'X', 'a1', 'second charlie wombatword', 7), record('assistant', 'a4', 'X', 'reply charlie', 8)];
  const grown = await homeWith(`${name}-grown`, [...lines]);
  const whole = await homeWith(`${name}-whole`, [...lines, ...added]);
  try {
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect(shape(await grown.store.getSession(SID)).entries.map((e) => e[2])).toContain('second bravo');
    await appendFile(grown.file, `${added.join('\n')}\n`);
    const second = await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect([second.appended, second.reread]).toEqual(counts);
    await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });

    const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
    expect(fromFile.leafId).toBe('a4');
    expect(fromFile.entries.map((e) => e[2])).not.toContain('second bravo');
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual([
      'first alpha',
      'reply alpha',
      'second charlie wombatword',
      'reply charlie',
    ]);
    expect((await grown.store.search('wombatword')).map((h) => h.entryId)).toEqual(['X']);
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});

it('a repeated uuid whose later record is older than the reply hung under its earlier one: synced, that reply is the leaf', async () => {
  const stored = twoTurns.slice(0, 3);
  const added = [record('assistant', 'a2', 'X', 'reply bravo', 9), record('user', 'X', 'a1', 'second charlie', 5)];
  const grown = await homeWith('older-grown', stored);
  const whole = await homeWith('older-whole', [...stored, ...added]);
  try {
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    await appendFile(grown.file, `${added.join('\n')}\n`);
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });
    const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
    expect(fromFile.leafId).toBe('a2');
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual([
      'first alpha',
      'reply alpha',
      'second charlie',
      'reply bravo',
    ]);
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});

/**
 * Grows a transcript by `stages`, syncing after each: the index must hold what the file gives and
 * what a fresh index of the whole file holds (leaf and context too). Returns the leaves and how many
 * syncs read only the part from the last prompt on.
 */
async function grownLikeWhole(name: string, stages: string[][]): Promise<{ leaves: (string | undefined)[]; appended: number }> {
  const grown = await homeWith(`${name}-grown`, stages[0] ?? []);
  const leaves: (string | undefined)[] = [];
  let appended = 0;
  try {
    for (const [n, stage] of stages.entries()) {
      if (n > 0) await appendFile(grown.file, `${stage.join('\n')}\n`);
      appended += (await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 })).appended;
      const whole = await homeWith(`${name}-whole-${n}`, stages.slice(0, n + 1).flat());
      try {
        await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });
        const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
        expect({ n, ...shape(await grown.store.getSession(SID)) }).toEqual({ n, ...fromFile });
        expect({ n, ...shape(await whole.store.getSession(SID)) }).toEqual({ n, ...fromFile });
        expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual(
          (await whole.store.getContext(SID)).messages.map(messageText),
        );
        leaves.push(fromFile.leafId ?? undefined);
      } finally {
        await whole.store.close();
      }
    }
  } finally {
    await grown.store.close();
  }
  return { leaves, appended };
}

const lastPrompt = (leafUuid: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'last-prompt', lastPrompt: 'x', leafUuid, sessionId: SID, ...extra });

it('synced as Claude Code picks the leaf: a checkpoint before the part, the last row under it or not', async () => {
  const r = await grownLikeWhole('checkpoint', [
    [...twoTurns, lastPrompt('a2')],
    // under a2: read from the offset, the last row is the leaf
    [record('user', 'u3', 'a2', 'third', 5), record('assistant', 'a3', 'u3', 'reply third', 6)],
    // another answer to u1, last: the leaf is a2 again (read whole)
    [record('assistant', 'c1', 'u1', 'other', 7)],
    // a last-prompt clearing the leaf (null, explicit), then another answer: the last row
    [lastPrompt(null, { explicit: true }), record('user', 'u4', 'c1', 'fourth', 8), record('assistant', 'a4', 'u4', 'reply', 9)],
  ]);
  expect(r.leaves).toEqual(['a2', 'a3', 'a2', 'a4']);
  expect(r.appended).toBeGreaterThan(0);
});

it('synced as Claude Code picks the leaf: no last-prompt, rows under the last row or none', async () => {
  const r = await grownLikeWhole('unprompted', [
    twoTurns,
    [record('user', 'u3', 'a2', 'third', 5), record('assistant', 'a3', 'u3', 'reply third', 6)],
    // written before its parent u4 and newer than it: the leaf is y, not u4
    [record('assistant', 'y', 'u4', 'reply to a later prompt', 9), record('user', 'u4', 'a3', 'fourth', 7)],
  ]);
  expect(r.leaves).toEqual(['a2', 'a3', 'y']);
  expect(r.appended).toBeGreaterThan(0);
});

it('synced as Claude Code picks the leaf after a compaction that kept a segment: the ends of the chains decide', async () => {
  const row = (extra: Record<string, unknown>) =>
    JSON.stringify({
      sessionId: SID,
      cwd: '/work/repeated',
      timestamp: new Date(Date.UTC(2026, 0, 1, 0, 1)).toISOString(),
      ...extra,
    });
  const boundary = row({
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'cb',
    parentUuid: null,
    logicalParentUuid: 'a2',
    compactMetadata: { trigger: 'manual', preTokens: 10, preservedSegment: { headUuid: 'X', tailUuid: 'a2', anchorUuid: 'cs' } },
  });
  const summary = row({
    type: 'user',
    uuid: 'cs',
    parentUuid: 'cb',
    isCompactSummary: true,
    message: { role: 'user', content: 'Summary.' },
  });
  const r = await grownLikeWhole('ends', [
    [
      ...twoTurns,
      boundary,
      summary,
      record('user', 'u3', 'cs', 'third', 10),
      record('assistant', 'a3', 'u3', 'reply third', 11),
      lastPrompt('a3'),
    ],
    [record('user', 'u4', 'a3', 'fourth', 12), record('assistant', 'a4', 'u4', 'reply fourth', 13), lastPrompt('a4')],
    // another answer to u3: a4 is an end and the checkpoint, so it stays
    [record('assistant', 's', 'u3', 'another third', 14)],
    // the checkpoint on a3, not an end: the last row's
    [lastPrompt('a3')],
    // a system row under u3, last: its turn (u3) is not an end, and the checkpoint is none: u3's
    [row({ type: 'system', subtype: 'informational', uuid: 'sy', parentUuid: 'u3', content: 'note' })],
  ]);
  expect(r.leaves).toEqual(['a3', 'a4', 'a4', 's', 'sy']);
  // no last-prompt: a system row last under a3, which a later prompt hangs under too: the one end, a4
  const quiet = await grownLikeWhole('ends-quiet', [
    [...twoTurns, boundary, summary, record('user', 'u3', 'cs', 'third', 10), record('assistant', 'a3', 'u3', 'reply third', 11)],
    [
      record('user', 'u4', 'a3', 'fourth', 12),
      record('assistant', 'a4', 'u4', 'reply fourth', 13),
      row({ type: 'system', subtype: 'informational', uuid: 'sy', parentUuid: 'a3', content: 'note' }),
    ],
  ]);
  expect(quiet.leaves).toEqual(['a3', 'a4']);
});

/** A record of a type Claude Code's loader keeps no row of: what hangs under it is bridged by time (parse.ts bridgeMissingParents). */
const mystery = JSON.stringify({
  type: 'mystery',
  uuid: 'm1',
  parentUuid: 'a2',
  sessionId: SID,
  timestamp: '2026-01-01T00:00:04.000Z',
});

it('synced as Claude Code bridges a missing parent: a row under a record it keeps no row of, bridged by time', async () => {
  const r = await grownLikeWhole('bridged', [
    [...twoTurns, mystery],
    // a prompt under a2, then one under m1: bridged to a3 (1 s older), not through m1 to a2
    [
      record('user', 'u3', 'a2', 'third', 5),
      record('assistant', 'a3', 'u3', 'reply third', 6),
      record('user', 'o1', 'm1', 'orphan', 7),
    ],
    // the part re-read from o1 on: its first row is bridged to a row before it (read whole)
    [record('assistant', 'a4', 'o1', 'reply orphan', 8)],
    // a prompt, then a reply under m1 in the part: bridged to that prompt (1 s older)
    [record('user', 'u5', 'a4', 'fifth', 20), record('assistant', 'o2', 'm1', 'stray reply', 21)],
  ]);
  expect(r.leaves).toEqual(['a2', 'o1', 'a4', 'o2']);
});

it('synced as Claude Code bridges a missing parent: a later row of the part under a no-row record before the part', async () => {
  const r = await grownLikeWhole('bridged-before', [
    // the next sync re-reads from u3, after m1
    [...twoTurns, mystery, record('user', 'u3', 'a2', 'third', 5)],
    // o2 under m1: bridged to a3 (1 s older), not through m1 to a2
    [record('assistant', 'a3', 'u3', 'reply third', 6), record('assistant', 'o2', 'm1', 'stray reply', 7)],
  ]);
  expect(r.leaves).toEqual(['u3', 'o2']);
});
