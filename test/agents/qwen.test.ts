/**
 * Sessions written into Qwen Code, resumed by the real `qwen` (0.24.4, `--auth-type anthropic` on the
 * loopback Anthropic stand-in):
 * - Claude Code sessions (signed thinking and tool calls; one with a compaction), a pi session (a
 *   tool call) and a codex session (developer instructions, reasoning, shell calls) are converted with `threadbase convert <id> --to qwen`;
 * - `qwen --resume <id> <probe>` in the project resumes each: the request it sends holds every turn,
 *   tool call and result of the source's own context, in order, and the thinking with its signature;
 * - the chat Qwen Code appended to is converted back into Claude Code with nothing of it lost: the
 *   source's turns, calls and results, then the probe and its answer.
 */
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { providerCallNote } from '../../src/convert/provider-tools.js';
import { Sources } from '../../src/formats/registry.js';
import type { SessionInfo } from '../../src/model/types.js';
import {
  AWKWARD_HANDOFF_SENT,
  anthropicRequestItems,
  CLAUDE_TOOLS_ID,
  type ConvertedSession,
  contextItems,
  convertInto,
  copySourceFixtures,
  expectBackInClaudeCode,
  expectInOrder,
  handoffFromAwkwardProject,
  runPastedCommand,
  SOURCE_SESSIONS,
} from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import type { AnthropicMessage } from '../helpers/anthropic-standin.js';
import { okProbeRule, readContext, readSession } from '../helpers/conversions.js';
import { isQwenReminder, requestEndingWith, runQwen, setupQwenHome } from '../helpers/qwen.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

let home: AgentHome;

beforeAll(async () => {
  home = await setupQwenHome({ rules: [okProbeRule] });
  await copySourceFixtures(home, { claudeSubAgent: false });
});
afterAll(async () => {
  await home?.close();
});

type Written = ConvertedSession;

const convert = (id: string, from: string, to: string): Promise<Written> => convertInto(home, id, from, to);

/** The same of the Anthropic messages Qwen Code sent, less its own `<system-reminder>` texts. */
const requestItems = (messages: AnthropicMessage[]) =>
  anthropicRequestItems(messages, {
    drop: isQwenReminder,
  });

// only the Claude Code session with tool calls has signed thinking
describe.each(SOURCE_SESSIONS.map((s) => ({ ...s, thinking: s.id === CLAUDE_TOOLS_ID })))(
  'a $from session converted into Qwen Code ($probe)',
  ({ from, id, probe, calls, thinking }) => {
    let written: Written;
    let source: string[];
    it('is resumed by the real qwen with every turn, tool call and result of the source', async () => {
      written = await convert(id, from, 'qwen');
      expect(written.source).toBe('qwen');
      expect(written.path.startsWith(join(home.root, '.qwen', 'projects'))).toBe(true);
      const project = (await readSession(home, 'qwen', written.id)).project as string;
      await runQwen(home, ['--resume', written.id, probe], project);
      const sent = requestEndingWith(home, probe).messages;
      source = contextItems(await readContext(home, from, id));
      expect(source.some((s) => s.startsWith('call:'))).toBe(calls);
      const got = requestItems(sent);
      expectInOrder(got, [...source, `user:${probe}`]);
      // the request is the source's context and the probe, nothing else of the conversation
      expect(got).toHaveLength(source.length + 1);
      if (thinking) {
        const signed = sent.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((b) => b.type === 'thinking');
        expect(signed.length).toBeGreaterThan(0);
        for (const b of signed) expect(typeof b.signature === 'string' && b.signature.length > 0).toBe(true);
      }
    }, 180_000);

    it('goes back into Claude Code with nothing lost and Qwen Code’s new turn', async () => {
      await expectBackInClaudeCode(home, 'qwen', written.id, source, probe);
    }, 120_000);
  },
);

describe('a session with a search the provider ran and a call left without a result', () => {
  it('is resumed by the real qwen: the search as its note, the call answered by Qwen Code’s own error result; read back as it was', async () => {
    const search = {
      type: 'tool_call' as const,
      id: 'ws_1',
      name: 'web_search',
      input: { type: 'search', query: 'zanzibar quokka' },
      meta: { providerExecuted: true },
    };
    const session = chainSession('mid-turn', 'codex', home.project, [
      ['u', textMessage('user', 'look it up')],
      [
        'a',
        {
          role: 'assistant',
          parts: [search, { type: 'tool_call', id: 'call_2', name: 'run_shell_command', input: { command: 'ls' } }],
        },
      ],
    ]);
    const sources = new Sources(home.env);
    const info = (await sources.driver('qwen').writeSession?.(session)) as SessionInfo;
    await sources.close();
    await runQwen(home, ['--resume', info.id, 'probe mid-turn']);
    const sent = requestItems(requestEndingWith(home, 'probe mid-turn').messages);
    expect(sent).toEqual([
      'user:look it up',
      `assistant:${providerCallNote(search)}`,
      'call:call_2:run_shell_command:{"command":"ls"}',
      expect.stringMatching(/^result:call_2:.*not recorded/),
      'user:probe mid-turn',
    ]);
    // and threadbase's context of the chat says so (its own repair included)
    // (the chat now goes on with the probe and its answer)
    expect(contextItems(await readContext(home, 'qwen', info.id))).toEqual([...sent, 'assistant:ok: probe mid-turn']);
    // the search comes back as the call it was
    const back = await readSession(home, 'qwen', info.id);
    const a = back.entries.find((e) => e.id === 'a');
    expect(a?.kind === 'message' && a.message.parts[0]).toEqual(search);
  }, 120_000);
});

describe('a result with a plain-text document, written into Qwen Code', () => {
  it('is resumed by the real qwen with the document in the result’s text, and read back as the document', async () => {
    const content = [
      { type: 'text' as const, text: 'listed' },
      { type: 'file' as const, mediaType: 'text/plain', text: 'its notes', name: 'notes.txt' },
    ];
    const session = chainSession('result-doc', 'claude', home.project, [
      ['u', textMessage('user', 'read the notes')],
      ['a', { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_d', name: 'read_file', input: { path: 'notes.txt' } }] }],
      ['r', { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_d', content }] }],
      ['b', textMessage('assistant', 'Read.')],
    ]);
    const sources = new Sources(home.env);
    const info = (await sources.driver('qwen').writeSession?.(session)) as SessionInfo;
    await sources.close();
    await runQwen(home, ['--resume', info.id, 'probe result doc']);
    const sent = requestItems(requestEndingWith(home, 'probe result doc').messages);
    expect(sent.find((s) => s.startsWith('result:call_d:'))).toContain('its notes');
    const back = await readSession(home, 'qwen', info.id);
    const r = back.entries.find((e) => e.id === 'r');
    expect(r?.kind === 'message' && r.message.parts).toEqual([{ type: 'tool_result', callId: 'call_d', content }]);
  }, 120_000);
});

describe('threadbase handoff --to qwen', () => {
  it('prints a command that resumes the session in its project, even one whose path holds quotes, $, a backtick and !', async () => {
    const command = await handoffFromAwkwardProject(home, 'qwen');
    expect(command).toMatch(/^cd '.*' && qwen --resume [0-9a-f-]{36}$/);
    await runPastedCommand(home.root, command, "--auth-type anthropic --approval-mode yolo 'probe handoff'", {
      PATH: `${resolve('node_modules/.bin')}:${process.env.PATH}`,
      HOME: home.root,
      ANTHROPIC_API_KEY: 'offline',
      ANTHROPIC_BASE_URL: home.standIn.url,
      ANTHROPIC_MODEL: 'claude-standin',
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
      NO_COLOR: '1',
    });
    expect(requestItems(requestEndingWith(home, 'probe handoff').messages)).toEqual(AWKWARD_HANDOFF_SENT);
  }, 180_000);
});
