/**
 * A sub-agent asked to run its own sub-agent, by the real binaries offline on the loopback stand-ins:
 * - Qwen Code 0.24.4 does (maxSubagentDepth 5): both transcripts in `subagents/<main>/`, and threadbase
 *   reads the three levels, each naming the `agent` call (in its parent) that ran it;
 * - Gemini CLI 0.61.0 cannot: a sub-agent's requests declare no `invoke_agent`, its call of it anyway is
 *   refused, and the one sub-agent chat there is read under the main chat, naming its `invoke_agent` call.
 * (What they write is kept as fixtures: test/fixtures/qwen/real-0.24.4-nested, gemini/real-0.61.0-subagent.)
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { GeminiDriver } from '../../src/formats/gemini/index.js';
import { QwenDriver } from '../../src/formats/qwen/index.js';
import type { Session } from '../../src/model/types.js';
import { type AnthropicRequest, textOf } from '../helpers/anthropic-standin.js';
import { runGemini, setupGeminiHome } from '../helpers/gemini.js';
import type { GeminiRequest } from '../helpers/gemini-standin.js';
import { runQwen, setupQwenHome } from '../helpers/qwen.js';
import { callIds } from '../helpers/sub-agents.js';

const hasToolResult = (req: AnthropicRequest) => {
  const last = req.messages.at(-1);
  return typeof last?.content !== 'string' && (last?.content ?? []).some((b) => b.type === 'tool_result');
};

describe('qwen: a sub-agent that runs its own', () => {
  it('writes both in the main session’s subagents folder; threadbase reads the three levels with their calls', async () => {
    const home = await setupQwenHome({
      rules: [
        // `AGENT: <rest>` → an agent call with <rest> as its prompt: "AGENT: AGENT: x" nests twice
        (req) => {
          const m = hasToolResult(req) ? null : /AGENT: (.+)/.exec(textOf(req.messages.at(-1)));
          if (!m || !req.tools?.some((t) => t.name === 'agent')) return undefined;
          const prompt = (m[1] as string).trim();
          return {
            toolUse: {
              name: 'agent',
              input: {
                description: prompt.startsWith('AGENT:') ? 'sub task' : 'deeper task',
                prompt,
                subagent_type: 'general-purpose',
              },
            },
          };
        },
        // any other user turn: plain text (the default echoes Qwen Code's <system-reminder> tags, which it refuses)
        (req) => (hasToolResult(req) ? undefined : { text: `done (${req.messages.length} messages)` }),
      ],
    });
    try {
      await runQwen(home, ['AGENT: AGENT: count the files']);
      const driver = new QwenDriver(home.env);
      const sessions = await driver.listSessions();
      const main = sessions.find((s) => !s.parentId);
      const child = sessions.find((s) => s.parentId === main?.id);
      const grandchild = sessions.find((s) => s.parentId === child?.id);
      expect(sessions).toHaveLength(3);
      expect(grandchild?.title).toBe('count the files');
      const full = async (id: string | undefined) => (await driver.getSession(id as string)) as Session;
      // each names a call its parent holds
      expect(callIds(await full(main?.id))).toContain(child?.parentToolCallId);
      expect(callIds(await full(child?.id))).toContain(grandchild?.parentToolCallId);
      const folder = join(home.root, '.qwen', 'projects');
      const [project] = await fs.readdir(folder);
      const sub = join(folder, project as string, 'subagents', main?.id as string);
      const meta = JSON.parse(await fs.readFile(join(sub, `agent-${grandchild?.id}.meta.json`), 'utf8')) as Record<
        string,
        unknown
      >;
      expect(meta).toMatchObject({ parentSessionId: main?.id, parentAgentId: child?.id, depth: 1, description: 'deeper task' });
    } finally {
      await home.close();
    }
  }, 180_000);
});

const declared = (req: GeminiRequest) => (req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
const lastUser = (req: GeminiRequest) => JSON.stringify(req.contents.findLast((c) => c.role === 'user') ?? {});

describe('gemini: a sub-agent that tries to run its own', () => {
  it('is refused (no agent tools in a sub-agent); its chat is read under the main chat, naming the call', async () => {
    const home = await setupGeminiHome({
      rules: [
        (req) => {
          const tools = declared(req);
          const last = lastUser(req);
          if (tools.includes('invoke_agent'))
            return last.includes('functionResponse')
              ? { text: 'the sub-agent is done' }
              : last.includes('AGENT:')
                ? { call: { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'NESTED: count the files' } } }
                : undefined;
          // the sub-agent (it has complete_task): asks for a sub-agent of its own, then finishes
          if (tools.includes('complete_task'))
            return last.includes('functionResponse')
              ? { call: { name: 'complete_task', args: { result: { response: 'no deeper agent here' } } } }
              : { call: { name: 'invoke_agent', args: { agent_name: 'generalist', prompt: 'deeper: count the files' } } };
          return undefined;
        },
      ],
    });
    try {
      await runGemini(home, ['--yolo', '-p', 'AGENT: count the files']);
      const subRequests = home.standIn.chatRequests().filter((r) => declared(r).includes('complete_task'));
      expect(subRequests.length).toBeGreaterThan(0);
      for (const r of subRequests) expect(declared(r)).not.toContain('invoke_agent');
      expect(lastUser(subRequests[1] as GeminiRequest)).toContain(
        "Unauthorized tool call: 'invoke_agent' is not available to this agent.",
      );

      const driver = new GeminiDriver(home.env);
      const sessions = await driver.listSessions();
      expect(sessions).toHaveLength(2);
      const main = sessions.find((s) => !s.parentId) as Session;
      const sub = sessions.find((s) => s.parentId === main.id);
      const mainCalls = callIds((await driver.getSession(main.id)) as Session);
      expect(mainCalls).toHaveLength(1);
      expect(sub?.parentToolCallId).toBe(mainCalls[0]);
      const chats = join(home.root, '.gemini', 'tmp', 'proj', 'chats');
      expect(await fs.readdir(join(chats, main.id))).toEqual([`${sub?.id}.jsonl`]);
    } finally {
      await home.close();
    }
  }, 180_000);
});
