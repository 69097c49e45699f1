/**
 * Thinking without a signature beside signed thinking in one reply, written into Copilot CLI: kept in the
 * assistant.message's `reasoningText` (Copilot CLI's readable reasoning, which it keeps and does not send; it
 * sends the thinking blocks alone: test/agents/copilot-unsigned-thinking.test.ts) and put back in its place by
 * `threadbase.unsignedThinking` (part-layout.ts); it was dropped. Claude Code → Copilot CLI → Claude Code keeps it.
 */
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copilotContext } from '../../src/formats/copilot/context.js';
import { type CopilotReadState, initialState, parseEvents } from '../../src/formats/copilot/events.js';
import { encodeCopilotEvents } from '../../src/formats/copilot/index.js';
import { buildContext } from '../../src/model/tree.js';
import type { Message, Part, Session } from '../../src/model/types.js';
import { chainSession, textMessage } from '../helpers/sessions.js';

const reply = (parts: Part[]): Message => ({ role: 'assistant', model: 'claude-sonnet-4-5', responseId: 'msg_1', parts });
const call: Part = { type: 'tool_call', id: 'toolu_1', name: 'bash', input: { command: 'ls' } };

/** `parts` written into Copilot CLI and read back: the reply's parts, and what the context sends of it */
async function roundTrip(
  parts: Part[],
  edit: (data: Record<string, unknown>) => void = () => {},
): Promise<{ read: Part[]; sent: Part[]; data: Record<string, unknown> }> {
  const session = chainSession('s', 'claude', '/p', [
    ['u1', textMessage('user', 'go')],
    ['a1', reply(parts)],
    ...(parts.some((p) => p.type === 'tool_call')
      ? ([['t1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_1', content: 'a.txt' }] }]] as [string, Message][])
      : []),
  ]);
  const { records } = encodeCopilotEvents(session);
  const data = (records as { type: string; data: Record<string, unknown> }[]).find((r) => r.type === 'assistant.message')
    ?.data as Record<string, unknown>;
  edit(data);
  const dir = await mkdtemp(join(tmpdir(), 'tb-copilot-unsigned-'));
  try {
    const file = join(dir, 'events.jsonl');
    await writeFile(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const state: CopilotReadState = initialState('s', '2026-01-01T00:00:00.000Z');
    const { entries } = await parseEvents(file, state);
    const s: Session = { ...session, entries, leafId: entries.at(-1)?.id ?? null };
    const find = (ms: Message[]) => ms.find((m) => m.role === 'assistant') as Message;
    return { read: find(buildContext(s).messages).parts, sent: find(copilotContext(s).messages).parts, data };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('unsigned thinking beside signed thinking, written into Copilot CLI', () => {
  const cases: [string, Part[]][] = [
    [
      'before the signed, text and a call after',
      [
        { type: 'thinking', thinking: 'plain first' },
        { type: 'thinking', thinking: 'signed', signature: 'SIG' },
        { type: 'text', text: 'answer' },
        call,
      ],
    ],
    [
      'between texts (ordered blocks), twice, with its meta',
      [
        { type: 'thinking', thinking: 'signed', signature: 'SIG' },
        { type: 'text', text: 'one' },
        { type: 'thinking', thinking: 'plain\n\nwith a blank line', meta: { piItemId: 'rs_1' } },
        { type: 'text', text: 'two' },
        { type: 'redacted_thinking', data: 'REDACTED' },
        { type: 'thinking', thinking: 'plain last' },
      ],
    ],
  ];
  for (const [name, parts] of cases)
    it(`is kept: ${name}`, async () => {
      const { read, sent, data } = await roundTrip(parts);
      expect(read).toEqual(parts);
      // sent as Copilot CLI sends it: the blocks alone
      expect(sent).toEqual(parts.filter((p) => p.type !== 'thinking' || p.signature));
      expect(data.reasoningText).toEqual(
        parts.flatMap((p) => (p.type === 'thinking' && !p.signature ? [p.thinking] : [])).join('\n\n'),
      );
    });

  it('a layout that no longer fits the reasoningText (edited) is ignored', async () => {
    const parts: Part[] = [
      { type: 'thinking', thinking: 'signed', signature: 'SIG' },
      { type: 'thinking', thinking: 'plain' },
      { type: 'text', text: 'answer' },
    ];
    const { read } = await roundTrip(parts, (d) => {
      d.reasoningText = 'edited by someone';
    });
    expect(read).toEqual([parts[0], parts[2]]);
  });
});
