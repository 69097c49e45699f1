/**
 * The real Agent SDK's forkSession (what Claude Code's `/branch` writes, 2.1.332) of a session the real
 * Claude Code wrote: every copied record carries `forkedFrom` naming its own original uuid, so the fork
 * point is the last one's (src/formats/claude/NOTES.md "Forks"). The reader, `show --json` and
 * `sessions --json` give it as parentEntryId, and keep it after Claude Code goes on in the branch.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forkSession, getSessionMessages } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { type AgentHome, runClaude, setupAgentHome } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';

let agentHome: AgentHome;
let env: DriverEnv;
const configDirBefore = process.env.CLAUDE_CONFIG_DIR;

beforeAll(async () => {
  agentHome = await setupAgentHome();
  env = { home: agentHome.root, env: { HOME: agentHome.root } };
  // the SDK's session functions find the transcripts by this process's environment
  process.env.CLAUDE_CONFIG_DIR = join(agentHome.root, '.claude');
});
afterAll(async () => {
  if (configDirBefore === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = configDirBefore;
  await agentHome?.close();
});

interface Row {
  id: string;
  parentId?: string | null;
  parentEntryId?: string;
}

it('a session branched with the SDK names the message it was branched at', async () => {
  const original = (await runClaude(agentHome, [], 'first alpha')).session_id;
  await runClaude(agentHome, ['--resume', original], 'second bravo');
  const messages = await getSessionMessages(original, { dir: agentHome.project });
  const forkPoint = messages.find((m) => m.type === 'assistant')?.uuid;
  if (!forkPoint || forkPoint === messages.at(-1)?.uuid) throw new Error('no first reply before the last message');
  const branch = (await forkSession(original, { dir: agentHome.project, upToMessageId: forkPoint })).sessionId;

  // what the SDK wrote: a mark on each copied record, the first one naming another record than the last
  const info = (await new ClaudeDriver(env).listSessions()).find((s) => s.id === branch);
  if (!info?.path) throw new Error('the branch is not listed');
  const marks = (await readFile(info.path, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { forkedFrom?: { sessionId: string; messageUuid: string } }).forkedFrom)
    .filter((m) => m !== undefined);
  expect(marks.length).toBeGreaterThan(1);
  expect(marks.at(-1)).toEqual({ sessionId: original, messageUuid: forkPoint });
  expect(marks[0]?.messageUuid).not.toBe(forkPoint);

  expect(info).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  const parent = await new ClaudeDriver(env).getSession(original);
  expect(parent?.entries.some((e) => e.id === forkPoint)).toBe(true);
  const shown = JSON.parse(await runCliOk(env, ['show', branch, '--source', 'claude', '--json'])) as Row;
  expect(shown).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  const rows = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as Row[];
  expect(rows.find((r) => r.id === branch)).toMatchObject({ parentId: original, parentEntryId: forkPoint });

  // Claude Code goes on in the branch; a read of only what it gained keeps the fork point
  const reader = new ClaudeDriver(env);
  const unit = (await reader.listUnits()).find((u) => u.sessionId === branch);
  if (!unit) throw new Error('no unit for the branch');
  const whole = await reader.readUnit(unit);
  if (whole?.offset === undefined) throw new Error('the branch was not read whole');
  await runClaude(agentHome, ['--resume', branch], 'branched charlie');
  const grown = (await reader.listUnits()).find((u) => u.sessionId === branch);
  if (!grown) throw new Error('no unit for the grown branch');
  const more = await reader.readUnit(grown, { offset: whole.offset, state: whole.state });
  expect(more?.appended).toBe(true);
  expect(more?.session).toMatchObject({ parentId: original, parentEntryId: forkPoint });
  await runCliOk(env, ['sync']);
  const synced = JSON.parse(await runCliOk(env, ['sessions', '--source', 'claude', '--json'])) as Row[];
  expect(synced.find((r) => r.id === branch)).toMatchObject({ parentId: original, parentEntryId: forkPoint });
}, 180_000);
