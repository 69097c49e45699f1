/**
 * Sessions stored by ClaudeAgentStorage are ordinary threadbase sessions: the CLI lists, shows,
 * prints their context in every format and converts them into an agent (pi here). The session is
 * stored where the CLI as it ships looks for threadbase's own sessions (the local store in a temp
 * $THREADBASE_HOME), with no registration by the test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { openStore } from '../../src/stores/open.js';
import { ECHO_HI_ANTHROPIC_MESSAGES, ECHO_HI_PROJECT, saveEchoHiRun } from '../helpers/agent-sdk-run.js';
import { type CliResult, runCli } from '../helpers/cli.js';

const SID = '7c0ffee0-0000-4000-8000-000000000001';
let home: string;
let env: DriverEnv;

function run(...args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-stored-cli-'));
  env = { home, env: { HOME: home, THREADBASE_HOME: join(home, '.threadbase') } };
  const store = await openStore(undefined, { env });
  await saveEchoHiRun(new ClaudeAgentStorage({ store, throwOnError: true }), SID);
  await store.close?.();
});
afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
});

describe('stored Agent SDK sessions through the CLI', () => {
  it('sessions and show list it as a threadbase session', async () => {
    const list = await run('sessions', '--source', 'threadbase', '--json');
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.out) as { id: string; source: string; project: string; messageCount: number; title: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: SID,
      source: 'threadbase',
      project: ECHO_HI_PROJECT,
      messageCount: 4,
      title: 'RUN: echo hi',
    });
    const show = await run('show', SID.slice(0, 8), '--json');
    expect(JSON.parse(show.out)).toMatchObject({ id: SID, source: 'threadbase', usage: { input: 30, output: 11 } });
  });

  it('context prints it as the Messages API, OpenAI chat and AI SDK take it', async () => {
    const anthropic = JSON.parse((await run('context', SID, '--format', 'anthropic')).out);
    expect(anthropic).toEqual({ messages: ECHO_HI_ANTHROPIC_MESSAGES });
    const openai = JSON.parse((await run('context', SID, '--format', 'openai')).out);
    expect(openai).toEqual({
      messages: [
        { role: 'user', content: 'RUN: echo hi' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo hi"}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'hi\n' },
        { role: 'assistant', content: 'It printed hi.' },
      ],
    });
    const ai = JSON.parse((await run('context', SID, '--format', 'ai-sdk')).out);
    expect(ai).toEqual({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'RUN: echo hi' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'toolu_1', toolName: 'Bash', input: { command: 'echo hi' } }],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'Bash', output: { type: 'text', value: 'hi\n' } }],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'It printed hi.' }] },
      ],
    });
    const md = (await run('context', SID, '--format', 'markdown')).out;
    expect(md).toContain('It printed hi.');
  });

  it('convert --to pi writes a pi session with the same context', async () => {
    const r = await run('convert', SID, '--to', 'pi', '--json');
    expect(r.code).toBe(0);
    const written = JSON.parse(r.out) as { id: string; source: string; path: string };
    expect(written.source).toBe('pi');
    const sources = new Sources(env);
    const pi = await sources.driver('pi').getSession(written.id);
    const ctx = await sources.driver('pi').getContext(written.id);
    expect(pi?.entries.length).toBeGreaterThanOrEqual(4);
    expect(ctx.messages.map((m) => [m.role, m.parts.map((p) => p.type)])).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_call']],
      ['tool', ['tool_result']],
      ['assistant', ['text']],
    ]);
  });
});
