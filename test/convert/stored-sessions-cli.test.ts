/**
 * Sessions stored by ClaudeAgentStorage are ordinary threadbase sessions: the CLI lists, shows,
 * prints their context in every format and converts them into an agent (pi here). The store is
 * registered as the `threadbase` source in-test (a MemoryStore), like any store would be.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { registerFormat, Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { type CliResult, runCli } from '../helpers/cli.js';

const SID = '7c0ffee0-0000-4000-8000-000000000001';
const store = new MemoryStore();
let home: string;
let env: DriverEnv;

function run(...args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tb-stored-cli-'));
  env = { home, env: { HOME: home } };
  registerFormat('threadbase', () => store);
  const storage = new ClaudeAgentStorage({ store, warn: () => {} });
  await storage.saveMessage({ type: 'system', subtype: 'init', session_id: SID, cwd: '/work/app' });
  await storage.saveMessage({
    type: 'user',
    message: { role: 'user', content: 'RUN: echo hi' },
    session_id: SID,
    parent_tool_use_id: null,
  });
  await storage.saveMessage({
    type: 'assistant',
    message: {
      id: 'msg_a',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    },
    session_id: SID,
    parent_tool_use_id: null,
  });
  await storage.saveMessage({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi\n' }] },
    session_id: SID,
    parent_tool_use_id: null,
  });
  await storage.saveMessage({
    type: 'assistant',
    message: {
      id: 'msg_b',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'It printed hi.' }],
      usage: { input_tokens: 20, output_tokens: 6 },
    },
    session_id: SID,
    parent_tool_use_id: null,
  });
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
      project: '/work/app',
      messageCount: 4,
      title: 'RUN: echo hi',
    });
    const show = await run('show', SID.slice(0, 8), '--json');
    expect(JSON.parse(show.out)).toMatchObject({ id: SID, source: 'threadbase', usage: { input: 30, output: 11 } });
  });

  it('context prints it as the Messages API, OpenAI chat and AI SDK take it', async () => {
    const anthropic = JSON.parse((await run('context', SID, '--format', 'anthropic')).out);
    expect(anthropic).toEqual({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'RUN: echo hi' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi\n' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It printed hi.' }] },
      ],
    });
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
