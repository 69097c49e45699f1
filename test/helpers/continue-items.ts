/**
 * Continue's contexts and the requests cn sent, as the Continue format tests compare them: every text,
 * tool call and tool result in order, `role:text`, `call:id:name:input`, `result:id:text`, nothing trimmed.
 */
import type { Context } from '../../src/model/tree.js';

/** An Anthropic content block as the recorded requests hold it. */
export type RequestBlock = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
export type RequestMessage = { role: string; content: string | RequestBlock[] };

/** A context's texts (a tool's as the user's), calls and results. */
export function contextLines(ctx: Context): string[] {
  return ctx.messages.flatMap((m) =>
    m.parts.flatMap((p) => {
      const who = m.role === 'assistant' ? 'assistant' : 'user';
      if (p.type === 'text') return [`${who}:${p.text}`];
      if (p.type === 'tool_call') return [`call:${p.id}:${p.name}:${JSON.stringify(p.input)}`];
      if (p.type === 'tool_result') return [`result:${p.callId}:${typeof p.content === 'string' ? p.content : ''}`];
      return [];
    }),
  );
}

/** The same of the messages of a request. */
export function requestLines(messages: RequestMessage[]): string[] {
  return messages.flatMap((m) =>
    (typeof m.content === 'string' ? [{ type: 'text', text: m.content } as RequestBlock] : m.content).flatMap((b) => {
      if (b.type === 'text') return [`${m.role}:${b.text}`];
      if (b.type === 'tool_use') return [`call:${b.id}:${b.name}:${JSON.stringify(b.input)}`];
      if (b.type === 'tool_result') return [`result:${b.tool_use_id}:${typeof b.content === 'string' ? b.content : ''}`];
      return [];
    }),
  );
}

/**
 * The results cn 1.5.47 sent on `--fork` of test/fixtures/continue/edge-states, in order: in the order of
 * the states, "Tool cancelled" for a state without output and a later tool item's result both, a tool
 * item without its call, a refused and a cancelled call.
 */
export const EDGE_STATES_SENT_RESULTS = [
  'result:c3:C3OUT',
  'result:c1:Tool cancelled',
  'result:c2:C2OUT',
  'result:c1:C1 LATE',
  'result:c9:ORPHAN',
  'result:d1:Permission denied by user',
  'result:d2:Tool cancelled',
];
