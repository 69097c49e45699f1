/**
 * The real Claude Agent SDK `query()` (which runs the real Claude Code binary) against the loopback
 * Anthropic stand-in, every streamed message piped into ClaudeAgentStorage.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { buildContext } from '../../src/model/tree.js';
import { MemoryStore } from '../../src/stores/memory/index.js';
import { CLAUDE_BIN } from '../helpers/agents.js';
import { type StandIn, startAnthropicStandIn } from '../helpers/anthropic-standin.js';

describe('Claude Agent SDK → ClaudeAgentStorage', () => {
  let standIn: StandIn;
  let home: string;

  beforeAll(async () => {
    standIn = await startAnthropicStandIn({
      rules: [
        (req) =>
          JSON.stringify(req.messages.filter((m) => m.role === 'user').at(-1)).includes('THINK FIRST')
            ? { thinking: 'weighing it up', text: 'decided' }
            : undefined,
      ],
    });
    home = await mkdtemp(join(tmpdir(), 'tb-agent-sdk-'));
  });
  afterAll(async () => {
    await standIn?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const sdkOptions = () => ({
    cwd: home,
    pathToClaudeCodeExecutable: CLAUDE_BIN,
    allowedTools: ['Bash'],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_BASE_URL: standIn.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-offline',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    },
  });

  it('stores a real tool-call run as: assistant tool call, user tool result, assistant text', async () => {
    const store = new MemoryStore();
    const warnings: string[] = [];
    const errors: unknown[] = [];
    const storage = new ClaudeAgentStorage({ store, onError: (e) => errors.push(e), warn: (m) => warnings.push(m) });
    const seen: string[] = [];
    let initSessionId: string | undefined;

    const run = query({ prompt: 'RUN: echo hi', options: sdkOptions() });
    for await (const msg of run) {
      seen.push(msg.type);
      if (msg.type === 'system' && msg.subtype === 'init') initSessionId = msg.session_id;
      expect(await storage.saveMessage(msg)).not.toBe('failed');
    }

    expect(errors).toEqual([]);
    expect(initSessionId).toBeTruthy();
    expect(storage.sessionId).toBe(initSessionId);
    const session = await store.getSession(initSessionId as string);
    expect(session?.source).toBe('threadbase');
    const messages = (session?.entries ?? []).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    // The SDK echoes no prompt; what it streams is exactly these three.
    expect(messages.map((m) => [m.role, m.parts.map((p) => p.type)])).toEqual([
      ['assistant', ['tool_call']],
      ['tool', ['tool_result']],
      ['assistant', ['text']],
    ]);
    const [call, result, answer] = messages;
    const callPart = call?.parts[0];
    expect(callPart).toMatchObject({ type: 'tool_call', name: 'Bash', input: { command: 'echo hi' } });
    expect(result?.parts[0]).toMatchObject({ type: 'tool_result', callId: callPart?.type === 'tool_call' ? callPart.id : '' });
    const resultPart = result?.parts[0];
    const resultText =
      resultPart?.type === 'tool_result'
        ? typeof resultPart.content === 'string'
          ? resultPart.content
          : resultPart.content.map((c) => (c.type === 'text' ? c.text : '')).join('')
        : '';
    expect(resultText).toContain('hi');
    expect(answer?.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Tool finished') });
    expect(call?.meta?.model).toBeTruthy();

    // In Anthropic format: assistant tool_use, user tool_result, assistant text.
    const req = contextToAnthropic(buildContext(session as NonNullable<typeof session>));
    expect(req.messages.map((m) => [m.role, Array.isArray(m.content) ? m.content.map((b) => b.type) : 'string'])).toEqual([
      ['assistant', ['tool_use']],
      ['user', ['tool_result']],
      ['assistant', ['text']],
    ]);
    expect(seen).toContain('result');

    // What was stored is what Claude Code sent the API for those turns (less its cache marks and reminders).
    const requests = standIn.messageRequests();
    const last = requests[requests.length - 1];
    const sent = (last?.messages ?? [])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({
        role: m.role,
        content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)
          .filter((b) => !(b.type === 'text' && String(b.text).startsWith('<system-reminder>')))
          .map(({ cache_control: _c, ...b }) => b),
      }));
    expect(sent.slice(-2)).toEqual(req.messages.slice(0, 2));
  }, 120_000);

  it('with includeThinking, stores the streamed thinking as text marked has_thinking, else leaves it out', async () => {
    const withThinking = new MemoryStore();
    const without = new MemoryStore();
    const a = new ClaudeAgentStorage({
      store: withThinking,
      includeThinking: true,
      onError: (e) => {
        throw e;
      },
    });
    const b = new ClaudeAgentStorage({
      store: without,
      onError: (e) => {
        throw e;
      },
    });
    for await (const msg of query({ prompt: 'THINK FIRST please', options: sdkOptions() })) {
      await a.saveMessage(msg);
      await b.saveMessage(msg);
    }
    const id = a.sessionId as string;
    expect(b.sessionId).toBe(id);
    const ctxA = await withThinking.getContext(id);
    expect(ctxA.messages).toHaveLength(1); // one response, split over SDK messages, merged
    expect(ctxA.messages[0]?.parts).toEqual([
      { type: 'text', text: 'weighing it up', meta: { has_thinking: true, signature: expect.stringMatching(/^sig-standin-/) } },
      { type: 'text', text: 'decided' },
    ]);
    const ctxB = await without.getContext(id);
    expect(ctxB.messages.map((m) => m.parts)).toEqual([[{ type: 'text', text: 'decided' }]]);
  }, 120_000);
});
