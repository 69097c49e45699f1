/**
 * A session the real Claude Code (2.1.332) forked with `claude --resume X --fork-session` names its
 * parent: the copy has no `forkedFrom` (that is threadbase's and `/branch`'s mark), only the copied
 * replies' `requestSessionId` (src/formats/claude/NOTES.md "Forks"). `sessions` and `show` give it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';

let agentHome: AgentHome;
let env: DriverEnv;

beforeAll(async () => {
  agentHome = await setupAgentHome();
  env = { home: agentHome.root, env: { HOME: agentHome.root } };
});
afterAll(async () => {
  await agentHome?.close();
});

interface Row {
  id: string;
  parentId?: string | null;
  parentEntryId?: string;
}

/** The last reply of a session, as our reader has it. */
async function lastReply(id: string): Promise<string> {
  const s = await new ClaudeDriver(env).getSession(id);
  const reply = s?.entries.findLast((e) => e.kind === 'message' && e.message.role === 'assistant');
  if (!reply) throw new Error(`no reply in session ${id}`);
  return reply.id;
}

it('a --fork-session fork (and a fork of it) shows the session it was forked from, at its last copied reply', async () => {
  const original = (await runClaude(agentHome, [], 'first alpha')).session_id;
  await runClaude(agentHome, ['--resume', original], 'second bravo');
  const forkPoint = await lastReply(original);
  const fork = (await runClaude(agentHome, ['--resume', original, '--fork-session'], 'forked charlie')).session_id;
  expect(fork).not.toBe(original);
  const forkReply = await lastReply(fork);
  // forked again after a turn of its own: the nearest ancestor, not the first one
  const again = (await runClaude(agentHome, ['--resume', fork, '--fork-session'], 'forked delta')).session_id;

  // what the CLI lists and shows (its index keeps the parent session, not the entry)
  const rows = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as Row[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  expect(byId.get(original)?.parentId ?? null).toBeNull();
  expect(byId.get(fork)?.parentId).toBe(original);
  expect(byId.get(again)?.parentId).toBe(fork);
  const shown = JSON.parse(await runCliOk(env, ['show', fork, '--source', 'claude', '--json'])) as Row;
  expect(shown.parentId).toBe(original);
  // a turn more in the fork: a read from where the last one stopped, past the copied replies, keeps the parent
  const reader = new ClaudeDriver(env);
  const unit = (await reader.listUnits()).find((u) => u.sessionId === fork);
  if (!unit) throw new Error('no unit for the fork');
  const whole = await reader.readUnit(unit);
  if (whole?.offset === undefined) throw new Error('the fork was not read whole');
  await runClaude(agentHome, ['--resume', fork], 'more echo');
  const grown = (await reader.listUnits()).find((u) => u.sessionId === fork);
  if (!grown) throw new Error('no unit for the fork');
  const more = await reader.readUnit(grown, { offset: whole.offset, state: whole.state });
  expect(more?.appended).toBe(true);
  expect(more?.session).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  const later = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as Row[];
  expect(later.find((r) => r.id === fork)?.parentId).toBe(original);

  // what the reader gives, listed and read whole
  const infos = new Map((await new ClaudeDriver(env).listSessions()).map((s) => [s.id, s]));
  expect(infos.get(fork)).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  expect(infos.get(again)).toMatchObject({ parentId: fork, parentEntryId: forkReply });
  expect(await new ClaudeDriver(env).getSession(fork)).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  // the fork point is an entry of the parent
  const parent = await new ClaudeDriver(env).getSession(original);
  expect(parent?.entries.some((e) => e.id === forkPoint)).toBe(true);
}, 180_000);
