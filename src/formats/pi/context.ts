/**
 * What pi sends of a context, beyond buildSessionContext + convertToLlm: pi-ai's transformMessages
 * (run for every provider) leaves out assistant turns that ended in an error or were aborted, and
 * answers tool calls left without a result with an error result "No result provided" (before the
 * next assistant or user message, or at the end), and drops blank thinking without a signature; the
 * providers but OpenAI's Responses drop blank thinking with one too.
 * The model resumed with is taken to be the last response's (pi restores the session's model): a
 * response of another model has its thinking sent as text and its redacted thinking left out
 * (transformMessages isSameModel); images for text-only models are not replaced.
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

/**
 * A message's model as transformMessages compares it with the model resumed with: its provider and
 * id. pi resumes with the last response's provider and model as its registry has them, the API the
 * registry's, so a message's own api says nothing of it (a copy back from Codex records its later
 * responses as openai-responses beside the kept turns' anthropic-messages, all one model).
 */
function modelKey(m: Message | undefined): string | undefined {
  return m ? JSON.stringify([m.provider ?? '', m.model ?? '']) : undefined;
}

/**
 * A response of another model as transformMessages sends it: its thinking (signed or not) as text,
 * blank thinking and redacted thinking not at all. The real pi 0.73.1 sent so.
 */
function asFromAnotherModel(m: Message): Message {
  if (!m.parts.some((p) => p.type === 'thinking' || p.type === 'redacted_thinking')) return m;
  return {
    ...m,
    parts: m.parts.flatMap((p): Message['parts'] => {
      if (p.type === 'redacted_thinking') return [];
      if (p.type === 'thinking') return p.thinking.trim() ? [{ type: 'text', text: p.thinking }] : [];
      return [p];
    }),
  };
}

export function piSendView(messages: readonly Message[]): Message[] {
  const resumedOn = modelKey(messages.findLast((m) => m.role === 'assistant' && m.model !== undefined));
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
      if (m.model !== undefined && modelKey(m) !== resumedOn) m = asFromAnotherModel(m);
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
