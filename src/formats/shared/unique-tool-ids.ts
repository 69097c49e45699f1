/**
 * Tool-call ids made unique within one written session, for the writers of agents that send what is
 * recorded as it is (pi, OpenCode): some providers number the calls of each response (Kimi's
 * `functions.bash:0`), so another agent's ids can repeat across turns, and the Messages API refuses a
 * request whose `tool_use` ids repeat ("`tool_use` ids must be unique"). A later call whose id is taken
 * gets a prefix (`tb2_…`, as the Claude Code writer names it: convert/anthropic.ts AnthropicToolIds), its
 * results follow it (a result answers the latest call of its id before it), and the writer keeps the
 * original beside it for reading back. Ids are compared as the Messages API takes them (anthropicToolId),
 * since pi-ai and OpenCode replace the characters it refuses: `a.b` and `a_b` would be sent alike.
 */
import { anthropicToolId } from '../../convert/anthropic.js';

export class UniqueToolIds {
  private readonly used = new Set<string>();
  /** an original id → the id its latest call was written with */
  private readonly latest = new Map<string, string>();

  /** A call the session already holds (an agent's own record, written as it is), with the id `written`. */
  seen(original: string, written = original): void {
    this.used.add(anthropicToolId(written));
    this.latest.set(original, written);
  }

  /** The id a call of id `original` is written with: the id itself, unless an earlier call took it. */
  call(original: string): string {
    let written = original;
    for (let n = 2; this.used.has(anthropicToolId(written)); n++) written = `tb${n}_${original}`;
    this.seen(original, written);
    return written;
  }

  /** The id a result for the call of id `original` is written with: its latest call's. */
  result(original: string): string {
    return this.latest.get(original) ?? original;
  }
}
