/**
 * What Copilot CLI 1.0.102 sends when it resumes a session (`copilot --resume=<id>`), as seen
 * against the Anthropic stand-in (test/agents/copilot.test.ts): the path's messages as recorded, but
 * - a user message is sent as its `transformedContent` where it has one (the typed text with the
 *   `<current_datetime>` prefix Copilot CLI added when it was typed);
 * - each attached image is sent after a text block `Attached image`;
 * - a failed tool result is sent as its error message without an error flag.
 * Copilot CLI puts its own fresh system prompt and tools before it (not part of this context).
 */
import { buildContext, type Context, type ContextOptions } from '../../model/tree.js';
import type { Message, Part, Session } from '../../model/types.js';

function asSent(m: Message): Message {
  if (m.role === 'user') {
    const transformed = m.meta?.copilotTransformedContent;
    const parts: Part[] = [];
    let textDone = false;
    for (const p of m.parts) {
      if (p.type === 'text' && typeof transformed === 'string') {
        // the recorded `content` is one text part: sent as what the model got when it was typed
        if (!textDone) parts.push({ ...p, text: transformed });
        textDone = true;
      } else if (p.type === 'image') parts.push({ type: 'text', text: 'Attached image' }, p);
      else parts.push(p);
    }
    return { ...m, parts };
  }
  if (!m.parts.some((p) => p.type === 'tool_result' && p.isError)) return m;
  return {
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== 'tool_result') return p;
      const { isError: _flag, ...sent } = p;
      return sent;
    }),
  };
}

export function copilotContext(session: Session, opts: ContextOptions = {}): Context {
  const ctx = buildContext(session, opts);
  return { ...ctx, messages: ctx.messages.map(asSent) };
}
