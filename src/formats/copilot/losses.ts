/** What Copilot CLI cannot keep of a session converted into it (beyond what encode.ts says on every write). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { copilotDeclinedMark } from './denials.js';

export function describeCopilotLosses(report: LossReport): void {
  const { counts: c, say } = report;
  sayRewordedResults(report, 'Copilot CLI', copilotDeclinedMark);
  // images by URL and files without text, and calls without a result: the encoder says those on every write (encode.ts)
  say(
    c.systemMessages,
    'system messages kept as system.message events Copilot CLI does not send (it sends its own system prompt)',
  );
  say(c.unsignedThinking, 'thinking without a signature kept as reasoningText, which Copilot CLI does not send on resume');
  say(c.assistantImages, "images in assistant messages written as a text note: Copilot CLI's responses hold text only");
  say(
    c.costs,
    'Copilot CLI records no cost in USD (its usage records count premium requests); kept in a field it ignores (threadbase reads it back)',
  );
  say(c.modelChanges, 'model/thinking-level changes are not written (each message keeps its model)');
  say(c.labels, 'labels are not written: Copilot CLI has no labels');
  say(c.foreignMetadata, "other agents' metadata records are not written");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Copilot CLI sends in their turn",
  );
}
