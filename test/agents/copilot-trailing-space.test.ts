/**
 * The real GitHub Copilot CLI (@github/copilot 1.0.102, offline against the Anthropic stand-in) resumes
 * a session (`copilot --resume=<id> -p …`) with each user's and assistant's text trimmed at its end
 * (spaces, tabs, newlines, a no-break space; leading ones kept), a text of whitespace alone and a
 * message left with nothing not sent (the messages around it of one role then sent as one); thinking
 * and tool results as recorded. threadbase's Copilot context (formats/copilot/context.ts) is what it
 * sends: for another agent's session written into Copilot CLI, and for a reply Copilot CLI recorded
 * itself ending in a space and newlines (kept so in the session).
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the tests skip.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import type { Message } from '../../src/model/types.js';
import type { AnthropicMessage } from '../helpers/anthropic-standin.js';
import {
  copilotHomeForFile,
  COPILOT_MODEL as MODEL,
  resumedByCopilot,
  runCopilot,
  COPILOT_SKIP as SKIP,
} from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const REPLY = '  A reply ending in a space and newlines. \n\n';

const home = copilotHomeForFile('tb-copilot-trim-', [
  (req) => (JSON.stringify(req.messages.at(-1)).includes('answer with spaces') ? { text: REPLY } : { text: 'ok' }),
]);

const texts = (ms: AnthropicMessage[]) =>
  ms.flatMap((m) =>
    typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])),
  );

describe.skipIf(SKIP)('trailing whitespace and the real Copilot CLI', () => {
  it("another agent's texts are sent trimmed at their end, as threadbase's context has them", async () => {
    const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'bash', input: { command: 'ls' } });
    const messages: [string, Message][] = [
      ['m1', textMessage('user', 'ends in spaces  ')],
      ['m2', textMessage('assistant', 'Ends in spaces.   ', { model: MODEL })],
      ['m3', textMessage('user', 'ends in newlines\n\n')],
      ['m4', textMessage('assistant', '  Leading spaces, ends in newlines.\n\n', { model: MODEL })],
      ['m5', textMessage('user', 'third')],
      [
        'm6',
        {
          role: 'assistant',
          model: MODEL,
          parts: [{ type: 'text', text: 'Before a call, a tab and a space\t ' }, call('call_a')],
        },
      ],
      [
        'm7',
        {
          role: 'tool',
          parts: [{ type: 'tool_result', callId: 'call_a', name: 'bash', content: 'a result ending in a space \n' }],
        },
      ],
      ['m8', textMessage('assistant', 'Ends in a no-break space\u00a0 \n \n', { model: MODEL })],
      ['m9', textMessage('user', 'fourth')],
      // whitespace alone: not sent, so fourth and fifth go as one user message
      ['m10', textMessage('assistant', '   \n', { model: MODEL })],
      ['m11', textMessage('user', 'fifth')],
      [
        'm12',
        {
          role: 'assistant',
          model: MODEL,
          parts: [
            { type: 'thinking', thinking: 'a thought ending in a space \n', signature: 'sig' },
            { type: 'text', text: ' \n' },
            call('call_b'),
          ],
        },
      ],
      ['m13', { role: 'tool', parts: [{ type: 'tool_result', callId: 'call_b', name: 'bash', content: 'done' }] }],
      ['m14', textMessage('assistant', 'x\n', { model: MODEL })],
      ['m15', textMessage('user', ' \n ')],
      ['m16', textMessage('assistant', 'y', { model: MODEL })],
    ];
    const info = await home.driver.writeSession(chainSession('trailing', 'claude', home.project, messages));
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe written');
    expect(texts(sent)).toEqual([
      'ends in spaces',
      'Ends in spaces.',
      'ends in newlines',
      '  Leading spaces, ends in newlines.',
      'third',
      'Before a call, a tab and a space',
      'Ends in a no-break space',
      'fourth',
      'fifth',
      'x',
      'y',
    ]);
    expect(JSON.stringify(sent)).toContain('a result ending in a space \\n');
    expect(JSON.stringify(sent)).toContain('a thought ending in a space \\n');
    expect(sent).toEqual(ours);
  }, 240_000);

  it('a reply Copilot CLI recorded ending in a space and newlines is kept so, and sent trimmed as threadbase says', async () => {
    await runCopilot(home, ['-p', 'answer with spaces', '--allow-all-tools']);
    const listed = await home.driver.listSessions();
    const found = await Promise.all(listed.map(async (l) => ({ l, s: await home.driver.getSession(l.id) })));
    const own = found.find(({ s }) => JSON.stringify(s?.entries ?? []).includes('answer with spaces'));
    if (!own) throw new Error('no session of the prompt');
    expect(JSON.stringify(own.s?.entries)).toContain(JSON.stringify(REPLY));
    const { sent, ours } = await resumedByCopilot(home, own.l.id, 'probe recorded');
    expect(texts(sent).at(-1)).toBe(REPLY.trimEnd());
    expect(sent).toEqual(ours);
  }, 240_000);
});
