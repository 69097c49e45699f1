/**
 * The real Claude Code runs two parallel Bash calls, a slow one first: it records the fast one's result
 * first and sends the results in that order on resume. Carried claude → opencode → claude, Claude Code
 * resumes the copy as it resumes the original (the results came back in call order: OpenCode keeps a
 * result in its call's part). The real OpenCode resumes its copy with the calls as one turn and their
 * results in the order of the calls, as threadbase's context of it has them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { convertSession } from '../../src/convert/session.js';
import '../../src/formats/all.js';
import { type AgentHome, createOpencodeDatabase, runClaude, setupAgentHome } from '../helpers/agents.js';
import type { Rule } from '../helpers/anthropic-standin.js';
import { type Block, comparable, type Msg } from '../helpers/claude-requests.js';
import { readContext, readSession, resumeInTarget, textOf } from '../helpers/conversions.js';

let home: AgentHome;
let sessionId: string;

/** `SLOWFAST`: a text and two Bash calls in one response, the first one slow. */
const slowFastRule: Rule = (req) => {
  const last = [...req.messages].reverse().find((m) => m.role === 'user');
  if (!last || (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result'))) return undefined;
  if (!(textOf(last.content as string | Block[]).at(-1) ?? '').startsWith('SLOWFAST')) return undefined;
  return {
    text: 'Two at once.',
    toolUses: [
      { name: 'Bash', input: { command: 'sleep 3; echo slow', description: 'slow' } },
      { name: 'Bash', input: { command: 'echo fast', description: 'fast' } },
    ],
  };
};

/** Each message as its role and its texts, calls and results (by the command or the output). */
const shape = (messages: { role: string; content: Block[] }[]) =>
  messages.map((m) => [
    m.role,
    ...m.content.map((b) =>
      b.type === 'tool_use'
        ? `call ${(b.input as { command: string }).command}`
        : b.type === 'tool_result'
          ? `result ${JSON.stringify(b.content)}`
          : String(b.text ?? b.type),
    ),
  ]);

beforeAll(async () => {
  home = await setupAgentHome({ rules: [slowFastRule] });
  await createOpencodeDatabase(home);
  sessionId = (await runClaude(home, ['--allowedTools', 'Bash'], 'SLOWFAST please')).session_id;
}, 300_000);

afterAll(async () => {
  await home?.close();
});

describe('claude → opencode → claude of parallel calls whose results Claude Code recorded out of call order', () => {
  it('Claude Code resumes the copy as the original; OpenCode resumes its copy with the calls as one turn', async () => {
    const source = await readSession(home, 'claude', sessionId);
    const original = await resumeInTarget(home, 'claude', { id: sessionId, source: 'claude', path: '' }, 'probe original');
    const results = shape(comparable(original, 'probe original')).find((m) => m[1]?.startsWith('result'));
    expect(results).toEqual(['user', 'result [{"type":"text","text":"fast"}]', 'result [{"type":"text","text":"slow"}]']);

    const written = await convertSession(source, { to: 'opencode', env: home.env });
    const inOpencode = await readSession(home, 'opencode', written.id);
    const back = await convertSession(inOpencode, { to: 'claude', env: home.env });
    const copy = await resumeInTarget(home, 'claude', { id: back.id, source: 'claude', path: '' }, 'probe copy');
    expect(comparable(copy, 'probe copy')).toEqual(comparable(original, 'probe original'));

    const path = (written as { path?: string }).path ?? '';
    const ours = contextToAnthropic(await readContext(home, 'opencode', written.id)).messages as Msg[];
    const sent = await resumeInTarget(home, 'opencode', { id: written.id, source: 'opencode', path }, 'probe opencode');
    expect(comparable(sent, 'probe opencode')).toEqual(comparable(ours));
    expect(shape(comparable(sent, 'probe opencode')).slice(1, 3)).toEqual([
      ['assistant', 'Two at once.', 'call sleep 3; echo slow', 'call echo fast'],
      ['user', 'result [{"type":"text","text":"slow"}]', 'result [{"type":"text","text":"fast"}]'],
    ]);
  });
});
