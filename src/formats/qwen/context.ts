/**
 * What Qwen Code sends on resume, in the model's terms: the chain's messages as recorded (a call the
 * provider ran as the note threadbase wrote for it), with its repair of a call left without a result (repairOrphanToolUses in its geminiChat): such a call is
 * answered by an error result saying the result was not recorded, right after its turn. Registered
 * as Qwen Code's ResumeContext, so `threadbase context` of a Qwen Code chat is what Qwen Code sends.
 */
import { isProviderExecuted, providerCallsAsNotes } from '../../convert/provider-tools.js';
import { buildContext, type Context, type ContextOptions, pathToLeaf } from '../../model/tree.js';
import type { Message, Session, ToolResultPart } from '../../model/types.js';
import { compressionFollowUps } from './records.js';

/** Qwen Code's words for a call whose result was never recorded (ORPHAN_TOOL_USE_REPAIR_REASON, 0.24.4). */
export const ORPHAN_TOOL_USE_REPAIR_REASON =
  'Tool execution result was not recorded — likely interrupted by network failure, abort, or process exit. Treat as failure and retry if needed.';

export function qwenContext(session: Session, opts: ContextOptions = {}): Context {
  const ctx = withCompressionHistory(session, buildContext(session, opts), opts.leafId);
  const answered = new Set(ctx.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : []))));
  const out: Message[] = [];
  for (const m of ctx.messages) {
    // a realtime message is shown, never sent (appendApiHistoryRecord passes over it)
    if (m.meta?.qwenSubtype === 'realtime_message') continue;
    // a call the provider ran goes as its note (encode.ts writes it so; the reader gives the call back)
    out.push(providerCallsAsNotes(m));
    if (m.role !== 'assistant') continue;
    const orphans = m.parts.filter((p) => p.type === 'tool_call' && !isProviderExecuted(p) && !answered.has(p.id));
    if (!orphans.length) continue;
    const results: ToolResultPart[] = orphans.map((p) => ({
      type: 'tool_result',
      callId: p.type === 'tool_call' ? p.id : '',
      ...(p.type === 'tool_call' ? { name: p.name } : {}),
      content: ORPHAN_TOOL_USE_REPAIR_REASON,
      isError: true,
    }));
    out.push({ role: 'tool', parts: results, meta: { qwenRepaired: true } });
  }
  return { ...ctx, messages: thinkingAsSent(out) };
}

/**
 * Thinking as Qwen Code's Anthropic generator sends it (anthropicContentGenerator, 0.24.4): a thought
 * goes as a thinking block, with its signature or none (dropUnsignedAssistantThinking is off unless
 * extended thinking is on for a proxied adaptive-thinking Claude), so unsigned thinking is a thinking
 * block without a signature, not the text the Messages API would take; a thinking block of empty text
 * is dropped but in the latest assistant message (dropEmptyTextThinkingBlocks); redacted thinking has no
 * room in a Gemini Content (the writer keeps it beside the parts) and is not sent. The real qwen 0.24.4
 * resuming a written session sent exactly that (test/agents/unsigned-thinking-qwen.test.ts).
 */
function thinkingAsSent(messages: Message[]): Message[] {
  let latest = messages.findLastIndex((m) => m.role === 'assistant');
  // consecutive assistant messages go as one (mergeConsecutiveAssistantMessages)
  while (latest > 0 && messages[latest - 1]?.role === 'assistant') latest--;
  return messages.flatMap((m, at) => {
    if (m.role !== 'assistant' || !m.parts.some((p) => p.type === 'thinking' || p.type === 'redacted_thinking')) return [m];
    const parts = m.parts.flatMap((p): Message['parts'] => {
      if (p.type === 'redacted_thinking') return [];
      if (p.type !== 'thinking') return [p];
      if (p.thinking === '' && (latest < 0 || at < latest)) return [];
      if (p.signature !== undefined) return [p];
      return [{ ...p, meta: { ...p.meta, anthropicBlock: { type: 'thinking', thinking: p.thinking } } }];
    });
    return parts.length ? [{ ...m, parts }] : [];
  });
}

/**
 * The context with the whole history of the compression it starts from, as Qwen Code resumes from a
 * `chat_compression` record (its SessionApiHistoryAccumulator takes `compressedHistory` as the history
 * so far): after the summary, the turns that followed it there (its "Got it. Thanks for the
 * additional context!", restored files), marked `compactionReplacement`, so that a conversion into
 * another agent writes them after its summary too (convert/session.ts keptMessagesOf).
 */
function withCompressionHistory(session: Session, ctx: Context, leafId: string | undefined): Context {
  const at = ctx.messages.findIndex((m) => m.meta?.compactionSummary === true);
  if (at < 0) return ctx;
  const compaction = pathToLeaf(session, leafId).findLast((e) => e.kind === 'compaction');
  const followUps = compaction ? compressionFollowUps(compaction) : [];
  if (!followUps.length) return ctx;
  const marked = followUps.map((m) => ({ ...m, meta: { ...m.meta, compactionReplacement: true } }));
  return { ...ctx, messages: [...ctx.messages.slice(0, at + 1), ...marked, ...ctx.messages.slice(at + 1)] };
}
