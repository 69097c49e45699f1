/**
 * How an agent words, when it sends them, messages it records in other words (Claude Code's background
 * task notifications, sent wrapped in a reminder that they are no user input), and what it sends for
 * records that are no messages (Claude Code's hook output and plan-mode reminders, attachment records it
 * renders into the request): each agent's format registers its own (as it registers its context and its
 * losses), and a conversion into another agent writes such messages in the words the model was sent,
 * and such records as the messages it was sent (session.ts).
 */
import type { Entry, Message } from '../model/types.js';
import { THREADBASE_SOURCE } from '../stores/shared.js';

/** A message in the words its agent sends it, where they are not its record's (the message itself otherwise). */
export type SentWording = (m: Message) => Message;

/** Entries with those that are no messages but were sent as some (metadata an agent renders into its requests) made those messages. */
export type SentEntries = (entries: readonly Entry[]) => Entry[];

const sentWordings = new Map<string, SentWording>();
const sentEntries = new Map<string, SentEntries>();

export function registerSentWording(agent: string, wording: SentWording, entries?: SentEntries): void {
  sentWordings.set(agent, wording);
  if (entries) sentEntries.set(agent, entries);
  else sentEntries.delete(agent);
}

/**
 * The messages of entries written into agent `target` in the words the agent they came from sends
 * them, and the records it sent as messages made those messages (first), so the target sends what the
 * model was sent. Every agent's wording is asked but the target's own (it words its records itself), and none into threadbase's store (a copy, as it was read): a
 * message's meta says whose it is, and a session in the index keeps the meta of the agent it was read from.
 */
export function withSentWording(given: Entry[], target: string): Entry[] {
  if (target === THREADBASE_SOURCE) return given;
  const entries = [...sentEntries].reduce((es, [agent, sent]) => (agent === target ? es : sent(es)), given);
  const wordings = [...sentWordings].flatMap(([agent, w]) => (agent === target ? [] : [w]));
  if (!wordings.length) return entries;
  return entries.map((e) => {
    if (e.kind !== 'message') return e;
    const message = wordings.reduce((m, w) => w(m), e.message);
    return message === e.message ? e : { ...e, message };
  });
}
