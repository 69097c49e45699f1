/** What OpenCode cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import type { LossReport } from '../../convert/losses.js';

export function describeOpenCodeLosses({ counts: c, say }: LossReport): void {
  say(
    c.signedThinking + c.unsignedThinking,
    'thinking is kept with its signature, but OpenCode replays reasoning recorded by another model as plain text',
  );
  // 1-hour cache writes and the price terms go in a tokens field OpenCode ignores (encode.ts)
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note OpenCode sends in their turn (their results stayed with the provider; the call kept for the way back)",
  );
  say(
    c.assistantImages,
    "images the assistant made have no place in OpenCode's assistant messages; written as a text note, kept for the way back",
  );
  // system messages: the encoder says each one left out on every write (encode.ts)
  say(c.modelChanges, 'model/thinking-level changes have no OpenCode record; left out');
  say(c.labels, 'labels have no OpenCode record; left out');
  say(c.foreignMetadata, "another agent's metadata records have no OpenCode form; left out");
}
