/**
 * A Claude Code session recorded by the real binary with hooks (a SessionStart hook's context and plain
 * output, a UserPromptSubmit hook's context) in plan mode, for test/agents/claude-additions-*.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { type AgentHome, runClaude } from './agents.js';

/** The words Claude Code 2.1.332 renders for each hook's output. */
export const SS_CONTEXT = 'SessionStart hook additional context: SS-CONTEXT from hook';
export const SS_PLAIN = 'SessionStart:startup hook success: PLAIN-SS from hook';
export const UPS_CONTEXT = 'UserPromptSubmit hook additional context: UPS-CONTEXT from hook';

async function writeHooks(home: AgentHome, hooks: Record<string, unknown>): Promise<void> {
  await fs.mkdir(join(home.root, '.claude'), { recursive: true });
  await fs.writeFile(join(home.root, '.claude', 'settings.json'), JSON.stringify({ hooks }));
}

/**
 * The id of a session the real claude records in plan mode with the hooks on, prompted 'hello there'
 * and then each of `more` (resumed); the hooks taken off after, so that what a resume sends is what was
 * recorded.
 */
export async function recordWithHooks(home: AgentHome, more: readonly string[] = []): Promise<string> {
  const json = (event: string, context: string) =>
    `echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: context } })}'`;
  await writeHooks(home, {
    SessionStart: [
      { hooks: [{ type: 'command', command: json('SessionStart', 'SS-CONTEXT from hook') }] },
      { hooks: [{ type: 'command', command: 'echo PLAIN-SS from hook' }] },
    ],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: json('UserPromptSubmit', 'UPS-CONTEXT from hook') }] }],
  });
  const id = (await runClaude(home, ['--permission-mode', 'plan', '--allowedTools', 'Bash'], 'hello there')).session_id;
  for (const prompt of more) await runClaude(home, ['--resume', id], prompt);
  await writeHooks(home, {});
  return id;
}
