/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in) resumes a
 * Claude Code session converted by threadbase whose replies hold several thinking and text blocks
 * (formats/copilot/part-layout.ts): one with signed thinking, written as Copilot CLI records such a reply
 * (`reasoningBlocks.orderedBlocks`), is sent with its blocks in order; one with unsigned thinking, its
 * texts joined in `content` as Copilot CLI records them (their layout kept beside them), is sent as its
 * content and calls. Both as threadbase reads the copy. Without the binary the tests skip.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { convertSession } from '../../src/convert/session.js';
import { ClaudeDriver } from '../../src/formats/claude/index.js';
import type { Message, Part, Session } from '../../src/model/types.js';
import { copilotHomeForFile, plainTextResults, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-ordered-');

const call = (id: string): Part => ({ type: 'tool_call', id, name: 'Bash', input: { command: 'echo m' } });
const reply = (responseId: string, parts: Part[]): Message => ({
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  responseId,
  stopReason: 'tool_use',
  parts,
});
const result = (callId: string): Message => ({ role: 'tool', parts: [{ type: 'tool_result', callId, content: 'm' }] });

describe.skipIf(SKIP)('replies of several blocks converted from Claude Code, and the real Copilot CLI', () => {
  it('resumes them as threadbase reads them: signed thinking with its blocks in order, the rest as its content', async () => {
    const claude = new ClaudeDriver(home.env);
    const written = await claude.writeSession(
      chainSession('multi-blocks', 'threadbase', home.project, [
        ['u1', textMessage('user', 'go')],
        [
          'a1',
          reply('msg_signed', [
            { type: 'thinking', thinking: 'first thought', signature: 'sig-1' },
            { type: 'thinking', thinking: 'second thought', signature: 'sig-2' },
            { type: 'text', text: 'one' },
            { type: 'text', text: 'two' },
            call('toolu_m1'),
          ]),
        ],
        ['t1', result('toolu_m1')],
        [
          'a2',
          reply('msg_unsigned', [
            { type: 'thinking', thinking: 'third thought' },
            { type: 'text', text: 'three' },
            { type: 'thinking', thinking: 'fourth thought' },
            { type: 'text', text: 'four' },
            call('toolu_m2'),
          ]),
        ],
        ['t2', result('toolu_m2')],
        ['a3', textMessage('assistant', 'done', { model: 'claude-sonnet-4-5', responseId: 'msg_done' })],
      ]),
    );
    const source = (await claude.getSession(written.id)) as Session;
    const copy = await convertSession(source, home.driver);
    const { sent, ours } = await resumedByCopilot(home, copy.id, 'probe blocks', plainTextResults);
    expect(sent).toEqual(ours);
    const replies = sent.filter((m) => m.role === 'assistant').map((m) => (m.content as { type: string }[]).map((b) => b.type));
    expect(replies).toEqual([['thinking', 'thinking', 'text', 'text', 'tool_use'], ['text', 'tool_use'], ['text']]);
  }, 240_000);
});
