/**
 * What a Cline user message is when Cline wrote it into the conversation itself: the extension's
 * `<environment_details>` (open files, terminals, time) and the CLI's `<mode_notice>` (a plan/act
 * switch), when a message holds nothing else. sessions.ts marks them while reading.
 */
import type { Message, Part } from '../../model/types.js';

const INJECTED = /^\s*<(environment_details|mode_notice)>/;

/** The kind of a user message's parts when all its text is what Cline adds itself, else undefined. */
export function clineInjectedKind(parts: readonly Part[]): string | undefined {
  let kind: string | undefined;
  for (const p of parts) {
    if (p.type !== 'text') return undefined;
    const m = INJECTED.exec(p.text);
    if (!m) return undefined;
    kind ??= m[1];
  }
  return kind;
}

export function clineInjectedLabel(m: Message): string | undefined {
  const kind = m.meta?.clineInjected;
  return typeof kind === 'string' ? `${kind}, added by Cline` : undefined;
}
