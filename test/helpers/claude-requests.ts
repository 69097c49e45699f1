/** Messages API requests as the Claude Code tests compare them: the conversation, without what Claude Code adds per request. */

export type Block = Record<string, unknown> & { type: string };
export interface Msg {
  role: string;
  content: string | Block[];
}

/**
 * The conversation of a request with Claude Code's request-time additions taken out. Each rule is
 * something Claude Code adds when it builds a request, not something in the conversation:
 * - role 'system' messages: 2.1.3xx renders its `attachment` records (environment, model identity,
 *   deferred-tool / agent / skill listings) and per-turn settings (`output_config`) as system-role
 *   messages placed at request time;
 * - text blocks that start with `<system-reminder>`: the date and commit-attribution reminders it
 *   prepends to a user turn, and background-task notifications, which it wraps in a reminder
 *   (threadbase wraps them the same way; both sides drop them here);
 * - `cache_control` markers on blocks (prompt-caching hints, moved on every request);
 * - string content is the same as one text block (it sends the latest turn one way, older ones the other).
 * Empty messages left behind are dropped and neighbours of one role joined, as the API does.
 */
export function conversation(messages: readonly Msg[]): { role: string; content: Block[] }[] {
  const out: { role: string; content: Block[] }[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const blocks = (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)
      .filter((b) => !(b.type === 'text' && typeof b.text === 'string' && b.text.startsWith('<system-reminder>')))
      .map(({ cache_control: _c, ...rest }) => rest as Block);
    if (blocks.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === m.role) prev.content.push(...blocks);
    else out.push({ role: m.role, content: blocks });
  }
  return out;
}
