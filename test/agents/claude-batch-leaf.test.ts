/**
 * Claude Code 2.1.332's batch rule (its loader's `Kin(rows, lastRow, checkpoint, {direct, throughBatch})`,
 * read from the binary): a `last-prompt` naming a record inside one response's parallel tool calls (here
 * the result of its second call) also counts the last row as under it when the walk up from the last
 * row meets another record of that response above the checkpoint's call (its first call, from whose
 * result the rest of the turn went on). The real `claude --resume` then resumes from the last row, not
 * from the named record; threadbase reads the same leaf and context (parse.ts claudeLeaf, underByBatch).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildContext, messageText } from '../../src/model/tree.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import {
  numberedUuid,
  resumedByClaude,
  type TranscriptRecord,
  transcriptRecords,
  writeTranscript,
} from '../helpers/claude-transcripts.js';

const uuid = numberedUuid;
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome();
}, 120_000);
afterAll(async () => {
  await home?.close();
});

const recordsOf = (id: string) => transcriptRecords(id, home.project);

async function resumed(id: string, records: TranscriptRecord[]) {
  await writeTranscript(home, id, records);
  return resumedByClaude(home, id);
}

it('a last-prompt naming the second call result of a batch, the turn going on from the first: claude --resume goes on to the last row, as threadbase reads it', async () => {
  const id = '8d1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b01';
  const { prompt, call, result, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'list both', 1),
    call(2, uuid(1), 'toolu_01a', 'ls a', 2),
    call(3, uuid(2), 'toolu_01b', 'ls b', 3),
    result(4, uuid(3), 'toolu_01b', 'b-out', 4),
    result(5, uuid(2), 'toolu_01a', 'a-out', 5),
    reply(6, uuid(5), 'both listed', 6),
    lastPrompt(4),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(6));
  expect(buildContext(session).messages.map(messageText).at(-1)).toBe('both listed');
}, 120_000);

it('the same named by an explicit last-prompt (a rewind), rows after it: no batch rule, claude --resume stays at the named result, as threadbase reads it', async () => {
  const id = '8d1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b02';
  const { prompt, call, result, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'list both', 1),
    call(2, uuid(1), 'toolu_02a', 'ls a', 2),
    call(3, uuid(2), 'toolu_02b', 'ls b', 3),
    result(4, uuid(3), 'toolu_02b', 'b-out', 4),
    { ...lastPrompt(4), explicit: true },
    result(5, uuid(2), 'toolu_02a', 'a-out', 5),
    reply(6, uuid(5), 'both listed', 6),
  ]);
  expect(session.leafId).toBe(uuid(4));
  // it resumes at the named result: the reply after the batch is not sent, nor is it in our context
  expect(JSON.stringify(conversation)).not.toContain('both listed');
  expect(JSON.stringify(ours)).not.toContain('both listed');
  // Not followed (NOTES.md "Leaf"): it also sends the first call's result, hung off the chain (a-out),
  // where threadbase's context has no result for that call
  expect(conversation.slice(0, 2)).toEqual(ours.slice(0, 2));
  expect(conversation[2]?.content[0]).toEqual(ours[2]?.content[0]);
  expect(JSON.stringify(conversation)).toContain('a-out');
}, 120_000);

it('a last-prompt naming the first call result, the turn going on from the second: claude --resume goes on to the last row, as threadbase reads it', async () => {
  const id = '8d1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b03';
  const { prompt, call, result, reply, lastPrompt } = recordsOf(id);
  const { session, conversation, ours } = await resumed(id, [
    prompt(1, null, 'list both', 1),
    call(2, uuid(1), 'toolu_03a', 'ls a', 2),
    call(3, uuid(2), 'toolu_03b', 'ls b', 3),
    result(4, uuid(2), 'toolu_03a', 'a-out', 4),
    result(5, uuid(3), 'toolu_03b', 'b-out', 5),
    reply(6, uuid(5), 'both listed', 6),
    lastPrompt(4),
  ]);
  expect(conversation).toEqual(ours);
  expect(session.leafId).toBe(uuid(6));
}, 120_000);
