/**
 * One short Claude Agent SDK run (a Bash tool call, its output, a closing answer) as
 * ClaudeAgentStorage receives it, and the Messages API context it must come back as; shared by the
 * tests that store it and then read it through the CLI.
 */
import type { ClaudeAgentStorage } from '../../src/convert/agent-storage.js';

/** Where the run says it ran (its `init` message). */
export const ECHO_HI_PROJECT = '/work/app';

/** Saves the run's messages under `sessionId`; usage adds up to 30 input and 11 output tokens. */
export async function saveEchoHiRun(storage: ClaudeAgentStorage, sessionId: string): Promise<void> {
  const sdk = (type: 'user' | 'assistant', message: Record<string, unknown>) => ({
    type,
    message,
    session_id: sessionId,
    parent_tool_use_id: null,
  });
  await storage.saveMessage({ type: 'system', subtype: 'init', session_id: sessionId, cwd: ECHO_HI_PROJECT });
  await storage.saveMessage(sdk('user', { role: 'user', content: 'RUN: echo hi' }));
  await storage.saveMessage(
    sdk('assistant', {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    }),
  );
  await storage.saveMessage(
    sdk('user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi\n' }] }),
  );
  await storage.saveMessage(
    sdk('assistant', {
      id: 'msg_2',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'It printed hi.' }],
      usage: { input_tokens: 20, output_tokens: 6 },
    }),
  );
}

/** The run's context as `context --format anthropic` prints its messages. */
export const ECHO_HI_ANTHROPIC_MESSAGES = [
  { role: 'user', content: [{ type: 'text', text: 'RUN: echo hi' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi\n' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'It printed hi.' }] },
];
