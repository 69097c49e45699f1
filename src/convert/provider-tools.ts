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

/** What every note says of the call: that the provider ran it and its results are not here. */
const RAN = 'run by the provider; its results are not kept';

/**
 * The note a provider-executed call is sent as, saying what it did and that its results are not here.
 * A web search (codex's `web_search_call`, its `action` as the input) reads as a person would put it,
 * per action: `[web search (…): "query"]` (each of `queries` beside `query`), `[opened page URL (…)]`,
 * `[searched page URL for "pattern" (…)]`; any other call, or an action without what it names, is its
 * name and input as JSON: `[name (…): {…}]`. Only what is sent: the writers keep the call beside the
 * note and read it back from there, never from this text.
 */
export function providerCallNote(call: ToolCallPart): string {
  return (
    (call.name === 'web_search' ? webSearchNote(call.input) : undefined) ??
    `[${call.name} (${RAN}): ${JSON.stringify(call.input)}]`
  );
}

/** A string as the note quotes it (JSON's quoting: inner quotes and line breaks escaped). */
const quoted = (s: string): string => JSON.stringify(s);
/** A URL as it is, or quoted when it has blanks (the note's words must stay apart from it). */
const urlText = (url: string): string => (/^\S+$/.test(url) ? url : quoted(url));
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The note of one web search action (codex's WebSearchAction: search, open_page, find_in_page; the API reference's `find` alike). */
function webSearchNote(action: Record<string, unknown>): string | undefined {
  const { type, url, pattern } = action;
  if (type === 'search') {
    const queries = [action.query, ...(Array.isArray(action.queries) ? action.queries : [])].filter(nonEmpty);
    const distinct = [...new Set(queries)];
    return distinct.length ? `[web search (${RAN}): ${distinct.map(quoted).join(', ')}]` : undefined;
  }
  if (type === 'open_page' && nonEmpty(url)) return `[opened page ${urlText(url)} (${RAN})]`;
  if ((type === 'find_in_page' || type === 'find') && nonEmpty(url) && nonEmpty(pattern))
    return `[searched page ${urlText(url)} for ${quoted(pattern)} (${RAN})]`;
  return undefined;
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
