/**
 * What a Qwen Code message is when Qwen Code wrote it into the conversation itself (a background
 * notification, a scheduled prompt: records.ts marks them while reading), undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function qwenInjectedLabel(m: Message): string | undefined {
  const kind = m.meta?.qwenInjected;
  return typeof kind === 'string' ? `${kind}, added by Qwen Code` : undefined;
}
