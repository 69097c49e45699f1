/**
 * The context OpenCode sends when it resumes a session (SessionPrompt → MessageV2.filterCompacted →
 * toModelMessages): the path's messages, a finished compaction as its request ("What did we do so
 * far?") answered by the summary, then the kept tail and what followed; failed assistant messages
 * and messages left with no parts are not sent. Reasoning is sent as the AI SDK's reasoning part with its
 * provider metadata, which the Anthropic provider sends only as signed or redacted thinking and the
 * OpenAI one only with its encrypted content: thinking with neither (another agent's) is not sent, but a
 * reply of it only is, as the text threadbase wrote it as (encode.ts).
 */
import { buildContext, type Context, type ContextOptions } from '../../model/tree.js';
import type { CompactionEntry, Message, Part, Session, ThinkingPart } from '../../model/types.js';
import { withAssistantImageNotes } from '../shared/assistant-images.js';
import { asOpenCodeSends, COMPACTION_PROMPT, isOcEntryRaw, summaryParts } from './parse.js';
import { holdsOpenCodeRecords } from './records.js';

export function opencodeContext(session: Pick<Session, 'entries' | 'leafId'>, opts: ContextOptions = {}): Context {
  let compaction: CompactionEntry | undefined;
  const base = buildContext(session, {
    ...opts,
    compactionText: (c) => {
      compaction = c;
      return c.summary;
    },
    mergeSplitResponses: false,
  });
  const messages: Message[] = [];
  // OpenCode and Kilo resume (without `-m`) on the model of the last user message, which records one;
  // a session of none (another agent's records) on its last reply's
  const lastUser = base.messages.findLast((m) => m.role === 'user' && m.model !== undefined);
  const resumedWith = lastUser ?? base.messages.findLast((m) => m.role === 'assistant' && m.model !== undefined);
  const resumedOn = modelKey(resumedWith);
  for (const m of base.messages) {
    if (m.meta?.compactionSummary === true) {
      // OpenCode's own summary message is sent as recorded (its reasoning, each text part); another agent's as its text
      const recorded =
        compaction && holdsOpenCodeRecords(compaction.rawSource) && isOcEntryRaw(compaction.raw) && compaction.raw.summaryMessage
          ? summaryParts(compaction.raw.summaryMessage)
          : undefined;
      const summary = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
      messages.push({ role: 'user', parts: [{ type: 'text', text: COMPACTION_PROMPT }], meta: { compactionRequest: true } });
      messages.push({
        role: 'assistant',
        parts: recorded?.length ? recorded : [{ type: 'text', text: summary }],
        meta: { summary: true },
      });
      continue;
    }
    if (m.meta?.excludedFromContext === true) continue;
    if (m.parts.length === 0) continue;
    // OpenCode's assistant messages hold no images: one another agent's assistant made is sent as its note
    const sent = withoutUnsignedThinking(
      m.role === 'assistant' && m.model !== undefined && modelKey(m) !== resumedOn ? asFromAnotherModel(m) : m,
    );
    // a reply of unsigned thinking only written before threadbase wrote such a reply as text: OpenCode sends
    // it with no content, which the API refuses (FORMAT.md); one of blank thinking only it does not send
    if (sent.parts.length === 0) continue;
    messages.push(
      inCallOrder(oneSummaryPerPart(withAssistantImageNotes(inlineAttachmentsOnly(asOpenCodeSends(sent)))), messages.at(-1)),
    );
  }
  return {
    ...base,
    ...(lastUser ? { model: lastUser.model, ...(lastUser.provider ? { provider: lastUser.provider } : {}) } : {}),
    messages,
  };
}

/** A message's model as OpenCode compares it with the model it resumes with: providerID/modelID. */
function modelKey(m: Message | undefined): string | undefined {
  return m ? `${m.provider ?? ''}/${m.model ?? ''}` : undefined;
}

/**
 * An assistant message of another model than the one OpenCode resumes with (the last user message's,
 * as the real OpenCode 1.18.33 and Kilo 7.7.7 resume without `-m`): toModelMessages (differentModel) sends its
 * reasoning as text, blank reasoning and redacted thinking (reasoning of empty text) not at all, and
 * no provider metadata of its parts. The real OpenCode 1.18.33 and Kilo 7.7.7 sent so.
 */
function asFromAnotherModel(m: Message): Message {
  return {
    ...m,
    parts: m.parts.flatMap((p): Message['parts'] => {
      if (p.type === 'redacted_thinking') return [];
      if (p.type === 'thinking') return p.thinking.trim() ? [{ type: 'text', text: p.thinking }] : [];
      if (p.meta?.providerMetadata === undefined) return [p];
      const { providerMetadata: _dropped, ...meta } = p.meta;
      return [Object.keys(meta).length ? { ...p, meta } : withoutMeta(p)];
    }),
  };
}

function withoutMeta(p: Message['parts'][number]): Message['parts'][number] {
  const { meta: _meta, ...rest } = p;
  return rest;
}

/**
 * Thinking the AI SDK providers drop when OpenCode sends it: without a signature, encrypted content or other
 * provider metadata (pi's, Gemini's, Codex's summaries without their item). @ai-sdk/anthropic drops a reasoning
 * part whose metadata holds no signature or redacted data ('unsupported reasoning metadata'), @ai-sdk/openai
 * (store: false) one without encrypted content. The real OpenCode 1.18.33 and Kilo 7.7.7 sent none of it,
 * blank or not. (An OpenAI-compatible provider would send its text as reasoning_content; the context is the
 * Messages API's.) encode.ts writes a reply of such thinking only as text, which OpenCode sends.
 */
export function isThinkingOpenCodeDrops(p: Part): p is ThinkingPart {
  return (
    p.type === 'thinking' &&
    p.signature === undefined &&
    p.meta?.encryptedContent === undefined &&
    p.meta?.providerMetadata === undefined
  );
}

/**
 * A message's thinking as OpenCode sends it on the model resumed with: thinking threadbase wrote as text
 * (meta.sentAsText: parse.ts, encode.ts, a reply of such thinking only) as that text, other thinking the
 * providers drop (isThinkingOpenCodeDrops; a session written before threadbase wrote it as text) left out.
 */
function withoutUnsignedThinking(m: Message): Message {
  if (m.role !== 'assistant' || !m.parts.some(isThinkingOpenCodeDrops)) return m;
  return {
    ...m,
    parts: m.parts.flatMap((p): Part[] => {
      if (!isThinkingOpenCodeDrops(p)) return [p];
      return p.meta?.sentAsText === true ? [{ type: 'text', text: p.thinking }] : [];
    }),
  };
}

/**
 * OpenCode keeps each result in its call's part and sends a step's results in the order of its calls,
 * whatever order they came in (the reader gives the order threadbase kept: parse.ts resultsInOrder).
 */
function inCallOrder(m: Message, before: Message | undefined): Message {
  if (m.role !== 'tool' || before?.role !== 'assistant') return m;
  const calls = before.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []));
  const at = (p: Message['parts'][number]) => {
    const k = p.type === 'tool_result' ? calls.indexOf(p.callId) : -1;
    return k < 0 ? calls.length : k;
  };
  return { ...m, parts: [...m.parts].sort((a, b) => at(a) - at(b)) };
}

/** OpenCode sends a tool's attachments only when they are inline (data: URLs), not those it links to. */
function inlineAttachmentsOnly(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'tool_result' && typeof p.content !== 'string')) return m;
  return {
    ...m,
    parts: m.parts.map((p) =>
      p.type === 'tool_result' && typeof p.content !== 'string'
        ? { ...p, content: p.content.filter((c) => c.type === 'text' || c.data !== undefined) }
        : p,
    ),
  };
}

/**
 * OpenCode sends a reasoning part's text as one summary part: an item threadbase wrote as one part of
 * several summaries (encode.ts reasoningParts, the summaries kept beside it) is sent as that one part.
 */
function oneSummaryPerPart(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'thinking' && p.meta?.summaryParts !== undefined)) return m;
  return {
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'thinking' || p.meta?.summaryParts === undefined) return p;
      const { summaryParts: _sent, ...meta } = p.meta;
      return { ...p, meta };
    }),
  };
}
