/**
 * Tool calls the provider ran itself (`meta.providerExecuted`, e.g. OpenAI's web search in a codex
 * rollout): the API ran them while answering and kept the results on its side, so no client result
 * follows and none is owed. To another API or agent such a call is not a call it can send (it would
 * have to be answered, and an invented "no result" error tells the model its search failed), so it
 * goes as a short text note in its turn, which tells the model what was searched; the note carries
 * the call (`meta.providerCall`) for writers that keep it beside the text and give it back on reading.
 */
import type { Message, Part, TextPart, ToolCallPart } from '../model/types.js';

/** How views mark such a call where another call would show that its result is missing. */
export const PROVIDER_RAN = 'run by the provider, results not kept';

/** Whether a part is a tool call the provider ran itself. */
export function isProviderExecuted(p: Part): boolean {
  return p.type === 'tool_call' && p.meta?.providerExecuted === true;
}

/** The note a provider-executed call is sent as: its name and input, and that its results are not here. */
export function providerCallNote(call: ToolCallPart): string {
  return `[${call.name} (run by the provider; its results are not kept): ${JSON.stringify(call.input)}]`;
}

/** The text part that stands for a provider-executed call, carrying the call for the way back. */
export function providerCallText(call: ToolCallPart): TextPart {
  return { type: 'text', text: providerCallNote(call), meta: { providerCall: call } };
}

/** The provider-executed call a note text part stands for, if it is one. */
export function providerCallOf(p: Part): ToolCallPart | undefined {
  const call = p.type === 'text' ? p.meta?.providerCall : undefined;
  if (typeof call !== 'object' || call === null) return undefined;
  const c = call as Partial<ToolCallPart>;
  return c.type === 'tool_call' && typeof c.id === 'string' && typeof c.name === 'string' && typeof c.input === 'object'
    ? (call as ToolCallPart)
    : undefined;
}

/** A message with its provider-executed calls as note text parts (the same message when it has none). */
export function providerCallsAsNotes(m: Message): Message {
  if (!m.parts.some(isProviderExecuted)) return m;
  return { ...m, parts: m.parts.map((p) => (p.type === 'tool_call' && isProviderExecuted(p) ? providerCallText(p) : p)) };
}
