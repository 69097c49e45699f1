/**
 * What a Continue user message is when Continue wrote it itself: context items (files, @-mentions)
 * sent without a text of the user's (history.ts marks them while reading), undefined for any other.
 */
import type { Message } from '../../model/types.js';

export function continueInjectedLabel(m: Message): string | undefined {
  const kind = m.meta?.continueInjected;
  return typeof kind === 'string' ? `${kind}, added by Continue` : undefined;
}
