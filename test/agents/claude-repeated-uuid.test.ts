/**
 * A uuid written twice in a transcript, resumed by the real Claude Code (2.1.332): its loader reads the
 * records into a Map by uuid with Map.set, so the later record of the uuid is the one it sends, and as
 * the last main-chain record it is the leaf (what hung under the earlier record is left out). threadbase
 * reads the same leaf and context (parse.ts; test/formats/claude-repeated-uuid).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { buildContext, messageText } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';

const ID = '5b1e7c2a-9d4f-4e6b-8a3c-1f2e3d4c5b6a';
const uuid = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
let home: AgentHome;

beforeAll(async () => {
  home = await setupAgentHome();
}, 120_000);
afterAll(async () => {
  await home?.close();
});

it('claude --resume sends the later record of a repeated uuid, from it as the leaf, as threadbase reads it', async () => {
  const base = { sessionId: ID, cwd: home.project, version: '2.1.332', isSidechain: false, userType: 'external' };
  const at = (second: number) => `2026-11-27T04:00:0${second}.000Z`;
  const prompt = (n: number, parentUuid: string | null, text: string, second: number) => ({
    ...base,
    type: 'user',
    uuid: uuid(n),
    parentUuid,
    timestamp: at(second),
    message: { role: 'user', content: text },
  });
  const reply = (n: number, parentUuid: string, text: string, second: number) => ({
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
  const records = [
    prompt(1, null, 'first alpha', 1),
    reply(2, uuid(1), 'reply alpha', 2),
    prompt(3, uuid(2), 'second bravo', 3),
    reply(4, uuid(3), 'reply bravo', 4),
    // uuid 3 again, another text, under the first reply
    prompt(3, uuid(2), 'second charlie', 5),
  ];
  const dir = join(home.root, '.claude', 'projects', encodeProjectPath(home.project));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, `${ID}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);

  const session = (await new ClaudeDriver(home.env).getSession(ID)) as Session;
  expect(session.leafId).toBe(uuid(3));
  expect(session.warnings?.map((w) => [w.line, w.id])).toEqual([[3, uuid(3)]]);
  const ours = contextToAnthropic(buildContext(session)).messages as Msg[];

  const probe = 'probe after the repeated uuid';
  const mark = home.standIn.messageRequests().length;
  expect((await runClaude(home, ['--resume', ID], probe)).session_id).toBe(ID);
  const request = home.standIn
    .messageRequests()
    .slice(mark)
    .find((r) => JSON.stringify(r.messages).includes(probe));
  if (!request) throw new Error('no request carried the probe');
  const sent = comparable(request.messages as Msg[], probe);
  // a prompt left without a reply is answered "No response requested." (Claude Code's own, written to the file)
  expect(sent.at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'No response requested.' }] });
  expect(sent.slice(0, -1)).toEqual(comparable(ours));
  expect(buildContext(session).messages.map(messageText)).toEqual(['first alpha', 'reply alpha', 'second charlie']);
}, 120_000);
