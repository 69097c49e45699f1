/**
 * Gemini CLI's refused and cancelled calls through every writer that knows the marks and back
 * (src/convert/declined.ts): into Claude Code, pi and OpenCode each is its agent's own record of it and
 * reads back with its mark; from there into Gemini CLI again, each is a `cancelled` call that reads back
 * with the same mark, and a refusal read from Claude Code goes into OpenCode and pi still refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import type { Entry, Session } from '../../src/model/types.js';
import { throughEncoders } from '../helpers/encoders.js';
import { declinedResult, messageEntry, textMessage } from '../helpers/sessions.js';

const home = mkdtempSync(join(tmpdir(), 'tb-refused-trip-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const result = (callId: string, content: string, mark: 'refused' | 'cancelled') =>
  declinedResult(callId, 'run_shell_command', content, mark);

const entries: Entry[] = [
  messageEntry('g1', null, 0, textMessage('user', 'make two files')),
  messageEntry('g2', 'g1', 1, {
    role: 'assistant',
    model: 'gemini-2.5-pro',
    parts: [
      { type: 'tool_call', id: 'call_a', name: 'run_shell_command', input: { command: 'touch a' } },
      { type: 'tool_call', id: 'call_b', name: 'run_shell_command', input: { command: 'touch b' } },
    ],
  }),
  messageEntry('g3', 'g2', 2, {
    role: 'tool',
    parts: [
      result('call_a', '[Operation Cancelled] Reason: User denied execution.', 'refused'),
      result('call_b', '[Operation Cancelled] Reason: User cancelled operation', 'cancelled'),
    ],
  }),
  messageEntry('g4', 'g3', 3, textMessage('assistant', 'Neither was made.', { model: 'gemini-2.5-pro' })),
];
const gemini: Session = {
  id: 'declined',
  source: 'gemini',
  project: join(home, 'project'),
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:03.000Z',
  messageCount: 4,
  entries,
};

/** Each result's mark and whether it is an error, in order. */
function marks(s: Session | undefined): [string | undefined, boolean | undefined][] {
  return (s?.entries ?? []).flatMap((e) =>
    e.kind === 'message'
      ? e.message.parts.flatMap((p) =>
          p.type === 'tool_result'
            ? [[p.meta?.refused ? 'refused' : p.meta?.cancelled ? 'cancelled' : undefined, p.isError]]
            : [],
        )
      : [],
  ) as [string | undefined, boolean | undefined][];
}

const expected = [
  ['refused', true],
  ['cancelled', true],
];

describe('refused and cancelled calls across agents', () => {
  it('keep their marks into Claude Code, pi and OpenCode, and from each back into Gemini CLI', async () => {
    const { back } = await throughEncoders(gemini, home);
    for (const s of back) expect(marks(s), s.source).toEqual(expected);
    const driver = new GeminiDriver({ home, env: {} });
    for (const s of back) {
      const info = await driver.writeSession(s);
      expect(marks(await driver.getSession(info.id)), `${s.source} → gemini`).toEqual(expected);
    }
    // Claude Code's own words for them, on into pi and OpenCode
    const [fromClaude] = back;
    if (!fromClaude) throw new Error('no claude session');
    const again = await throughEncoders(fromClaude, join(home, 'again'));
    for (const s of again.back) expect(marks(s), `claude → ${s.source}`).toEqual(expected);
  });
});
