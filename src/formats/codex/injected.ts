/**
 * What a codex message is when codex wrote it into the conversation itself rather than the user or
 * the model (items.ts marks them while reading a rollout): its developer instructions, the
 * environment context, AGENTS.md instructions, a shell command's note…; undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function codexInjectedLabel(m: Message): string | undefined {
  const meta = m.meta;
  // developer messages are read as system messages with their Responses role kept
  if (m.role === 'system' && meta?.codexRole === 'developer') return 'developer instructions';
  if (typeof meta?.codexInjected === 'string') return `${meta.codexInjected}, added by codex`;
  return undefined;
}
