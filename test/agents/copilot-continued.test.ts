/**
 * A response continued after max_tokens, written into Copilot CLI. Copilot CLI 1.0.102 itself (seen against a
 * stand-in answering max_tokens, then end_turn) asks "Please continue from where you left off." (not recorded),
 * records a usage record per response but only the last response's assistant.message: the pieces before it
 * (text and thinking) are in neither events.jsonl, session-store.db nor its log, so a reader has only their
 * usage (formats/copilot-continued-usage). threadbase writes another agent's pieces each as an assistant.message
 * with its usage record (nothing lost), which the real Copilot CLI loads and resumes as one assistant turn of
 * every piece's blocks in order, as threadbase's context says; read back, every piece and its usage is there.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the test skips.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Part, Session } from '../../src/model/types.js';
import type { AnthropicBlock, AnthropicMessage } from '../helpers/anthropic-standin.js';
import { COPILOT_MODEL, copilotHomeForFile, resumedByCopilot, COPILOT_SKIP as SKIP, sentShape } from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-continued-');
const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
const piece = (responseId: string, stopReason: string, parts: Part[]): Message => ({
  role: 'assistant',
  model: COPILOT_MODEL,
  responseId,
  stopReason,
  usage,
  parts,
});

/** sentShape, a thinking block as `thinking <text>` */
const shape = (ms: AnthropicMessage[]) =>
  sentShape(ms).map(([role, blocks], i) => [
    role,
    blocks.map((b, k) => {
      const block = ((ms[i]?.content ?? []) as AnthropicBlock[])[k];
      return block?.type === 'thinking' ? `thinking ${block.thinking}` : b;
    }),
  ]);

describe.skipIf(SKIP)('a response continued after max_tokens in Copilot CLI, and the real Copilot CLI', () => {
  it('keeps every piece, resumed as one turn as threadbase reads it', async () => {
    const session = chainSession('continued', 'claude', home.project, [
      ['u1', textMessage('user', 'write')],
      [
        'a1',
        piece('msg_1', 'max_tokens', [
          { type: 'thinking', thinking: 'T1', signature: 'S1' },
          { type: 'text', text: 'PART-ONE ' },
        ]),
      ],
      [
        'a2',
        piece('msg_2', 'tool_use', [
          { type: 'thinking', thinking: 'T2', signature: 'S2' },
          { type: 'text', text: 'PART-TWO' },
          { type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
        ]),
      ],
      ['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }],
      ['a3', piece('msg_3', 'max_tokens', [{ type: 'text', text: 'PART-THREE ' }])],
      ['a4', piece('msg_4', 'end_turn', [{ type: 'text', text: 'PART-FOUR' }])],
    ]);
    const info = await home.driver.writeSession(session);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe continued');
    expect(sent).toEqual(ours);
    expect(shape(sent)).toEqual([
      ['user', ['text write']],
      ['assistant', ['thinking T1', 'text PART-ONE', 'thinking T2', 'text PART-TWO', 'use toolu_1']],
      ['user', ['result toolu_1: a.txt']],
      ['assistant', ['text PART-THREE', 'text PART-FOUR']],
    ]);
    const read = (await home.driver.getSession(info.id)) as Session;
    const replies = buildContext(read).messages.filter((m) => m.role === 'assistant');
    expect(replies.slice(0, 4).map((m) => [m.responseId, m.stopReason, m.usage?.output])).toEqual([
      ['msg_1', 'max_tokens', 5],
      ['msg_2', 'tool_use', 5],
      ['msg_3', 'max_tokens', 5],
      ['msg_4', 'end_turn', 5],
    ]);
  }, 240_000);
});
