/**
 * Another agent's tool-call ids that repeat across turns (Kimi numbers the calls of each response:
 * `functions.bash:0` twice) written into pi and OpenCode, resumed by the real agents on the loopback
 * Anthropic stand-in. Both send the ids as recorded (seen: pi 0.73 and OpenCode sent `functions_bash_0`
 * for both calls), and the Messages API refuses a request whose `tool_use` ids repeat. The writers give
 * a later call whose id is taken a new one (`tb2_…`), its result the same, and keep the call's own id
 * beside it: read back, the session has the agent's ids again.
 */
import { describe, expect, it } from 'vitest';
import { convertSessionAll } from '../../src/convert/session.js';
import type { ToolCallPart } from '../../src/model/types.js';
import { agentHomeForFile } from '../helpers/agents.js';
import '../../src/formats/all.js';
import { sentToolResults } from '../helpers/anthropic-standin.js';
import type { Block } from '../helpers/claude-requests.js';
import { type AnthropicAgent, okProbeRule, readSession, resumeInTarget } from '../helpers/conversions.js';
import { repeatedToolIdSession, toolResultsOf } from '../helpers/sessions.js';

const home = agentHomeForFile({ rules: [okProbeRule], opencodeDatabase: true, timeout: 120_000 });

const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? (content as Block[]) : []);

describe('tool-call ids repeated across turns, resumed by the real agent', () => {
  for (const to of ['pi', 'opencode'] as AnthropicAgent[])
    it(`${to} sends unique tool_use ids, each result with its call's; read back, the agent's own ids`, async () => {
      const source = repeatedToolIdSession(home.project);
      const [written] = await convertSessionAll(source, { to, env: home.env });
      if (!written) throw new Error('nothing written');
      const sent = await resumeInTarget(home, to, { id: written.id, source: to, path: written.path ?? '' }, 'probe');

      const calls = sent.flatMap((m) => blocksOf(m.content).filter((b) => b.type === 'tool_use'));
      const ids = calls.map((b) => String(b.id));
      expect(calls.map((b) => (b.input as { command: string }).command)).toEqual(['ls', 'wc -l', 'date']);
      expect(new Set(ids).size).toBe(3);
      // each call's result right after it, with its id
      for (const [i, m] of sent.entries()) {
        const call = blocksOf(m.content).find((b) => b.type === 'tool_use');
        if (!call) continue;
        const result = blocksOf(sent[i + 1]?.content).find((b) => b.type === 'tool_result');
        expect(result?.tool_use_id).toBe(call.id);
      }
      const results = sentToolResults(sent);
      expect(results.map((b) => JSON.stringify(b.content))).toEqual(
        ['out 1', 'out 2', 'out 3'].map((t) => expect.stringContaining(t)),
      );

      // read back: the ids the source agent recorded (pi keeps an OpenAI id's item part apart: meta.piItemId)
      const recorded = (id: string, meta: ToolCallPart['meta']) =>
        typeof meta?.piItemId === 'string' ? `${id}|${meta.piItemId}` : id;
      const back = await readSession(home, to, written.id);
      const parts = back.entries.flatMap((e) => (e.kind === 'message' ? e.message.parts : []));
      expect(parts.filter((p): p is ToolCallPart => p.type === 'tool_call').map((p) => recorded(p.id, p.meta))).toEqual([
        'functions.bash:0',
        'functions.bash:0',
        'call_7|fc_7',
      ]);
      expect(toolResultsOf(back).map((p) => recorded(p.callId, p.meta))).toEqual([
        'functions.bash:0',
        'functions.bash:0',
        'call_7|fc_7',
      ]);
    }, 150_000);
});
