/**
 * What a Claude Code message is when Claude Code wrote it into the conversation itself rather than
 * the user or the model (parse.ts keeps the record's `origin` and `isMeta` in meta.claude): a
 * background task's notification written as the user's turn, or one of its meta notes (a local
 * command's caveat, a skill's text); undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function claudeInjectedLabel(m: Message): string | undefined {
  const claude = m.meta?.claude;
  if (typeof claude !== 'object' || claude === null || Array.isArray(claude)) return undefined;
  const { origin, isMeta } = claude as { origin?: unknown; isMeta?: unknown };
  const kind = typeof origin === 'object' && origin !== null ? (origin as { kind?: unknown }).kind : undefined;
  if (m.role === 'user' && typeof kind === 'string') return `${kind}, added by Claude Code`;
  // a system record is the system prompt, as any agent's (injected.ts), meta or not
  if (isMeta === true && m.role !== 'system') return 'added by Claude Code';
  return undefined;
}
