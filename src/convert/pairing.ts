/**
 * Tool calls and results placed as provider APIs require them, for the renderers that print a context
 * as a request body (anthropic, openai, ai-sdk). A session can hold calls without a result (it ended,
 * or was interrupted, mid-tool; the leaf is the call), results without their call (a compaction or a
 * branch cut the call off) and results that came after other messages; every API refuses those.
 *
 * After every assistant turn come exactly the results of its calls, each once, before anything else
 * of the user's side (Anthropic: first in the next user message; OpenAI chat: the `tool` messages
 * right after the assistant message). So, on model messages:
 * - a call without a result gets `missingResult`, pi-ai's rule (transform-messages.js, "No result
 *   provided" with isError): pi-ai applies it for every provider it talks to, and it claims nothing
 *   about why the result is missing (Claude Code's "[Tool call interrupted: …]" says the session
 *   ended, which is wrong for a call a user message followed);
 * - a result whose call is not before it, or a second result for one call, is dropped, as codex drops
 *   an output whose call is missing (normalize.rs remove_orphan_outputs; pi-ai keeps them, and the
 *   API refuses the request);
 * - a result that sits elsewhere (after other messages or a later turn) moves to just after its call.
 * A context that already satisfies this comes back as it was, message for message.
 * Results inside an assistant message (provider-executed tools) are no renderer's results: they are
 * left where they are and do not answer a call; a call the provider ran itself (`meta.providerExecuted`,
 * provider-tools.ts) is owed no result and gets none. The Responses API (`contextToResponses`) uses codex's
 * own normalizer instead (formats/codex/history.ts normalizeCalls).
 */
import type { Message, Part, ToolCallPart, ToolResultPart } from '../model/types.js';
import { isProviderExecuted } from './provider-tools.js';

/** pi-ai's text for a call that got no result. */
export const NO_RESULT_TEXT = 'No result provided';

/** The result put in for a call that has none: an error result saying there was none. */
export function missingResult(call: ToolCallPart): ToolResultPart {
  return { type: 'tool_result', callId: call.id, name: call.name, content: NO_RESULT_TEXT, isError: true };
}

export interface PairingRule {
  /**
   * Whether consecutive assistant messages are one turn whose results may follow the last of them
   * (Anthropic, which merges them into one message) or each message is a turn of its own (OpenAI
   * chat, where every assistant message with tool_calls must be followed by their tool messages).
   */
  mergeAssistants: boolean;
}

interface Turn {
  assistant: Message[];
  /** the user's side up to the next turn: user, tool and system messages */
  after: Message[];
}

const isResult = (p: Part): p is ToolResultPart => p.type === 'tool_result';

/** The messages with their result parts taken out; a message left with no parts goes. */
function withoutResults(messages: readonly Message[]): Message[] {
  return messages.flatMap((m) => {
    const kept = m.parts.filter((p) => !isResult(p));
    if (kept.length === m.parts.length) return [m];
    return kept.length ? [{ ...m, parts: kept }] : [];
  });
}

/** Whether `after` starts with exactly `answers` (any order) and holds no other result. */
function answeredInPlace(after: readonly Message[], answers: ReadonlySet<ToolResultPart>): boolean {
  let results = 0;
  let other = false;
  for (const m of after)
    for (const p of m.parts) {
      if (!isResult(p)) {
        other = true;
        continue;
      }
      if (other || !answers.has(p)) return false;
      results++;
    }
  return results === answers.size;
}

/** Model messages with every call answered right after its turn and no result without its call. */
export function pairToolResults(messages: readonly Message[], rule: PairingRule): Message[] {
  const lead: Message[] = [];
  const turns: Turn[] = [];
  // each result with the number of turns before it
  const results = new Map<string, { after: number; part: ToolResultPart }[]>();
  for (const m of messages) {
    const last = turns[turns.length - 1];
    if (m.role === 'assistant') {
      if (last && rule.mergeAssistants && last.after.length === 0) last.assistant.push(m);
      else turns.push({ assistant: [m], after: [] });
      continue;
    }
    (last ? last.after : lead).push(m);
    for (const p of m.parts) {
      if (!isResult(p)) continue;
      const list = results.get(p.callId) ?? [];
      list.push({ after: turns.length, part: p });
      results.set(p.callId, list);
    }
  }

  // each call takes the first result for its id that comes after it and that no call took before
  const answersOf = turns.map((t, i) =>
    t.assistant
      .flatMap((m) => m.parts.filter((p): p is ToolCallPart => p.type === 'tool_call' && !isProviderExecuted(p)))
      .map((call) => {
        const list = results.get(call.id) ?? [];
        const at = list.findIndex((r) => r.after > i);
        const found = at < 0 ? undefined : list.splice(at, 1)[0]?.part;
        return { found, result: found ?? missingResult(call) };
      }),
  );

  const out: Message[] = withoutResults(lead);
  turns.forEach((t, i) => {
    const answers = answersOf[i] ?? [];
    out.push(...t.assistant);
    const own = new Set(answers.map((a) => a.result));
    if (answers.every((a) => a.found) && answeredInPlace(t.after, own)) {
      out.push(...t.after);
      return;
    }
    // results already among the replies keep their order; the moved and the missing follow in call order
    const inPlace = t.after.flatMap((m) => m.parts.filter((p): p is ToolResultPart => isResult(p) && own.has(p)));
    const placed = new Set(inPlace);
    const parts = [...inPlace, ...answers.map((a) => a.result).filter((r) => !placed.has(r))];
    if (parts.length) out.push({ role: 'tool', parts });
    out.push(...withoutResults(t.after));
  });
  return out;
}
