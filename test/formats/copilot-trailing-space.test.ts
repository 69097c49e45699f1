/**
 * Copilot CLI sends each user's and assistant's text trimmed at its end and leaves out one of
 * whitespace alone, and a message left with nothing (seen with the real 1.0.102:
 * test/agents/copilot-trailing-space.test.ts); thinking and tool results as recorded. Its context
 * here says so; the session keeps the text as recorded.
 */
import { describe, expect, it } from 'vitest';
import { copilotContext } from '../../src/formats/copilot/context.js';
import type { Message } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

describe("Copilot CLI's context", () => {
  it('trims texts at their end, leaves out those of whitespace alone and the messages left empty', () => {
    const messages: [string, Message][] = [
      ['m1', textMessage('user', ' hi \n')],
      [
        'm2',
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', thinking: 'hmm \n', signature: 's' },
            { type: 'text', text: 'ok\t\u00a0\n' },
          ],
        },
      ],
      ['m3', textMessage('user', 'next')],
      ['m4', textMessage('assistant', ' \n')],
      [
        'm5',
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'a ' },
            { type: 'text', text: '\n' },
          ],
        },
      ],
      [
        'm6',
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: '  ' },
            { type: 'tool_call', id: 'c', name: 'bash', input: {} },
          ],
        },
      ],
      ['m7', { role: 'tool', parts: [{ type: 'tool_result', callId: 'c', content: 'out \n' }] }],
    ];
    const session = chainSession('s', 'copilot', '/p', messages);
    expect(copilotContext(session).messages.map((m) => [m.role, m.parts])).toEqual([
      ['user', [{ type: 'text', text: ' hi' }]],
      [
        'assistant',
        [
          { type: 'thinking', thinking: 'hmm \n', signature: 's' },
          { type: 'text', text: 'ok' },
        ],
      ],
      ['user', [{ type: 'text', text: 'next' }]],
      ['user', [{ type: 'text', text: 'a' }]],
      ['assistant', [{ type: 'tool_call', id: 'c', name: 'bash', input: {} }]],
      ['tool', [{ type: 'tool_result', callId: 'c', content: 'out \n' }]],
    ]);
  });
});
