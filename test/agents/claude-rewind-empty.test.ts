/**
 * A rewind to empty: a `last-prompt` with `leafUuid: null, explicit: true` (what Claude Code 2.1.332
 * writes when the conversation is rewound to before its first prompt). With no main-chain row after it,
 * its loader resumes with no messages (`if (!keepAllLeaves && clearedToEmpty) return leaves(new Set)`,
 * read from the binary) and the next prompt is a root (parentUuid null); a row after it ends that. The
 * real `claude --resume` sends what threadbase's context holds (parse.ts claudeLeaf, EMPTY_LEAF), and
 * what threadbase appends there starts a new root, which is all Claude Code then sends.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import { buildContext, EMPTY_LEAF, messageText } from '../../src/model/tree.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import {
  numberedUuid,
  resumedByClaude,
  type TranscriptRecord,
  transcriptPath,
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

function recordsOf(id: string) {
  const rewind: TranscriptRecord = {
    type: 'last-prompt',
    lastPrompt: 'first alpha',
    leafUuid: null,
    explicit: true,
    sessionId: id,
  };
  return { ...transcriptRecords(id, home.project), rewind };
}
const fileOf = (id: string) => transcriptPath(home, id);
const write = (id: string, records: TranscriptRecord[]) => writeTranscript(home, id, records);
const resumed = (id: string) => resumedByClaude(home, id);

it('claude --resume after a rewind to empty sends no messages; threadbase has no leaf and an empty context', async () => {
  const id = '7c1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b01';
  const { prompt, reply, rewind } = recordsOf(id);
  await write(id, [prompt(1, null, 'first alpha', 1), reply(2, uuid(1), 'reply alpha', 2), rewind]);
  const { session, conversation, ours } = await resumed(id);
  expect(conversation).toEqual([]);
  expect(ours).toEqual([]);
  expect(session.leafId).toBe(EMPTY_LEAF);
  // Claude Code's own next prompt there is a root
  const probeRecord = (await fs.readFile(fileOf(id), 'utf8'))
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as TranscriptRecord)
    .find((r) => r.type === 'user' && JSON.stringify(r.message).includes(`probe of ${id}`));
  expect(probeRecord?.parentUuid).toBeNull();
}, 120_000);

it('a row after the rewind ends it: a new root or a row under the old chain is the leaf, as claude --resume sends', async () => {
  const fresh = '7c1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b02';
  const a = recordsOf(fresh);
  await write(fresh, [
    a.prompt(1, null, 'first alpha', 1),
    a.reply(2, uuid(1), 'reply alpha', 2),
    a.rewind,
    a.prompt(3, null, 'fresh bravo', 3),
    a.reply(4, uuid(3), 'reply bravo', 4),
  ]);
  const one = await resumed(fresh);
  expect(one.conversation).toEqual(one.ours);
  expect(buildContext(one.session).messages.map(messageText)).toEqual(['fresh bravo', 'reply bravo']);
  const under = '7c1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b03';
  const b = recordsOf(under);
  await write(under, [
    b.prompt(1, null, 'first alpha', 1),
    b.reply(2, uuid(1), 'reply alpha', 2),
    b.rewind,
    b.prompt(3, uuid(2), 'second bravo', 3),
  ]);
  const two = await resumed(under);
  expect(two.conversation).toEqual(two.ours);
  expect(buildContext(two.session).messages.map(messageText).slice(0, 3)).toEqual(['first alpha', 'reply alpha', 'second bravo']);
}, 120_000);

it('what threadbase appends after a rewind to empty starts a new root: claude --resume sends only it', async () => {
  const id = '7c1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b04';
  const { prompt, reply, rewind } = recordsOf(id);
  await write(id, [prompt(1, null, 'first alpha', 1), reply(2, uuid(1), 'reply alpha', 2), rewind]);
  await new ClaudeDriver(home.env).appendEntries(id, [
    messageEntry('n1', null, '2026-11-27T04:00:10.000Z', textMessage('user', 'appended bravo')),
    messageEntry('n2', 'n1', '2026-11-27T04:00:11.000Z', textMessage('assistant', 'appended reply')),
  ]);
  const { session, conversation, ours } = await resumed(id);
  expect(conversation).toEqual(ours);
  expect(buildContext(session).messages.map(messageText)).toEqual(['appended bravo', 'appended reply']);
}, 120_000);
