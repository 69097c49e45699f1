/**
 * How an agent words, when it sends them, messages it records in other words (Claude Code's background
 * task notifications, sent wrapped in a reminder that they are no user input): each agent's format
 * registers its own (as it registers its context and its losses), and a conversion into another agent
 * writes such messages in the words the model was sent (session.ts).
 */
import type { Entry, Message } from '../model/types.js';
import { THREADBASE_SOURCE } from '../stores/shared.js';

/** A message in the words its agent sends it, where they are not its record's (the message itself otherwise). */
export type SentWording = (m: Message) => Message;

const sentWordings = new Map<string, SentWording>();

export function registerSentWording(agent: string, wording: SentWording): void {
  sentWordings.set(agent, wording);
}

/**
 * The messages of entries written into agent `target` in the words the agent they came from sends
 * them, so the target sends what the model was sent. Every agent's wording is asked but the target's
 * own (it words its records itself), and none into threadbase's store (a copy, as it was read): a
 * message's meta says whose it is, and a session in the index keeps the meta of the agent it was read from.
 */
export function withSentWording(entries: Entry[], target: string): Entry[] {
  if (target === THREADBASE_SOURCE) return entries;
  const wordings = [...sentWordings].flatMap(([agent, w]) => (agent === target ? [] : [w]));
  if (!wordings.length) return entries;
  return entries.map((e) => {
    if (e.kind !== 'message') return e;
    const message = wordings.reduce((m, w) => w(m), e.message);
    return message === e.message ? e : { ...e, message };
  });
}
