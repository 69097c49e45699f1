/** What Qwen Code cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { isProviderExecuted } from '../../convert/provider-tools.js';
import { pairToolCalls } from '../../model/tree.js';
import { qwenDeclinedMark } from './denials.js';

export function describeQwenLosses(report: LossReport): void {
  const { foreign, counts: c, say } = report;
  sayRewordedResults(report, 'Qwen Code', qwenDeclinedMark);
  say(c.redacted, 'redacted thinking has no Qwen Code part: kept in a field Qwen Code ignores, not sent on resume');
  say(c.systemMessages, 'Qwen Code has no system messages: kept in a record it does not send');
  say(c.costs, 'Qwen Code records no cost per message; kept in a field it ignores (threadbase reads it back)');
  say(c.modelChanges, 'model/thinking-level changes have no Qwen Code record; kept in a record it does not send');
  say(c.labels, 'labels have no Qwen Code record; kept in a record it does not send');
  say(c.foreignMetadata, "another agent's metadata records have no Qwen Code form; kept in a record it does not send");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Qwen Code sends in their turn (the call kept for the way back)",
  );
  const messages = foreign.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  say(
    pairToolCalls(messages).unanswered.filter((p) => !isProviderExecuted(p)).length,
    'tool calls without a result are answered by Qwen Code on resume with its own error result (it says the result was not recorded)',
  );
}
