/**
 * The leaf Claude Code 2.1.332 resumes on (probed with the real binary resuming edited transcripts,
 * src/formats/claude/NOTES.md "Leaf"): the last record at or under the last `last-prompt`'s leafUuid.
 * threadbase's current leaf must be that one, and what appendEntries writes must move it.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { parseTranscript } from '../../src/formats/claude/parse.js';
import { buildContext, currentLeaf, EMPTY_LEAF, messageText } from '../../src/model/tree.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'tb-claude-leaf-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const SESSION = '5f1e7c2a-0000-4000-8000-000000000001';
type Rec = Record<string, unknown>;
const user = (uuid: string, parentUuid: string | null, text: string): Rec => ({
  type: 'user',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { role: 'user', content: text },
});
const reply = (uuid: string, parentUuid: string, text: string): Rec => ({
  type: 'assistant',
  uuid,
  parentUuid,
  sessionId: SESSION,
  timestamp: '2026-01-01T00:00:01.000Z',
  message: { role: 'assistant', id: `msg_${uuid}`, model: 'claude-opus-5-5', content: [{ type: 'text', text }] },
});
const lastPrompt = (leafUuid: string | null): Rec => ({ type: 'last-prompt', lastPrompt: 'x', leafUuid, sessionId: SESSION });

/** u1 a1 u2 a2 (last-prompt a2): the transcript Claude Code leaves after two turns; a1 is where a branch starts. */
const twoTurns = [
  user('u1', null, 'one'),
  reply('a1', 'u1', 'one!'),
  user('u2', 'a1', 'two'),
  reply('a2', 'u2', 'two!'),
  lastPrompt('a2'),
];
const branch = (id: string) => [user(`${id}u`, 'a1', id), reply(`${id}a`, `${id}u`, `${id}!`)];

async function leafOf(records: Rec[]): Promise<string | undefined> {
  const file = join(dir, `${randomUUID()}.jsonl`);
  await fs.writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return (await parseTranscript(file)).leafId;
}

describe('Claude Code leaf', () => {
  it('records on another branch after the last-prompt do not move the leaf', async () => {
    expect(await leafOf([...twoTurns, ...branch('b')])).toBe('a2');
  });
  it('records under the named leaf after the last-prompt move it on', async () => {
    expect(await leafOf([...twoTurns, user('u3', 'a2', 'three'), reply('a3', 'u3', 'three!')])).toBe('a3');
  });
  it('a last-prompt naming an inner record: the last record written under it', async () => {
    expect(await leafOf([...twoTurns, lastPrompt('a1')])).toBe('a2');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('a1')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('a1'), user('u3', 'a2', 'three')])).toBe('u3');
  });
  it('the last last-prompt with a leaf counts; a null leafUuid does not', async () => {
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('ba'), user('u3', 'a2', 'three')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('ba'), lastPrompt(null)])).toBe('ba');
  });
  it('an explicit last-prompt (a rewind) cuts what was under its leaf before it, not what comes after', async () => {
    const rewind = (extra: Rec) => ({ ...lastPrompt('a1'), explicit: true, ...extra });
    expect(await leafOf([...twoTurns, rewind({})])).toBe('a1');
    expect(await leafOf([...twoTurns, rewind({ rewound: true, cutUuid: 'u2' })])).toBe('a1');
    expect(await leafOf([...twoTurns, rewind({ rewound: true }), ...branch('b')])).toBe('ba');
  });
  it('no last-prompt, or one naming a uuid not in the file: the last record', async () => {
    const none = twoTurns.filter((r) => r.type !== 'last-prompt');
    expect(await leafOf([...none, ...branch('b')])).toBe('ba');
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt(randomUUID())])).toBe('ba');
  });
});

describe('appendEntries on a branch', () => {
  it('ends with a last-prompt in Claude Code shape naming the new leaf, so the branch is current', async () => {
    const project = join(dir, 'project');
    const file = join(dir, '.claude', 'projects', encodeProjectPath(project), `${SESSION}.jsonl`);
    await fs.mkdir(join(file, '..'), { recursive: true });
    await fs.writeFile(file, twoTurns.map((r) => `${JSON.stringify({ ...r, cwd: project })}\n`).join(''));
    const driver = new ClaudeDriver({ home: dir, env: {} });
    const prompt = messageEntry('x1', 'a1', 10, textMessage('user', 'take the other road'));
    const answer = messageEntry('x2', 'x1', 11, textMessage('assistant', 'the other road it is'));
    await driver.appendEntries(SESSION, [prompt, answer]);
    const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1] as string) as Rec;
    const written = lines.map((l) => JSON.parse(l) as Rec).filter((r) => r.type === 'assistant');
    const newLeaf = written[written.length - 1]?.uuid;
    expect(Object.keys(last)).toEqual(['type', 'lastPrompt', 'leafUuid', 'sessionId']);
    expect(last).toEqual({ type: 'last-prompt', lastPrompt: 'take the other road', leafUuid: newLeaf, sessionId: SESSION });
    const session = await new ClaudeDriver({ home: dir, env: {} }).getSession(SESSION);
    expect(session?.leafId).toBe(newLeaf);
    expect(session?.leafId).not.toBe('a2');
  });
});

/** The same records with their own times (seconds), for the rules that go by `timestamp`. */
const at = (record: Rec, second: number): Rec => ({
  ...record,
  timestamp: `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`,
});

describe('Claude Code 2.1.332 leaf rule (its transcript loader; live: test/agents/claude-repeated-uuid)', () => {
  it('a last-prompt names the leaf unless the last row is under it: a later record under it elsewhere in the file does not count', async () => {
    expect(await leafOf([...twoTurns, ...branch('b'), lastPrompt('a1')])).toBe('ba');
    expect(await leafOf([...twoTurns, lastPrompt('a1'), ...branch('b')])).toBe('ba');
    // the last row (c, another answer to u1) is not under a1: a1, though u2 and a2 were written under it
    expect(await leafOf([...twoTurns, lastPrompt('a1'), reply('c', 'u1', 'other')])).toBe('a1');
    expect(
      await leafOf([
        user('u1', null, 'one'),
        reply('a1', 'u1', 'one!'),
        lastPrompt('a1'),
        ...twoTurns.slice(2, 4),
        reply('c', 'u1', 'x'),
      ]),
    ).toBe('a1');
  });
  it('a compact boundary clears the last-prompt before it', async () => {
    const boundary: Rec = {
      type: 'system',
      subtype: 'compact_boundary',
      uuid: 'cb',
      parentUuid: null,
      logicalParentUuid: 'a2',
      sessionId: SESSION,
    };
    expect(await leafOf([...twoTurns, lastPrompt('a1'), boundary, reply('c', 'u1', 'other')])).toBe('c');
    expect(await leafOf([...twoTurns, boundary, lastPrompt('a1'), reply('c', 'u1', 'other')])).toBe('a1');
  });
  it('an explicit null leafUuid clears the last-prompt before it; a plain null one does not', async () => {
    const cleared = { ...lastPrompt(null), explicit: true };
    expect(await leafOf([...twoTurns, cleared, reply('c', 'u1', 'other')])).toBe('c');
    expect(await leafOf([...twoTurns, lastPrompt(null), reply('c', 'u1', 'other')])).toBe('a2');
  });
  it('records of a type Claude Code does not keep are never the leaf', async () => {
    const none = twoTurns.filter((r) => r.type !== 'last-prompt');
    expect(await leafOf([...none, { type: 'progress', uuid: 'p1', parentUuid: 'a2', sessionId: SESSION }])).toBe('a2');
    expect(await leafOf([...none, { type: 'future-thing', uuid: 'f1', parentUuid: 'a2', sessionId: SESSION }])).toBe('a2');
  });
  it('no last-prompt with a leafUuid and another row as new as the last: the newest row under the last one', async () => {
    // x is written before its parent L and newer than it
    const records = [
      at(user('u1', null, 'one'), 1),
      at(reply('a1', 'u1', 'one!'), 2),
      at(reply('x', 'L', 'x'), 9),
      at(user('L', 'a1', 'L'), 3),
    ];
    expect(await leafOf(records)).toBe('x');
    // the last row the newest: it
    expect(await leafOf([...records.slice(0, 3), at(user('L', 'a1', 'L'), 10)])).toBe('L');
    // equal times: the later in the order first written
    expect(
      await leafOf([
        ...records.slice(0, 2),
        at(reply('x', 'L', 'x'), 9),
        at(reply('y', 'L', 'y'), 9),
        at(user('L', 'a1', 'L'), 9),
      ]),
    ).toBe('y');
    // a last-prompt with a leafUuid field, even null: the last row
    expect(await leafOf([...records, lastPrompt(null)])).toBe('L');
  });
  it('file_snapshot rows after the last row and no last-prompt: the newest end of a chain', async () => {
    const snapshot: Rec = {
      type: 'system',
      subtype: 'file_snapshot',
      uuid: 'fs',
      parentUuid: 'c',
      sessionId: SESSION,
      isMeta: true,
    };
    const records = [
      at(user('u1', null, 'one'), 1),
      at(reply('a1', 'u1', 'one!'), 2),
      at(user('u2', 'a1', 'two'), 8),
      at(reply('a2', 'u2', 'two!'), 9),
      at(user('c', 'a1', 'three'), 5),
    ];
    expect(await leafOf([...records, at(snapshot, 10)])).toBe('a2');
    expect(await leafOf(records)).toBe('c');
  });
});

describe('a rewind to empty (last-prompt leafUuid null, explicit; live: test/agents/claude-rewind-empty)', () => {
  const cleared: Rec = { ...lastPrompt(null), explicit: true };
  const snapshot: Rec = { type: 'system', subtype: 'file_snapshot', uuid: 'fs', parentUuid: 'a2', sessionId: SESSION };
  it('with no row after it: no leaf, and the context is empty', async () => {
    expect(await leafOf([...twoTurns, cleared])).toBe(EMPTY_LEAF);
    // file_snapshot rows and side chains do not end it; a plain null leafUuid does not start it
    expect(await leafOf([...twoTurns, cleared, snapshot])).toBe(EMPTY_LEAF);
    expect(await leafOf([...twoTurns, cleared, { ...user('s1', 'a2', 'side'), isSidechain: true }])).toBe(EMPTY_LEAF);
    expect(await leafOf([...twoTurns, lastPrompt(null)])).toBe('a2');
    const file = join(dir, `${randomUUID()}.jsonl`);
    await fs.writeFile(file, [...twoTurns, cleared].map((r) => `${JSON.stringify(r)}\n`).join(''));
    const p = await parseTranscript(file);
    const session = { entries: p.entries, leafId: p.leafId ?? null };
    expect(currentLeaf(session)).toBeUndefined();
    expect(buildContext(session).messages).toEqual([]);
  });
  it('a row or a last-prompt naming a leaf after it: the rule as without it', async () => {
    expect(await leafOf([...twoTurns, cleared, user('n1', null, 'fresh')])).toBe('n1');
    expect(await leafOf([...twoTurns, cleared, user('u3', 'a2', 'three')])).toBe('u3');
    expect(await leafOf([...twoTurns, cleared, lastPrompt('a1')])).toBe('a2');
    expect(await leafOf([...twoTurns, ...branch('b'), cleared, lastPrompt('a2')])).toBe('a2');
  });
  it('appendEntries after it starts a new root, as Claude Code does', async () => {
    const project = join(dir, 'project');
    const file = join(dir, '.claude', 'projects', encodeProjectPath(project), `${SESSION}.jsonl`);
    await fs.mkdir(join(file, '..'), { recursive: true });
    await fs.writeFile(file, [...twoTurns, cleared].map((r) => `${JSON.stringify({ ...r, cwd: project })}\n`).join(''));
    const driver = new ClaudeDriver({ home: dir, env: {} });
    expect((await driver.getContext(SESSION)).messages).toEqual([]);
    await driver.appendEntries(SESSION, [
      messageEntry('x1', null, 10, textMessage('user', 'start over')),
      messageEntry('x2', 'x1', 11, textMessage('assistant', 'from nothing')),
    ]);
    const written = (await fs.readFile(file, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec)
      .filter((r) => r.type === 'user' && !['u1', 'u2'].includes(r.uuid as string));
    expect(written.map((r) => r.parentUuid)).toEqual([null]);
    const again = new ClaudeDriver({ home: dir, env: {} });
    expect((await again.getContext(SESSION)).messages.map(messageText)).toEqual(['start over', 'from nothing']);
  });
});

describe("2.1.332's batch rule (Kin; live: test/agents/claude-batch-leaf)", () => {
  const call = (uuid: string, parentUuid: string, id: string): Rec => ({
    ...reply(uuid, parentUuid, ''),
    message: {
      role: 'assistant',
      id: 'msg_batch',
      model: 'claude-opus-5-5',
      content: [{ type: 'tool_use', id, name: 'Bash', input: {} }],
    },
  });
  const result = (uuid: string, parentUuid: string, id: string): Rec => ({
    ...user(uuid, parentUuid, ''),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'out' }] },
  });
  // one response's two calls (A, B), B's result first, the turn going on from A's
  const batch = [
    user('u1', null, 'both'),
    call('A', 'u1', 't1'),
    call('B', 'A', 't2'),
    result('rB', 'B', 't2'),
    result('rA', 'A', 't1'),
  ];
  it('a checkpoint at the second call result: the last row under the first call of its response counts as under it', async () => {
    expect(await leafOf([...batch, reply('C', 'rA', 'done'), lastPrompt('rB')])).toBe('C');
    // through a hook attachment under the result too
    const hook: Rec = {
      type: 'attachment',
      uuid: 'h',
      parentUuid: 'rB',
      sessionId: SESSION,
      attachment: { type: 'hook_success' },
    };
    expect(await leafOf([...batch.slice(0, 4), hook, batch[4] as Rec, reply('C', 'rA', 'done'), lastPrompt('h')])).toBe('C');
  });
  it('not when an explicit last-prompt named it, nor when the last row does not go through the response', async () => {
    expect(await leafOf([...batch, { ...lastPrompt('rB'), explicit: true }, reply('C', 'rA', 'done')])).toBe('rB');
    expect(await leafOf([...batch, reply('C', 'u1', 'elsewhere'), lastPrompt('rB')])).toBe('rB');
  });
  it('a checkpoint at the first call result, the turn going on from the second: the walk meets B, then A: under', async () => {
    const other = [...batch.slice(0, 3), result('rA', 'A', 't1'), result('rB', 'B', 't2'), reply('C', 'rB', 'done')];
    expect(await leafOf([...other, lastPrompt('rA')])).toBe('C');
    // a last row under the prompt alone does not pass the response
    expect(await leafOf([...other, reply('D', 'u1', 'elsewhere'), lastPrompt('rA')])).toBe('rA');
  });
});

describe('after a compaction that kept a segment (live: test/agents/claude-repeated-uuid)', () => {
  const boundary = (preserved: Rec): Rec => ({
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'cb',
    parentUuid: null,
    logicalParentUuid: 'a2',
    sessionId: SESSION,
    compactMetadata: { trigger: 'manual', preTokens: 10, ...preserved },
  });
  const summary: Rec = { ...user('cs', 'cb', 'Summary.'), isCompactSummary: true };
  const compacted = (preserved: Rec) => [
    ...twoTurns.slice(0, 4),
    boundary(preserved),
    summary,
    user('u3', 'cs', 'three'),
    reply('a3', 'u3', 'three!'),
    user('u4', 'a3', 'four'),
    reply('a4', 'u4', 'four!'),
    lastPrompt('a3'),
    reply('s', 'u3', 'another three!'),
  ];
  const segment = { preservedSegment: { headUuid: 'u2', tailUuid: 'a2', anchorUuid: 'cs' } };
  it('the ends of the chains decide: a last-prompt naming an inner record loses to the last row', async () => {
    expect(await leafOf(compacted(segment))).toBe('s');
  });
  it('a last-prompt naming an end wins', async () => {
    expect(await leafOf([...compacted(segment), lastPrompt('a4')])).toBe('a4');
  });
  it('a segment whose walk breaks, or none: the leaf rule as without a compaction', async () => {
    expect(await leafOf(compacted({ preservedSegment: { headUuid: 'u1', tailUuid: 'nope', anchorUuid: 'cs' } }))).toBe('a3');
    expect(await leafOf(compacted({}))).toBe('a3');
  });
});
