/**
 * The real Qwen Code (node_modules/.bin/qwen, 0.24.4) in a temp HOME against the loopback Anthropic
 * stand-in (`--auth-type anthropic`, ANTHROPIC_BASE_URL), yolo approval, one-shot prompts, so it runs
 * offline and headless. It keeps its chats under `$HOME/.qwen/projects/<project>/chats`.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { type AgentHome, setupAgentHome } from './agents.js';
import type { AnthropicRequest, Rule } from './anthropic-standin.js';
import { textOf } from './conversions.js';

export const QWEN_BIN = resolve('node_modules/.bin/qwen');
export const QWEN_MODEL = 'claude-standin';

export function setupQwenHome(opts: { rules?: Rule[] } = {}): Promise<AgentHome> {
  return setupAgentHome(opts);
}

/** Runs `qwen <args>` in `cwd` (the home's project); rejects with its output when it fails or hangs. */
export function runQwen(home: AgentHome, args: string[], cwd = home.project): Promise<string> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, [QWEN_BIN, '--auth-type', 'anthropic', '--approval-mode', 'yolo', ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home.root,
        ANTHROPIC_API_KEY: 'offline',
        ANTHROPIC_BASE_URL: home.standIn.url,
        ANTHROPIC_MODEL: QWEN_MODEL,
        QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
        NO_COLOR: '1',
        TERM: 'dumb',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += String(d);
    });
    p.stderr.on('data', (d) => {
      out += String(d);
    });
    const timer = setTimeout(() => p.kill(), 120_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) done(out);
      else fail(new Error(`qwen ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`));
    });
  });
}

/** The request Qwen Code sent whose last user text is `probe` (its own system reminders aside). */
export function requestEndingWith(home: AgentHome, probe: string): AnthropicRequest {
  const req = home.standIn.messageRequests().find((r) => {
    const last = r.messages.at(-1);
    return last?.role === 'user' && textOf(last.content as Parameters<typeof textOf>[0]).at(-1) === probe;
  });
  if (!req) throw new Error(`qwen sent no request ending with ${probe}`);
  return req;
}
