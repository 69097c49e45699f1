/** What the Continue CLI cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { isProviderExecuted } from '../../convert/provider-tools.js';
import { pairToolCalls } from '../../model/tree.js';
import { continueDeclinedMark } from './denials.js';

export function describeContinueLosses(report: LossReport): void {
  const { foreign, counts: c, say } = report;
  say(
    c.signedThinking + c.unsignedThinking + c.redacted,
    'thinking has no Continue item it sends (its Anthropic adapter keeps none): kept in a field Continue ignores, not sent on resume',
  );
  say(c.systemMessages, 'Continue sends its own system prompt, not system messages: kept in a field it ignores');
  say(c.modelChanges, 'model/thinking-level changes have no Continue item; kept in a field it ignores');
  say(c.labels, 'labels have no Continue item; kept in a field it ignores');
  say(c.foreignMetadata, "another agent's metadata records have no Continue item; kept in a field it ignores");
  say(c.assistantImages, "images in the model's turns have no Continue form; kept in a field it ignores, not sent");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Continue sends in their turn",
  );
  sayRewordedResults(report, 'Continue', continueDeclinedMark, 'cn records');
  const messages = foreign.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  say(
    pairToolCalls(messages).unanswered.filter((p) => !isProviderExecuted(p)).length,
    "tool calls without a result are sent by Continue with its own result 'Tool cancelled'",
  );
}
