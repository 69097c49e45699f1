/**
 * Thinking without a signature beside signed thinking in one reply, written into Copilot CLI as
 * `reasoningText` beside the `reasoningBlocks` (formats/copilot/part-layout.ts withUnsignedThinking): the real
 * GitHub Copilot CLI (1.0.102, offline against the Anthropic stand-in) loads it and, resumed, sends the thinking
 * blocks alone, as threadbase's context says; the copy Copilot CLI appended to still reads every thinking part.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the test skips.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Part, Session } from '../../src/model/types.js';
import {
  COPILOT_MODEL,
  copilotHomeForFile,
  plainTextResults,
  resumedByCopilot,
  COPILOT_SKIP as SKIP,
} from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-unsigned-');
const reply = (responseId: string, parts: Part[]): Message => ({ role: 'assistant', model: COPILOT_MODEL, responseId, parts });

describe.skipIf(SKIP)('unsigned thinking beside signed thinking in Copilot CLI, and the real Copilot CLI', () => {
  it('is kept, and resumed as threadbase reads it: the blocks alone', async () => {
    const first: Part[] = [
      { type: 'thinking', thinking: 'plain first' },
      { type: 'thinking', thinking: 'signed', signature: 'SIG-1' },
      { type: 'text', text: 'listing' },
      { type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
    ];
    const second: Part[] = [
      { type: 'thinking', thinking: 'signed again', signature: 'SIG-2' },
      { type: 'text', text: 'one' },
      { type: 'thinking', thinking: 'plain between' },
      { type: 'text', text: 'two' },
    ];
    const session = chainSession('unsigned', 'claude', home.project, [
      ['u1', textMessage('user', 'list it')],
      ['a1', reply('msg_1', first)],
      ['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }],
      ['a2', reply('msg_2', second)],
    ]);
    const info = await home.driver.writeSession(session);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe unsigned', plainTextResults);
    expect(sent).toEqual(ours);
    expect(JSON.stringify(sent)).not.toContain('plain');
    expect(JSON.stringify(sent)).toContain('SIG-2');
    const read = (await home.driver.getSession(info.id)) as Session;
    const replies = buildContext(read).messages.filter((m) => m.role === 'assistant');
    expect(replies.slice(0, 2).map((m) => m.parts)).toEqual([first, second]);
  }, 240_000);
});
