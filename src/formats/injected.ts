/**
 * One place that names a message an agent wrote into the conversation itself (its instructions, the
 * environment it describes, a note about a local command) rather than the user or the model. Each
 * agent's folder knows its own marks; this maps its source name to that knowledge. Every labeler is
 * asked, not only the session's own agent's: a session in the index or in threadbase's own store
 * keeps the meta of the agent it was read from.
 */
import type { Message } from '../model/types.js';
import { claudeInjectedLabel } from './claude/injected.js';
import { clineInjectedLabel } from './cline/injected.js';
import { codexInjectedLabel } from './codex/injected.js';
import { continueInjectedLabel } from './continue/injected.js';
import { copilotInjectedLabel } from './copilot/injected.js';
import { geminiInjectedLabel } from './gemini/injected.js';
import { qwenInjectedLabel } from './qwen/injected.js';

/** A message's label when the agent wrote it itself, else undefined. */
export type InjectedLabeler = (m: Message) => string | undefined;

/** source → what that agent's injected messages are; in the order they are asked. */
export const INJECTED_LABELERS: ReadonlyMap<string, InjectedLabeler> = new Map([
  ['codex', codexInjectedLabel],
  ['gemini', geminiInjectedLabel],
  ['qwen', qwenInjectedLabel],
  ['cline', clineInjectedLabel],
  ['copilot', copilotInjectedLabel],
  ['continue', continueInjectedLabel],
  ['claude', claudeInjectedLabel],
]);

/**
 * What a message is when its agent wrote it into the conversation itself, e.g. 'developer
 * instructions', 'environment_context, added by codex'; any other system message is the 'system
 * prompt'; undefined for the user's and the model's own messages.
 */
export function injectedLabel(m: Message): string | undefined {
  for (const label of INJECTED_LABELERS.values()) {
    const named = label(m);
    if (named) return named;
  }
  return m.role === 'system' ? 'system prompt' : undefined;
}
