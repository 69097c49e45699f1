/**
 * What pi sends of a context, beyond buildSessionContext + convertToLlm: pi-ai's transformMessages
 * (run for every provider) leaves out assistant turns that ended in an error or were aborted, and
 * answers tool calls left without a result with an error result "No result provided" (before the
 * next assistant or user message, or at the end), and drops blank thinking without a signature; the
 * providers but OpenAI's Responses drop blank thinking with one too.
 * The parts of transformMessages that depend on the model resumed with (thinking from another
 * model as text, images for text-only models) are not applied: the context assumes the session's
 * own model.
 */
import type { Message, ToolCallPart } from '../../model/types.js';
import { withAssistantImageNotes } from '../shared/assistant-images.js';
import { thinkingSignatureKind } from './records.js';
import { piThinkingSignature } from './thinking-signature.js';

export const MISSING_RESULT_TEXT = 'No result provided';

/**
 * transformMessages drops a thinking block with no thinkingSignature and no text (blank), for
 * the same model as for any other. The provider then drops a blank one with a signature too
 * (anthropic.js, amazon-bedrock.js, google-shared.js, openai-completions.js, mistral.js
 * convertMessages: `thinking.trim().length === 0`), but OpenAI's Responses, whose signature is the
 * reasoning item (its encrypted content): the real pi 0.73 sent no signed thinking of empty text.
 */
function withoutEmptyThinking(m: Message): Message {
  const keepsSignedBlank = thinkingSignatureKind(m.api) === 'responses';
  const blank = (p: Message['parts'][number]) =>
    p.type === 'thinking' && p.thinking.trim() === '' && !(keepsSignedBlank && piThinkingSignature(p, m.api));
  return m.parts.some(blank) ? { ...m, parts: m.parts.filter((p) => !blank(p)) } : m;
}

export function piSendView(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let pending: ToolCallPart[] = [];
  let answered = new Set<string>();
  const flush = () => {
    const missing = pending.filter((c) => !answered.has(c.id));
    for (const c of missing) {
      out.push({
        role: 'tool',
        parts: [
          {
            type: 'tool_result',
            callId: c.id,
            name: c.name,
            content: [{ type: 'text', text: MISSING_RESULT_TEXT }],
            isError: true,
            // pi answers by the call's own id, item id included (records.ts splitToolCallId)
            ...(typeof c.meta?.piItemId === 'string' ? { meta: { piItemId: c.meta.piItemId } } : {}),
          },
        ],
        meta: { synthetic: true },
      });
    }
    pending = [];
    answered = new Set();
  };
  for (let m of messages) {
    // an extension entry (threadbase's: another agent's instructions, a failed turn's result) pi does not send
    if (m.meta?.piType === 'custom') continue;
    if (m.role === 'assistant') {
      flush();
      if (m.stopReason === 'error' || m.stopReason === 'aborted') continue;
      // pi's assistant messages hold no images: one another agent's assistant made is sent as its note
      m = withAssistantImageNotes(withoutEmptyThinking(m));
      const calls = m.parts.filter((p): p is ToolCallPart => p.type === 'tool_call');
      if (calls.length) {
        pending = calls;
        answered = new Set();
      }
      out.push(m);
    } else if (m.role === 'tool') {
      for (const p of m.parts) if (p.type === 'tool_result') answered.add(p.callId);
      out.push(m);
    } else if (m.role === 'system') {
      // another agent's instructions, kept in an extension entry pi does not send (SYSTEM_CUSTOM_TYPE)
    } else {
      if (m.role === 'user') flush();
      out.push(m);
    }
  }
  flush();
  return out;
}
