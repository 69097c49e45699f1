/**
 * Claude Code records a response one entry per content block and each parallel call's result as the
 * call ends, so a fast second call's result can come before the first's. Written into OpenCode (which
 * keeps a result in its call's part), the response is one message, its calls one step, as OpenCode
 * records parallel calls; OpenCode sends their results in the order of the calls, and read back the
 * results come in the order they came in, so Claude Code resumes the copy converted back as it
 * resumes the original.
 */
import { describe, expect, it } from 'vitest';
import { opencodeContext, sessionFromExport, sessionToExport } from '../../src/formats/opencode/index.js';
import { pathToLeaf } from '../../src/model/tree.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
/** One record of Claude Code's response `msg_1`. */
const block = (parts: Message['parts']): Message => ({
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  responseId: 'msg_1',
  usage,
  parts,
});
const call = (id: string, command: string) => ({ type: 'tool_call' as const, id, name: 'Bash', input: { command } });
const result = (callId: string, content: string): Message => ({
  role: 'tool',
  parts: [{ type: 'tool_result', callId, content }],
});

/** Two parallel calls, their results in the order Claude Code recorded them: the fast call's first, else in call order. */
function claudeSession(fastFirst = true): Session {
  const results = fastFirst
    ? [result('toolu_2', 'fast'), result('toolu_1', 'slow')]
    : [result('toolu_1', 'slow'), result('toolu_2', 'fast')];
  const entries: Entry[] = [
    messageEntry('u1', null, 1, textMessage('user', 'two at once')),
    messageEntry('a1', 'u1', 2, block([{ type: 'text', text: 'Running both.' }])),
    messageEntry('a2', 'a1', 3, block([call('toolu_1', 'sleep 3; echo slow')])),
    messageEntry('a3', 'a2', 4, block([call('toolu_2', 'echo fast')])),
    messageEntry('r1', 'a3', 5, results[0] as Message),
    messageEntry('r2', 'r1', 8, results[1] as Message),
    messageEntry('a4', 'r2', 9, { ...textMessage('assistant', 'Both done.'), model: 'claude-sonnet-4-5', responseId: 'msg_2' }),
  ];
  return { id: 'claude-parallel', source: 'claude', project: '/w', createdAt: '', updatedAt: '', messageCount: 0, entries };
}

/** A session's path as role: parts (texts, calls and results by id). */
const shape = (messages: readonly Message[]) =>
  messages.map((m) => [
    m.role,
    ...m.parts.map((p) =>
      p.type === 'text'
        ? p.text
        : p.type === 'tool_call'
          ? `call ${p.id}`
          : p.type === 'tool_result'
            ? `result ${p.callId}`
            : p.type,
    ),
  ]);

describe('claude → opencode: parallel calls whose results came in another order', () => {
  const exported = sessionToExport(claudeSession(), { sessionId: 'ses_parallel', directory: '/w' });
  const back = sessionFromExport(exported, 'ses_parallel.json');

  it('the response is one OpenCode message, its calls one step', () => {
    const assistants = exported.messages.filter((m) => m.info.role === 'assistant');
    expect(assistants.map((m) => m.parts.map((p) => p.type))).toEqual([
      ['step-start', 'text', 'tool', 'tool', 'step-finish'],
      ['step-start', 'text', 'step-finish'],
    ]);
  });

  it('reads back with the results in the order they came; OpenCode sends them in the order of the calls', () => {
    const path = pathToLeaf(back).flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(shape(path)).toEqual([
      ['user', 'two at once'],
      ['assistant', 'Running both.', 'call toolu_1', 'call toolu_2'],
      ['tool', 'result toolu_2', 'result toolu_1'],
      ['assistant', 'Both done.'],
    ]);
    expect(shape(opencodeContext(back).messages)).toEqual([
      ['user', 'two at once'],
      ['assistant', 'Running both.', 'call toolu_1', 'call toolu_2'],
      ['tool', 'result toolu_1', 'result toolu_2'],
      ['assistant', 'Both done.'],
    ]);
    // the response's usage once (OpenCode sums each message's)
    expect(path.filter((m) => m.usage?.input === 10)).toHaveLength(1);
  });

  it('results in the order of their calls are written without the order kept', () => {
    const written = sessionToExport(claudeSession(false), { sessionId: 'ses_in_order', directory: '/w' });
    expect(JSON.stringify(written)).not.toContain('resultOrder');
    const path = pathToLeaf(sessionFromExport(written, 'ses_in_order.json'));
    expect(shape(path.flatMap((e) => (e.kind === 'message' ? [e.message] : [])))[2]).toEqual([
      'tool',
      'result toolu_1',
      'result toolu_2',
    ]);
  });
});
