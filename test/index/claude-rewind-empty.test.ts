/**
 * A Claude Code transcript grown after a sync by a rewind to empty (a `last-prompt` with `leafUuid: null,
 * explicit: true`: Claude Code resumes with nothing, parse.ts claudeLeaf EMPTY_LEAF), then by a new root.
 * The sync reads only the part from the last prompt on (driver.ts leafAfter) and holds what a fresh
 * index of the whole file holds: no leaf and an empty context, then the new root's chain. So too for a
 * transcript grown so that 2.1.332's batch rule moves the leaf (parse.ts underByBatch).
 */
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { EMPTY_LEAF, messageText } from '../../src/model/tree.js';
import { claudeLines, homeWithClaudeTranscript, entryShape as shape } from '../helpers/index-units.js';

const SID = '7a2c9e10-3b4d-4f5e-8a6b-7c8d9e0f1a3d';
const record = claudeLines(SID, '/work/rewound');
const rewind = JSON.stringify({ type: 'last-prompt', lastPrompt: 'first', leafUuid: null, explicit: true, sessionId: SID });

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tb-claude-rewind-sync-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const homeWith = (name: string, lines: string[]) => homeWithClaudeTranscript(root, name, '/work/rewound', SID, lines);

const twoTurns = [
  record('user', 'u1', null, 'first alpha', 1),
  record('assistant', 'a1', 'u1', 'reply alpha', 2),
  record('user', 'u2', 'a1', 'second bravo', 3),
  record('assistant', 'a2', 'u2', 'reply bravo', 4),
];
const fresh = [record('user', 'n1', null, 'fresh charlie', 5), record('assistant', 'n2', 'n1', 'reply charlie', 6)];

it.each([
  ['a rewind to empty: no leaf, an empty context', [rewind], EMPTY_LEAF, []],
  ['a rewind to empty, then a new root: that root chain', [rewind, ...fresh], 'n2', ['fresh charlie', 'reply charlie']],
] as const)('a transcript grown by %s, synced, as a whole read', async (_, added, leaf, context) => {
  const name = leaf === EMPTY_LEAF ? 'empty' : 'fresh';
  const grown = await homeWith(`${name}-grown`, twoTurns);
  const whole = await homeWith(`${name}-whole`, [...twoTurns, ...added]);
  try {
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect((await grown.store.getContext(SID)).messages).toHaveLength(4);
    await appendFile(grown.file, `${added.join('\n')}\n`);
    const second = await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect([second.appended, second.reread]).toEqual([1, 0]);
    await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });
    const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
    expect(fromFile.leafId).toBe(leaf);
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual(context);
    expect((await whole.store.getContext(SID)).messages.map(messageText)).toEqual(context);
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});

it('a transcript synced after its rewind to empty, then grown by a new root: synced, that chain', async () => {
  const grown = await homeWith('later-grown', [...twoTurns, rewind]);
  const whole = await homeWith('later-whole', [...twoTurns, rewind, ...fresh]);
  try {
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect((await grown.store.getContext(SID)).messages).toEqual([]);
    await appendFile(grown.file, `${fresh.join('\n')}\n`);
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });
    const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
    expect(fromFile.leafId).toBe('n2');
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText)).toEqual(['fresh charlie', 'reply charlie']);
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});

// 2.1.332's batch rule (parse.ts underByBatch): a checkpoint at the second call's result; the turn goes on
// from the first call's, written after the sync
const call = (uuid: string, parentUuid: string, id: string, second: number) =>
  JSON.stringify({
    ...JSON.parse(record('assistant', uuid, parentUuid, '', second)),
    message: {
      role: 'assistant',
      id: 'msg_batch',
      model: 'claude-opus-5-5',
      content: [{ type: 'tool_use', id, name: 'Bash', input: {} }],
    },
  });
const result = (uuid: string, parentUuid: string, id: string, second: number) =>
  JSON.stringify({
    ...JSON.parse(record('user', uuid, parentUuid, '', second)),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `${id} out` }] },
  });

it('a batch whose checkpoint is its second call result, grown by the turn going on from the first: synced, as a whole read', async () => {
  const stored = [
    record('user', 'b1', null, 'both', 1),
    call('A', 'b1', 't1', 2),
    call('B', 'A', 't2', 3),
    result('rB', 'B', 't2', 4),
    JSON.stringify({ type: 'last-prompt', lastPrompt: 'both', leafUuid: 'rB', sessionId: SID }),
  ];
  const added = [result('rA', 'A', 't1', 5), record('assistant', 'C', 'rA', 'both done', 6)];
  const grown = await homeWith('batch-grown', stored);
  const whole = await homeWith('batch-whole', [...stored, ...added]);
  try {
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    expect(shape(await grown.store.getSession(SID)).leafId).toBe('rB');
    await appendFile(grown.file, `${added.join('\n')}\n`);
    await grown.sync.sync(grown.sources, { formats: ['claude'], workers: 0 });
    await whole.sync.sync(whole.sources, { formats: ['claude'], workers: 0 });
    const fromFile = shape(await grown.sources.driver('claude').getSession(SID));
    expect(fromFile.leafId).toBe('C');
    expect(shape(await grown.store.getSession(SID))).toEqual(fromFile);
    expect(shape(await whole.store.getSession(SID))).toEqual(fromFile);
    expect((await grown.store.getContext(SID)).messages.map(messageText).at(-1)).toBe('both done');
  } finally {
    await grown.store.close();
    await whole.store.close();
  }
});
