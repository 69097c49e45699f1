/**
 * `threadbase handoff` prints the command that resumes the written session; here bash runs that very
 * command (print-mode flags appended) with the real Claude Code and pi against the loopback stand-in,
 * for a project whose path holds a space, `$`, a backtick, `$(…)`, `!`, double and single quotes:
 * the agent starts in that directory and resumes that session (its earlier turn is in what it sends).
 * (OpenCode's and codex's commands open their TUIs: test/formats/resume-command-quoting.test.ts runs
 * those with stand-in binaries.)
 */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { runPastedCommand } from '../helpers/agent-fixtures.js';
import { type AgentHome, PI_MODEL, PI_PROVIDER, setupAgentHome } from '../helpers/agents.js';
import type { AnthropicRequest } from '../helpers/anthropic-standin.js';
import { runCliOk } from '../helpers/cli.js';
import { oneExchange } from '../helpers/sessions.js';

const AWKWARD = `it's a "$HOME" \`id\` dir! $(echo x)`;
let home: AgentHome;
let project: string;
let sourceId: string;

beforeAll(async () => {
  home = await setupAgentHome();
  project = join(home.root, AWKWARD);
  await fs.mkdir(project, { recursive: true });
  const sources = new Sources(home.env);
  try {
    const written = await sources
      .driver('pi')
      .writeSession?.(oneExchange({ id: 'p1', project, prompt: 'remember the word quokka', reply: 'quokka noted' }));
    sourceId = written?.id as string;
  } finally {
    await sources.close();
  }
}, 60_000);

afterAll(async () => {
  await home?.close();
});

/** The last request the stand-in got whose last message (system ones aside) holds `probe`. */
function requestWith(probe: string): AnthropicRequest {
  const last = (r: AnthropicRequest) => r.messages.filter((m) => (m.role as string) !== 'system').at(-1);
  const req = home.standIn
    .messageRequests()
    .filter((r) => JSON.stringify(last(r)?.content ?? '').includes(probe))
    .at(-1);
  if (!req) throw new Error(`no request ended with ${probe}`);
  return req;
}

/** Runs the printed command plus `extra` (already shell words) with bash, as a user pasting it would. */
function runPrinted(command: string, extra: string): Promise<string> {
  return runPastedCommand(home.root, command, extra, {
    PATH: `${resolve('node_modules/.bin')}:${process.env.PATH}`,
    HOME: home.root,
    ANTHROPIC_BASE_URL: home.standIn.url,
    ANTHROPIC_API_KEY: 'x',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    NO_COLOR: '1',
  });
}

it('Claude Code: the printed command resumes the session in its project', async () => {
  const h = JSON.parse(await runCliOk(home.env, ['handoff', sourceId, '--source', 'pi', '--to', 'claude', '--json'])) as {
    command: string;
  };
  expect(h.command).toContain('claude --resume');
  await runPrinted(h.command, "-p --output-format json -- 'probe one'");
  const req = requestWith('probe one');
  expect(JSON.stringify(req.messages)).toContain('remember the word quokka');
  // Claude Code tells the model its working directory (in a system message): the awkward one, whole
  expect(JSON.stringify(req)).toContain(`working directory: ${JSON.stringify(project).slice(1, -1)}`);
}, 180_000);

it('pi: the printed command resumes the session file in its project', async () => {
  const h = JSON.parse(await runCliOk(home.env, ['handoff', sourceId, '--source', 'pi', '--to', 'pi', '--json'])) as {
    command: string;
  };
  expect(h.command).toContain('pi --session');
  await runPrinted(h.command, `--provider ${PI_PROVIDER} --model ${PI_MODEL} -p 'probe two'`);
  const req = requestWith('probe two');
  expect(JSON.stringify(req.messages)).toContain('remember the word quokka');
  expect(JSON.stringify(req.system ?? '')).toContain(JSON.stringify(project).slice(1, -1));
}, 180_000);
