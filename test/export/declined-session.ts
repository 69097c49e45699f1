/**
 * A session with a call that ran, one that failed, one the user refused and one cancelled (their
 * results marked as convert/declined.ts marks them), for the export's and the viewer's tests.
 */
import type { Message, Session, ToolResultPart } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

export const DECLINED_ID = 'sess-declined';

const call = (id: string) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command: `touch ${id}` } });
const result = (callId: string, content: string, extra: Partial<ToolResultPart> = {}): ToolResultPart => ({
  type: 'tool_result',
  callId,
  content,
  ...extra,
});

/**
 * Four calls: one ran, one failed, one refused, one cancelled; then a refused result whose call is not
 * in the session (shown alone).
 */
export function declinedSession(): Session {
  const tool = (parts: ToolResultPart[]): Message => ({ role: 'tool', parts });
  return chainSession(DECLINED_ID, 'gemini', '/work/proj', [
    ['u1', textMessage('user', 'make four files')],
    [
      'a1',
      {
        role: 'assistant',
        model: 'gemini-2.5-pro',
        parts: [call('c_ok'), call('c_failed'), call('c_refused'), call('c_cancelled')],
      },
    ],
    [
      't1',
      tool([
        result('c_ok', ''),
        result('c_failed', 'touch: cannot touch: Permission denied', { isError: true }),
        result('c_refused', '[Operation Cancelled] Reason: User denied execution.', { isError: true, meta: { refused: true } }),
        result('c_cancelled', '[Operation Cancelled] Reason: User cancelled operation', {
          isError: true,
          meta: { cancelled: true },
        }),
      ]),
    ],
    ['t2', tool([result('c_elsewhere', 'denied', { isError: true, meta: { refused: true, cancelled: true } })])],
    ['a2', textMessage('assistant', 'One file was made.', { model: 'gemini-2.5-pro' })],
  ]);
}
