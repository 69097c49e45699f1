/**
 * Another agent's failed call (Claude Code's API-error record) written into Copilot CLI as it records its own,
 * a session.error (formats/copilot/failed-turns.ts): the real GitHub Copilot CLI (1.0.102, offline against the
 * Anthropic stand-in) resumes the copy sending nothing of it, as threadbase's context says and as Claude Code
 * leaves its own out; written as a reply (before), it sent the error's words as the model's.
 * The binary is node_modules/.bin/copilot (or $THREADBASE_COPILOT_BIN); without it the test skips.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { buildContext } from '../../src/model/tree.js';
import type { Session } from '../../src/model/types.js';
import { copilotHomeForFile, resumedByCopilot, COPILOT_SKIP as SKIP } from '../helpers/copilot.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const home = copilotHomeForFile('tb-copilot-failed-call-');
const ERROR = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

describe.skipIf(SKIP)("another agent's failed call in Copilot CLI, and the real Copilot CLI", () => {
  it('is resumed without it, as threadbase reads it', async () => {
    const session = chainSession('failed', 'claude', home.project, [
      ['u1', textMessage('user', 'first try')],
      [
        'a1',
        { role: 'assistant', model: '<synthetic>', parts: [{ type: 'text', text: ERROR }], stopReason: 'error', error: ERROR },
      ],
      ['u2', textMessage('user', 'second try')],
      ['a2', textMessage('assistant', 'answered', { model: 'claude-sonnet-4.5', responseId: 'msg_2', stopReason: 'end_turn' })],
    ]);
    const info = await home.driver.writeSession(session);
    const { sent, ours } = await resumedByCopilot(home, info.id, 'probe failed call');
    expect(sent).toEqual(ours);
    expect(JSON.stringify(sent)).not.toContain('Overloaded');
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant']);
    // the resumed file: the failed call still the model's error entry, Copilot CLI's own reply after ours
    const resumed = (await home.driver.getSession(info.id)) as Session;
    const replies = buildContext(resumed).messages.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => [m.stopReason, m.error])).toEqual([
      ['error', ERROR],
      ['end_turn', undefined],
      ['end_turn', undefined],
    ]);
  }, 240_000);
});
