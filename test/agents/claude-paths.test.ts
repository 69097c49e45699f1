/**
 * The real Claude Code finds a session threadbase wrote for a working directory whose folder name is
 * longer than Claude Code keeps (200 characters, then a hash): `claude --continue` there resumes it,
 * not the older session Claude Code wrote there itself (it reads its own folder first).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ClaudeDriver, encodeProjectPath } from '../../src/formats/claude/index.js';
import { agentHomeForFile, runClaude } from '../helpers/agents.js';
import { oneExchange } from '../helpers/sessions.js';

const agentHome = agentHomeForFile();

it('claude --continue in a deep directory resumes the session threadbase wrote there', async () => {
  const deep = join(agentHome.root, 'a'.repeat(60), 'b'.repeat(60), 'c'.repeat(60), 'proj.v1_x');
  await fs.mkdir(deep, { recursive: true });
  const here = { ...agentHome, project: deep };
  // Claude Code has a session of its own there already: its folder is the one `--continue` reads
  const own = await runClaude(here, [], 'an earlier session');
  const session = oneExchange({
    id: 'deep',
    project: deep,
    prompt: 'remember the word heron',
    reply: 'Heron, noted.',
    assistant: { model: 'claude-sonnet-4-5', responseId: 'msg_deep_1' },
    at: (n) => new Date(Date.now() + n * 1000).toISOString(),
  });
  const info = await new ClaudeDriver(agentHome.env).writeSession(session);
  expect(encodeProjectPath(deep).length).toBeGreaterThan(200);
  expect(info.path).toContain(join('projects', encodeProjectPath(deep)));
  const before = agentHome.standIn.messageRequests().length;
  const result = await runClaude(here, ['--continue'], 'which word?');
  expect(result.session_id).not.toBe(own.session_id);
  expect(result.session_id).toBe(info.id);
  const sent = agentHome.standIn
    .messageRequests()
    .slice(before)
    .map((r) => JSON.stringify(r.messages));
  expect(sent.some((m) => m.includes('remember the word heron') && m.includes('Heron, noted.'))).toBe(true);
});
