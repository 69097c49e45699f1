import { resolve } from 'node:path';
import { type AgentHome, runBinary, setupAgentHome } from './agents.js';
import type { AnthropicBlock, AnthropicRequest, Rule } from './anthropic-standin.js';
import { requestEndingWithProbe } from './conversions.js';

export const QWEN_BIN = resolve('node_modules/.bin/qwen');
export const QWEN_MODEL = 'claude-standin';

export function setupQwenHome(opts: { rules?: Rule[] } = {}): Promise<AgentHome> {
  return setupAgentHome(opts);
}

/** Runs `qwen <args>` in `cwd` (the home's project); rejects with its output when it fails or hangs. */
export async function runQwen(home: AgentHome, args: string[], cwd = home.project): Promise<string> {
  const qwenArgs = [QWEN_BIN, '--auth-type', 'anthropic', '--approval-mode', 'yolo', ...args];
  const r = await runBinary(process.execPath, qwenArgs, cwd, {
    PATH: process.env.PATH ?? '',
    HOME: home.root,
    ANTHROPIC_API_KEY: 'offline',
    ANTHROPIC_BASE_URL: home.standIn.url,
    ANTHROPIC_MODEL: QWEN_MODEL,
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
    NO_COLOR: '1',
    TERM: 'dumb',
  });
  return r.stdout + r.stderr;
}

/** The request Qwen Code sent whose last user text is `probe` (its own system reminders aside). */
export function requestEndingWith(home: AgentHome, probe: string): AnthropicRequest {
  return requestEndingWithProbe(home, probe, 'qwen');
}

/**
 * Whether a block is one of Qwen Code's own `<system-reminder>` texts, which it adds to the first and the
 * new user turn of every request (not the conversation it resumes: tests leave them out to compare).
 */
export function isQwenReminder(b: AnthropicBlock): boolean {
  return b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>');
}
