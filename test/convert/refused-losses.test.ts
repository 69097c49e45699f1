/**
 * A refused or cancelled call's result going into Claude Code, OpenCode, Kilo, pi, Codex, Qwen Code,
 * Copilot CLI, Cline or Continue takes that agent's words for it (src/convert/declined.ts and each format's denials.ts): convert says so, once for
 * each such result whose words are not already the target's; Gemini CLI keeps the text, and says nothing.
 */
import { describe, expect, it } from 'vitest';
import { conversionLosses } from '../../src/convert/losses.js';
import '../../src/formats/all.js';
import type { Session, ToolResultPart } from '../../src/model/types.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const result = (callId: string, content: string, mark: 'refused' | 'cancelled'): ToolResultPart => ({
  type: 'tool_result',
  callId,
  content,
  isError: true,
  meta: { [mark]: true },
});

const session: Session = {
  id: 'declined',
  source: 'gemini',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:03.000Z',
  messageCount: 3,
  entries: [
    messageEntry('u', null, 0, textMessage('user', 'make two files')),
    messageEntry('a', 'u', 1, {
      role: 'assistant',
      parts: [
        { type: 'tool_call', id: 'c1', name: 'bash', input: {} },
        { type: 'tool_call', id: 'c2', name: 'bash', input: {} },
        { type: 'tool_call', id: 'c3', name: 'bash', input: {} },
      ],
    }),
    messageEntry('r', 'a', 2, {
      role: 'tool',
      parts: [
        result('c1', '[Operation Cancelled] Reason: User denied execution.', 'refused'),
        result('c2', '[Operation Cancelled] Reason: User cancelled operation', 'cancelled'),
        // already pi's words: pi keeps them
        result('c3', 'Blocked by user', 'refused'),
      ],
    }),
  ],
};

/** The line saying `n` results were written in `whose` words. */
const reworded = (whose: string, n: number) =>
  expect.stringMatching(new RegExp(`refused or cancelled calls' results written in ${whose} words .*\\(${n}\\)$`));

const said = (target: string) => conversionLosses(session, target).filter((l) => l.includes('refused or cancelled'));

describe('refused and cancelled results in another agent’s words', () => {
  it('are said to be reworded by the targets that reword them', () => {
    expect(said('claude')).toEqual([reworded("Claude Code's", 3)]);
    expect(said('opencode')).toEqual([reworded("OpenCode's", 3)]);
    expect(said('kilo')).toEqual([reworded("Kilo CLI's", 3)]);
    expect(said('pi')).toEqual([reworded("pi's", 2)]);
    expect(said('codex')).toEqual([reworded("codex's", 3)]);
    // the two in Qwen Code's own `[Operation Cancelled] Reason:` form are kept
    expect(said('qwen')).toEqual([reworded("Qwen Code's", 1)]);
    expect(said('copilot')).toEqual([reworded("Copilot CLI's", 3)]);
    expect(said('cline')).toEqual([reworded("Cline's", 3)]);
    expect(said('continue')).toEqual([reworded("Continue's", 3)]);
    expect(said('gemini')).toEqual([]);
  });
});
