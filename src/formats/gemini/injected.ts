/**
 * What a Gemini CLI message is when Gemini CLI wrote it into the conversation itself (its session
 * context, chats.ts marks it while reading), undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function geminiInjectedLabel(m: Message): string | undefined {
  const kind = m.meta?.geminiInjected;
  return typeof kind === 'string' ? `${kind}, added by Gemini CLI` : undefined;
}
