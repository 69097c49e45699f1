/**
 * What Copilot CLI 1.0.102 sends when it resumes a session (`copilot --resume=<id>`), as seen
 * against the Anthropic stand-in (test/agents/copilot.test.ts): the path's messages as recorded, but
 * - a user message is sent as its `transformedContent` where it has one (the typed text with the
 *   `<current_datetime>` prefix Copilot CLI added when it was typed);
 * - an attached image or file as attachments.ts says (a PNG, JPEG, GIF or WebP image after a text of its name
 *   or `Attached image`, a document as its name, a text wrapped in `<attachment>`);
 * - a failed tool result is sent as its error message without an error flag;
 * - a compaction is sent as one user message that lists the user's messages before it (as typed) and
 *   wraps the summary (seen after `/compact`, test/fixtures/copilot/real-1.0.102-compact);
 * - a reply with thinking blocks is sent as its blocks in order (`reasoningBlocks`), one without as its
 *   texts joined with nothing (its `content`), then its calls (part-layout.ts);
 * - what it keeps but does not send is left out: system messages (system.message events), thinking
 *   without a signature (`reasoningText` alone; a response of nothing else is not sent at all), a
 *   tool result's images (`binaryResultsForLlm`: not sent with the Anthropic provider, neither when
 *   its `view` tool read an image nor on resume).
 * - the text of a user's or an assistant's message is sent with its trailing whitespace trimmed
 *   (spaces, tabs, newlines, no-break spaces; the leading kept), a text of whitespace alone not at all,
 *   and a message left with nothing not at all (its neighbours of one role then sent as one); a
 *   thinking block and a tool result are sent as recorded (test/agents/copilot-trailing-space.test.ts).
 * - the results after a response are sent in the order of its calls (inCallOrder), whatever order they
 *   were recorded in, and a user's message recorded among them after them all.
 * - a message of tool results and the user's message after it are sent as two user messages, not one
 *   (anthropicLayout; seen resuming a session whose resumed turn followed an abort's results,
 *   test/agents/copilot-interrupted.test.ts); results among themselves, and user's messages, go as one.
 * Copilot CLI puts its own fresh system prompt and tools before it (not part of this context).
 */
import type { AnthropicLaidOutContext } from '../../convert/anthropic.js';
import { buildContext, type ContextOptions, pathToLeaf } from '../../model/tree.js';
import type { CompactionEntry, Message, Part, Session } from '../../model/types.js';
import { sentAttachment, sentImage } from './attachments.js';
import { isFailedCall } from './failed-turns.js';

/** The message as Copilot CLI sends it, undefined when it sends nothing of it. */
function asSent(m: Message): Message | undefined {
  if (m.role === 'system' || isFailedCall(m)) return undefined;
  if (m.role === 'assistant') {
    const signed = (p: Part) => (p.type === 'thinking' && p.signature) || p.type === 'redacted_thinking';
    // with thinking blocks: its blocks in order (reasoningBlocks); else its content (its texts joined), then its calls
    if (m.parts.some(signed)) {
      if (!m.parts.some((p) => p.type === 'thinking' && !p.signature)) return m;
      return { ...m, parts: m.parts.filter((p) => p.type !== 'thinking' || p.signature) };
    }
    const texts = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
    const calls = m.parts.filter((p) => p.type === 'tool_call');
    const parts: Part[] = [...(texts.length ? [{ type: 'text' as const, text: texts.join('') }] : []), ...calls];
    if (parts.length === m.parts.length && parts.every((p, i) => p === m.parts[i])) return m;
    return parts.length ? { ...m, parts } : undefined;
  }
  if (m.role === 'user') {
    const transformed = m.meta?.copilotTransformedContent;
    const parts: Part[] = [];
    let textDone = false;
    for (const p of m.parts) {
      if (p.type === 'text' && typeof transformed === 'string') {
        // the recorded `content` is one text part: sent as what the model got when it was typed
        if (!textDone) parts.push({ ...p, text: transformed });
        textDone = true;
      } else if (p.type === 'image') parts.push(...sentImage(p));
      else if (p.type === 'file') parts.push(...(sentAttachment(p) ?? [p]));
      else parts.push(p);
    }
    return { ...m, parts };
  }
  const imageOrError = (p: Part) =>
    p.type === 'tool_result' && (p.isError || (Array.isArray(p.content) && p.content.some((c) => c.type === 'image')));
  if (!m.parts.some(imageOrError)) return m;
  return {
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'tool_result') return p;
      const { isError: _flag, ...sent } = p;
      if (!Array.isArray(sent.content)) return sent;
      // its text alone, as Copilot CLI sends a result (result.content)
      const text = sent.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
      return { ...sent, content: text };
    }),
  };
}

/** A user's or an assistant's message with its texts' trailing whitespace trimmed, those of nothing else dropped, as Copilot CLI sends them. */
function trimmedTexts(m: Message): Message | undefined {
  if (m.role !== 'user' && m.role !== 'assistant') return m;
  if (!m.parts.some((p) => p.type === 'text' && p.text !== p.text.trimEnd())) return m;
  const parts = m.parts.flatMap((p): Part[] => {
    if (p.type !== 'text') return [p];
    const text = p.text.trimEnd();
    return text ? [{ ...p, text }] : [];
  });
  return parts.length ? { ...m, parts } : undefined;
}

/** The text Copilot CLI sends for a compaction: the user's messages before it, then the summary. */
export function copilotCompactionText(summary: string, userMessages: readonly string[]): string {
  const typed = userMessages.map((m) => `<user_message>\n${m}\n</user_message>`).join('\n');
  return (
    'Some of the conversation history has been summarized to free up context.\n\n' +
    'You were originally given instructions from a user over one or more turns. Here were the user messages:\n' +
    `${typed}\n\nHere is a summary of the prior context:\n<summary>\n${summary}\n</summary>`
  );
}

/** For each compaction on the path to the leaf: the text of the user's own messages before it. */
function typedBefore(session: Session, leafId: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const typed: string[] = [];
  for (const e of pathToLeaf(session, leafId)) {
    if (e.kind === 'compaction') out.set(e.id, [...typed]);
    else if (e.kind === 'message' && e.message.role === 'user' && !e.sidechain && !e.message.meta?.copilotInjected) {
      const text = e.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      if (text) typed.push(text);
    }
  }
  return out;
}

/**
 * The results after a response in the order of its calls, as Copilot CLI sends them (whatever order they
 * finished in: seen with the real 1.0.102, test/agents/copilot-interrupted.test.ts), and a user's message
 * recorded among them (typed while the calls ran, `delivery: "steering"`) after them all, as it sends one
 * (test/agents/copilot-steering.test.ts); such a run becomes one message of its results so ordered, then
 * the user's messages.
 */
function inCallOrder(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    out.push(m);
    if (m.role !== 'assistant') continue;
    const order = new Map(m.parts.flatMap((p, n) => (p.type === 'tool_call' ? [[p.id, n] as const] : [])));
    if (order.size === 0) continue;
    // its results, and the user's messages up to its last result
    let end = i + 1;
    for (let j = i + 1; j < messages.length && (messages[j]?.role === 'tool' || messages[j]?.role === 'user'); j++)
      if (messages[j]?.role === 'tool') end = j + 1;
    const run = messages.slice(i + 1, end);
    const said = run.filter((r) => r.role !== 'tool');
    const parts = run.flatMap((r) => (r.role === 'tool' ? r.parts : []));
    const rank = (p: Part) => (p.type === 'tool_result' ? (order.get(p.callId) ?? order.size) : order.size);
    const sorted = parts.map((p, n) => ({ p, n })).sort((a, b) => rank(a.p) - rank(b.p) || a.n - b.n);
    if (said.length === 0 && sorted.every((s, n) => s.n === n)) continue;
    const results = run.find((r) => r.role === 'tool') as Message;
    out.push({ ...results, parts: sorted.map((s) => s.p) }, ...said);
    i = end - 1;
  }
  return out;
}

export function copilotContext(session: Session, opts: ContextOptions = {}): AnthropicLaidOutContext {
  const typed = session.leafId || opts.leafId ? typedBefore(session, opts.leafId) : new Map<string, string[]>();
  const compactionText = (c: CompactionEntry) => copilotCompactionText(c.summary, typed.get(c.id) ?? []);
  const ctx = buildContext(session, { compactionText, ...opts });
  return {
    ...ctx,
    anthropicLayout: { resultsApartFromUser: true },
    messages: inCallOrder(
      ctx.messages.flatMap((m) => {
        const sent = asSent(m);
        return (sent && trimmedTexts(sent)) ?? [];
      }),
    ),
  };
}
