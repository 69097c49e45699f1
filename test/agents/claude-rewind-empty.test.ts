/**
 * A rewind to empty: a `last-prompt` with `leafUuid: null, explicit: true` (what Claude Code 2.1.332
 * writes when the conversation is rewound to before its first prompt). With no main-chain row after it,
 * its loader resumes with no messages (`if (!keepAllLeaves && clearedToEmpty) return leaves(new Set)`,
 * read from the binary) and the next prompt is a root (parentUuid null); a row after it ends that. The
 * real `claude --resume` sends what threadbase's context holds (parse.ts claudeLeaf, EMPTY_LEAF), and
 * what threadbase appends there starts a new root, which is all Claude Code then sends.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { buildContext, EMPTY_LEAF, messageText } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome();
}, 120_000);
afterAll(async () => {
  await home?.close();
});

type Rec = Record<string, unknown>;
function recordsOf(id: string) {
  const base = { sessionId: id, cwd: home.project, version: '2.1.332', isSidechain: false, userType: 'external' };
  const at = (second: number) => `2026-11-27T04:00:${String(second).padStart(2, '0')}.000Z`;
  const prompt = (n: number, parentUuid: string | null, text: string, second: number): Rec => ({
    ...base,
    type: 'user',
    uuid: uuid(n),
    parentUuid,
    timestamp: at(second),
    message: { role: 'user', content: text },
  });
  const reply = (n: number, parentUuid: string, text: string, second: number): Rec => ({
    ...base,
    type: 'assistant',
    uuid: uuid(n),
    parentUuid,
    timestamp: at(second),
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 3, output_tokens: 2 },
    },
  });
  const rewind: Rec = { type: 'last-prompt', lastPrompt: 'first alpha', leafUuid: null, explicit: true, sessionId: id };
  return { prompt, reply, rewind };
}

function fileOf(id: string): string {
  return join(home.root, '.claude', 'projects', encodeProjectPath(home.project), `${id}.jsonl`);
}

async function write(id: string, records: Rec[]): Promise<void> {
  await fs.mkdir(join(fileOf(id), '..'), { recursive: true });
  await fs.writeFile(fileOf(id), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
}

/** Resumes session `id` with the real claude; returns what it sent (without the probe) and our session and context. */
async function resumed(id: string) {
  const session = (await new ClaudeDriver(home.env).getSession(id)) as Session;
  const probe = `probe of ${id}`;
  const mark = home.standIn.messageRequests().length;
  expect((await runClaude(home, ['--resume', id], probe)).session_id).toBe(id);
  const request = home.standIn
    .messageRequests()
    .slice(mark)
    .find((r) => JSON.stringify(r.messages).includes(probe));
  if (!request) throw new Error('no request carried the probe');
  const sent = comparable(request.messages as Msg[], probe);
  // a prompt left without a reply is answered "No response requested." (Claude Code's own, written to the file)
  const noReply = { role: 'assistant', content: [{ type: 'text', text: 'No response requested.' }] };
  const conversation = JSON.stringify(sent.at(-1)) === JSON.stringify(noReply) ? sent.slice(0, -1) : sent;
  return { session, conversation, ours: comparable(contextToAnthropic(buildContext(session)).messages as Msg[]) };
}

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
    .map((l) => JSON.parse(l) as Rec)
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
