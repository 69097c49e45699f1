/**
 * Which leaf the real Claude Code (2.1.332) resumes on, where the records' file order, their uuids and
 * their timestamps disagree. Its loader (the transcript reader behind `--resume`) reads the records
 * into a Map by uuid with Map.set, so of a uuid written twice the later record is the one it sends,
 * and it picks the leaf so (NOTES.md "Leaf"):
 * - with a `last-prompt` naming a leaf in the file: the last main-chain record when that is the named
 *   one or under it, else the named one itself (a later record on another branch does not move it on,
 *   nor does an earlier one under it);
 * - with no `last-prompt` carrying a leafUuid: the last main-chain record, unless another record is at
 *   least as new by `timestamp`; then the newest record under the last one (a uuid written again: what
 *   hung under its earlier record), else the last one.
 * threadbase reads the same leaf and context (parse.ts claudeLeaf; test/formats/claude-repeated-uuid,
 * test/formats/claude-leaf).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { buildContext, messageText } from '../../src/model/tree.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import {
  numberedUuid,
  resumedByClaude,
  type TranscriptRecord,
  transcriptRecords,
  writeTranscript,
} from '../helpers/claude-transcripts.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const uuid = numberedUuid;
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome();
}, 120_000);
afterAll(async () => {
  await home?.close();
});

const recordsOf = (id: string) => transcriptRecords(id, home.project);

/** Writes the session (none: the file is there already), resumes it with the real claude: what it sent, our session and context. */
async function resumed(id: string, records: TranscriptRecord[]) {
  if (records.length) await writeTranscript(home, id, records);
  return resumedByClaude(home, id);
}

it('claude --resume sends the later record of a repeated uuid, from it as the leaf, as threadbase reads it', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6a';
  const { prompt, reply } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    // uuid 3 again, another text, under the first reply: the newest record
    prompt(3, uuid(2), 'second charlie', 5),
  ]);
  expect(session.leafId).toBe(uuid(3));
  expect(session.warnings?.map((w) => [w.line, w.id])).toEqual([[3, uuid(3)]]);
  expect(conversation).toEqual(ours);
  expect(buildContext(session).messages.map(messageText)).toEqual(['first alpha', 'reply alpha', 'second charlie']);
}, 120_000);

it('a repeated uuid whose later record is older than the reply under its earlier one: that reply is the leaf', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6b';
  const { prompt, reply } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 9),
    // uuid 3 again, written last but older than reply bravo, which hangs under uuid 3
    prompt(3, uuid(2), 'second charlie', 5),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(4));
  expect(buildContext(session).messages.map(messageText)).toEqual([
    'first alpha',
    'reply alpha',
    'second charlie',
    'reply bravo',
  ]);
}, 120_000);

it('the last record on another branch than the last-prompt names: the named record is the leaf, not a later one under it', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6c';
  const { prompt, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    lastPrompt(2),
    // another answer to the first prompt, after the last-prompt
    reply(5, uuid(1), 'reply delta', 5),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(2));
  expect(buildContext(session).messages.map(messageText)).toEqual(['first alpha', 'reply alpha']);
}, 120_000);

it('a record written under the named one after the last-prompt does not count when the last row is elsewhere', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6d';
  const { prompt, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    lastPrompt(2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    reply(5, uuid(1), 'reply delta', 5),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(2));
}, 120_000);

it('a compact boundary clears the last-prompt before it: the last row is the leaf', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6e';
  const { prompt, reply, lastPrompt } = recordsOf(id);
  const boundary = {
    ...prompt(5, null, '', 5),
    type: 'system',
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    level: 'info',
    isMeta: false,
    logicalParentUuid: uuid(4),
    compactMetadata: { trigger: 'manual', preTokens: 100 },
    message: undefined,
  };
  const summary = { ...prompt(6, uuid(5), 'Summary: they talked.', 6), isCompactSummary: true };
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    lastPrompt(2),
    boundary,
    summary,
    reply(7, uuid(6), 'reply after the summary', 7),
    reply(8, uuid(1), 'reply delta', 8),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(8));
}, 120_000);

it('a last-prompt clearing the leaf (null, explicit) drops the one before: the last row is the leaf', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6f';
  const { prompt, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    lastPrompt(4),
    { ...lastPrompt(4), leafUuid: null, explicit: true },
    reply(5, uuid(1), 'reply delta', 5),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(5));
}, 120_000);

it('no last-prompt and a record written before its parent, newer than it: that record is the leaf', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b70';
  const { prompt, reply } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    reply(4, uuid(3), 'reply bravo', 9),
    prompt(3, uuid(2), 'second bravo', 3),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(4));
}, 120_000);

it('file_snapshot rows after the last row and no last-prompt: the newest chain end is the leaf', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b71';
  const { prompt, reply } = recordsOf(id);
  const snapshot = {
    ...prompt(6, uuid(5), '', 7),
    type: 'system',
    subtype: 'file_snapshot',
    content: 'File snapshot',
    level: 'info',
    isMeta: true,
    snapshotFiles: [],
    message: undefined,
  };
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 8),
    reply(4, uuid(3), 'reply bravo', 9),
    prompt(5, uuid(2), 'second charlie', 5),
    snapshot,
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(4));
}, 120_000);

it('a record of a type Claude Code does not keep is never the leaf: what threadbase appends after it continues the chain', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b72';
  const { prompt, reply } = recordsOf(id);
  const records = [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    { ...prompt(3, uuid(2), '', 3), type: 'future-thing', message: undefined },
  ];
  const dir = join(home.root, '.claude', 'projects', encodeProjectPath(home.project));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, `${id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  // an hour later: Claude Code bridges a record whose parent it lacks only to a row at most 5 s older
  const later = '2026-11-27T05:00:00.000Z';
  await new ClaudeDriver(home.env).appendEntries(id, [
    messageEntry('n1', null, later, textMessage('user', 'appended bravo')),
    messageEntry('n2', 'n1', later, textMessage('assistant', 'appended reply', { model: 'claude-sonnet-4-5' })),
  ]);
  const { session, conversation, ours } = await resumed(id, []);
  expect(conversation).toEqual(ours);
  expect(buildContext(session).messages.map(messageText)).toEqual([
    'first alpha',
    'reply alpha',
    'appended bravo',
    'appended reply',
  ]);
}, 120_000);

it('after a compaction that kept a segment the ends of the chains decide: the last row on another branch, not the last-prompt’s inner record', async () => {
  // a real 2.1.332 transcript (a fork that starts at a compact boundary with a preservedSegment), then a
  // last-prompt naming an inner reply and another answer to the prompt before it, written last
  const id = 'bcdac43d-f5e3-48d3-b285-908f5f7abc8b';
  const real = await fs.readFile(`test/fixtures/claude/real/projects/-tmp-cc-proj/${id}.jsonl`, 'utf8');
  const { reply, lastPrompt } = recordsOf(id);
  const inner = '28e8dd65-1a1d-4f76-ae7e-b0e9423889b8';
  const stray = { ...reply(9, '33f2f465-0b22-403e-afe2-936c6c945501', 'stray reply', 59), cwd: '/tmp/cc/proj' };
  const records = [
    ...real
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TranscriptRecord),
    { ...lastPrompt(1), leafUuid: inner },
    stray,
  ];
  const { session, conversation, ours } = await resumed(id, records);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(9));
  expect(buildContext(session).messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'stray reply' }]);
}, 120_000);

// A parentUuid naming no row: 2.1.332's chain walk (j1n/Vrn in its loader) bridges it to the row with the
// latest time at or before the record's own, when that is at most 5 s older, else the chain starts there.
it('claude --resume bridges a parent never written to the latest record at most 5 s older, as threadbase reads it', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5c01';
  const { prompt, reply } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    // another branch under the first prompt, newer: the bridge goes by time, not by parent
    prompt(5, uuid(2), 'side bravo', 3),
    reply(6, uuid(5), 'reply side', 4),
    prompt(3, '00000000-0000-4000-8000-0000000000ff', 'orphan charlie', 6),
    reply(4, uuid(3), 'reply charlie', 7),
  ]);
  expect(session.leafId).toBe(uuid(4));
  expect(conversation).toEqual(ours);
  expect(buildContext(session).messages.map(messageText)).toEqual([
    'first alpha',
    'reply alpha',
    'side bravo',
    'reply side',
    'orphan charlie',
    'reply charlie',
  ]);
  expect(session.warnings?.map((w) => [w.line, w.id])).toEqual([[5, uuid(3)]]);
}, 120_000);

it('claude --resume starts the chain at a record under an unknown-type record with no record 5 s older, as threadbase reads it', async () => {
  const id = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5c02';
  const { prompt, reply } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    // a type the loader keeps no row of: what hangs under it has no parent there
    { type: 'mystery-kind', uuid: uuid(9), parentUuid: uuid(2), sessionId: id, timestamp: '2026-11-27T04:00:03.000Z' },
    prompt(3, uuid(9), 'second bravo', 30),
    reply(4, uuid(3), 'reply bravo', 31),
  ]);
  expect(session.leafId).toBe(uuid(4));
  expect(conversation).toEqual(ours);
  expect(buildContext(session).messages.map(messageText)).toEqual(['second bravo', 'reply bravo']);
}, 120_000);
