/**
 * Another agent's turn that failed mid-tool-call (the model called a tool, the request then failed; the
 * tool's result was recorded after it) written into pi and resumed by the real pi on the loopback
 * Anthropic stand-in. pi-ai's transformMessages leaves an assistant message whose stopReason is error or
 * aborted out of what it sends, but not the toolResult messages after it: written as results, pi 0.73
 * sent `tool_result toolu_failed` with no tool_use before it, which the Messages API refuses ("unexpected
 * tool_use_id found in tool_result blocks"). The writer keeps such a result as a custom entry pi does not
 * send; read back, it is the result again, and threadbase's pi context is what pi sends.
 */
import { describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSessionAll } from '../../src/convert/session.js';
import type { Message } from '../../src/model/types.js';
import { agentHomeForFile } from '../helpers/agents.js';
import '../../src/formats/all.js';
import type { Block } from '../helpers/claude-requests.js';
import { okProbeRule, readContext, readSession, resumeInTarget } from '../helpers/conversions.js';
import { chainSession, toolResultsOf } from '../helpers/sessions.js';

const home = agentHomeForFile({ rules: [okProbeRule], timeout: 120_000 });

const MODEL = { model: 'claude-sonnet-4-5', provider: 'anthropic' };

function failedMidTool(stopReason: 'error' | 'aborted') {
  const failed: Message = {
    role: 'assistant',
    ...MODEL,
    stopReason,
    error: 'API Error: overloaded',
    parts: [
      { type: 'text', text: 'Running it.' },
      { type: 'tool_call', id: 'toolu_failed', name: 'bash', input: { command: 'ls' } },
    ],
  };
  return chainSession(`failed-mid-tool-${stopReason}`, 'opencode', home.project, [
    ['u1', { role: 'user', parts: [{ type: 'text', text: 'list the files' }] }],
    ['a1', failed],
    ['r1', { role: 'tool', parts: [{ type: 'tool_result', callId: 'toolu_failed', name: 'bash', content: 'a.txt' }] }],
    ['u2', { role: 'user', parts: [{ type: 'text', text: 'try again' }] }],
    ['a2', { role: 'assistant', ...MODEL, parts: [{ type: 'text', text: 'Done.' }] }],
  ]);
}

const blocks = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content as Block[]);

describe('a turn that failed mid-tool-call, resumed by the real pi', () => {
  for (const stopReason of ['error', 'aborted'] as const)
    it(`${stopReason}: pi sends no result without its call; read back, the result is kept`, async () => {
      const [written] = await convertSessionAll(failedMidTool(stopReason), { to: 'pi', env: home.env });
      if (!written) throw new Error('nothing written');
      const sent = await resumeInTarget(home, 'pi', { id: written.id, source: 'pi', path: written.path ?? '' }, 'probe');

      // well-formed: every tool_result answers a tool_use of the assistant message right before it
      for (const [i, m] of sent.entries())
        for (const b of blocks(m.content).filter((x) => x.type === 'tool_result')) {
          const calls = blocks(sent[i - 1]?.content ?? []).filter((x) => x.type === 'tool_use');
          expect(calls.map((c) => c.id)).toContain(b.tool_use_id);
        }
      // pi leaves the failed turn out, as the agent it came from did (OpenCode skips a failed message)
      expect(sent.map((m) => [m.role, blocks(m.content).map((b) => b.text ?? b.type)])).toEqual([
        ['user', ['list the files']],
        ['user', ['try again']],
        ['assistant', ['Done.']],
        ['user', ['probe']],
      ]);
      // threadbase's context of the pi session (pi has added the probe's turn) is what pi sent
      const ours = contextToAnthropic(await readContext(home, 'pi', written.id)).messages;
      const texts = (ms: { content: unknown }[]) => ms.flatMap((m) => blocks(m.content).map((b) => b.text ?? b.type));
      expect(texts(ours)).toEqual([...texts(sent), 'ok: probe']);

      // read back: the result is there again
      const back = await readSession(home, 'pi', written.id);
      expect(toolResultsOf(back)).toEqual([expect.objectContaining({ callId: 'toolu_failed', content: 'a.txt' })]);
    }, 150_000);
});
