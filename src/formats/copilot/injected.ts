/**
 * What a Copilot CLI message is when Copilot CLI wrote it into the conversation itself (a
 * `system.notification`, events.ts marks it while reading), undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function copilotInjectedLabel(m: Message): string | undefined {
  const kind = m.meta?.copilotInjected;
  return typeof kind === 'string' ? `${kind}, added by Copilot CLI` : undefined;
}
