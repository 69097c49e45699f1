/**
 * `threadbase branch` in a session the real Claude Code (2.1.332) wrote: `claude --resume` must go on
 * from the new branch, not from the leaf Claude Code had left (it resumes on the last `last-prompt`'s
 * leaf, src/formats/claude/NOTES.md "Leaf"), and threadbase's context must be what it sends.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { comparable, type Msg } from '../helpers/claude-requests.js';
import { runCli, runCliOk } from '../helpers/cli.js';

let agentHome: AgentHome;
let env: DriverEnv;

beforeAll(async () => {
  agentHome = await setupAgentHome();
  env = { home: agentHome.root, env: { HOME: agentHome.root } };
});
afterAll(async () => {
  await agentHome?.close();
});

/** The texts of a conversation, in order. */
const textsOf = (messages: readonly Msg[]) =>
  comparable(messages).flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [String(b.text)] : [])));

it('claude --resume goes on from the branch threadbase wrote, with exactly threadbase context', async () => {
  const id = (await runClaude(agentHome, [], 'first alpha')).session_id;
  await runClaude(agentHome, ['--resume', id], 'second bravo');
  const before = await new ClaudeDriver(env).getSession(id);
  const firstReply = before?.entries.find((e) => e.kind === 'message' && e.message.role === 'assistant');
  if (!firstReply) throw new Error('no reply in the session Claude Code wrote');

  const branched = JSON.parse(
    await runCliOk(env, ['branch', id, '--at', firstReply.id, '--message', 'branch kilo', '--source', 'claude', '--json']),
  ) as { leafId: string };
  const shown = JSON.parse(await runCliOk(env, ['show', id, '--source', 'claude', '--json'])) as { leafId?: string };
  expect(shown.leafId).toBe(branched.leafId);
  const context = await runCli(env, ['context', id, '--source', 'claude', '--format', 'anthropic']);
  expect(context.code, context.err).toBe(0);
  const ours = (JSON.parse(context.out) as { messages: Msg[] }).messages;

  const probe = 'probe after the branch';
  const mark = agentHome.standIn.messageRequests().length;
  const result = await runClaude(agentHome, ['--resume', id], probe);
  expect(result.session_id).toBe(id);
  const request = agentHome.standIn
    .messageRequests()
    .slice(mark)
    .find((r) => JSON.stringify(r.messages).includes(probe));
  if (!request) throw new Error('no request carried the probe');
  const sent = request.messages as Msg[];
  expect(textsOf(sent)).toContain('branch kilo');
  expect(textsOf(sent)).toContain('first alpha');
  expect(textsOf(sent)).not.toContain('second bravo');
  expect(comparable(sent, probe)).toEqual(comparable(ours));
}, 120_000);
