/**
 * OpenCode sessions in OpenCode's own records (`{info, messages}`), for what a reader and the real
 * OpenCode or Kilo make of a record threadbase's writer would not make itself.
 */
import type { OcSessionData } from '../../src/formats/opencode/records.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const tokens = { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } };

/**
 * One user message answered by one assistant message of two steps (standin/claude-test): signed
 * reasoning and a bash call in the first, an empty text and a text in the second, which holds no
 * reasoning of its own.
 */
export function twoStepSession(id: string, directory: string): OcSessionData {
  const user = `msg_${id}_u1`;
  const reply = `msg_${id}_a1`;
  const part = (n: number, p: Record<string, unknown>) => ({ id: `prt_${id}_${n}`, sessionID: id, messageID: reply, ...p });
  const time = { start: T0 + 2000, end: T0 + 2500 };
  return {
    info: {
      id,
      slug: id,
      projectID: 'global',
      directory,
      title: 'two steps',
      version: '1.18.33',
      time: { created: T0, updated: T0 + 5000 },
    },
    messages: [
      {
        info: {
          id: user,
          sessionID: id,
          role: 'user',
          time: { created: T0 + 1000 },
          agent: 'build',
          model: { providerID: 'standin', modelID: 'claude-test' },
        },
        parts: [{ id: `prt_${id}_0`, sessionID: id, messageID: user, type: 'text', text: 'think in steps' }],
      },
      {
        info: {
          id: reply,
          sessionID: id,
          role: 'assistant',
          parentID: user,
          time: { created: T0 + 2000, completed: T0 + 4000 },
          modelID: 'claude-test',
          providerID: 'standin',
          mode: 'build',
          agent: 'build',
          path: { cwd: directory, root: directory },
          cost: 0,
          tokens,
          finish: 'stop',
        },
        parts: [
          part(1, { type: 'step-start' }),
          part(2, { type: 'reasoning', text: 'Signed thought.', metadata: { anthropic: { signature: 'sig-1' } }, time }),
          part(3, {
            type: 'tool',
            callID: 'toolu_steps_1',
            tool: 'bash',
            state: {
              status: 'completed',
              input: { command: 'echo hi', description: 'Says hi' },
              output: 'hi\n',
              title: 'Says hi',
              metadata: {},
              time,
            },
          }),
          part(4, { type: 'step-finish', reason: 'tool-calls', tokens, cost: 0 }),
          part(5, { type: 'step-start' }),
          part(6, { type: 'text', text: '', time: { start: T0 + 3000, end: T0 + 3000 } }),
          part(7, { type: 'text', text: 'Done.', time: { start: T0 + 3000, end: T0 + 3500 } }),
          part(8, { type: 'step-finish', reason: 'stop', tokens, cost: 0 }),
        ],
      },
    ],
  };
}
