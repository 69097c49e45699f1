/** What Copilot CLI cannot keep of a session converted into it (beyond what encode.ts says on every write). */
import type { LossReport } from '../../convert/losses.js';

export function describeCopilotLosses({ counts: c, say }: LossReport): void {
  // unsigned thinking, images in tool results and assistant messages, system messages, advisor
  // requests and calls without a result: the encoder says those on every write (encode.ts)
  say(
    c.costs,
    "Copilot CLI records no cost in USD (its usage records count premium requests): the messages' cost is not written",
  );
  say(c.modelChanges, 'model changes are not written (each message keeps its model)');
  say(c.labels, 'labels are not written: Copilot CLI has no labels');
  say(c.foreignMetadata, "other agents' metadata records are not written");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Copilot CLI sends in their turn",
  );
}
